package io.bloomguard.testsupport.redis;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Registered by {@link WithRedisBloom} for the class or method whose parameter it marks: disables them when no
 * {@link RedisBloomModule} is available. (A parameter resolver cannot skip: JUnit turns what it throws, an
 * assumption too, into a failure.)
 */
final class RedisBloomCondition implements ExecutionCondition {

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        return RedisBloomModule.available()
                ? ConditionEvaluationResult.enabled("RedisBloom module " + RedisBloomModule.path().orElseThrow())
                : ConditionEvaluationResult.disabled(RedisBloomModule.unavailableReason());
    }

}
