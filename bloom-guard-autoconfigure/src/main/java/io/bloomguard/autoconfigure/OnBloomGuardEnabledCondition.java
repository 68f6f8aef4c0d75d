package io.bloomguard.autoconfigure;

import org.springframework.boot.autoconfigure.condition.ConditionMessage;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches while bloom-guard is switched on. {@code bloom-guard.enabled} is read through Spring Boot's binder, as
 * the filters read it, so that every spelling the binder takes for a boolean ({@code on}, {@code yes}, {@code 1},
 * ...) switches the guard and the preload exactly as it switches the filters: {@code @ConditionalOnBooleanProperty}
 * matches the text {@code true} only, and left the filters loading with nothing to load them.
 *
 * <p>Usage: {@code @Conditional(OnBloomGuardEnabledCondition.class)} on a configuration class.
 */
final class OnBloomGuardEnabledCondition extends SpringBootCondition {

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        ConditionMessage.Builder message = ConditionMessage.forCondition(BloomGuardSettings.ENABLED);
        return BloomGuardSettings.enabled(context.getEnvironment())
                ? ConditionOutcome.match(message.because("bloom-guard is switched on"))
                : ConditionOutcome.noMatch(message.because("bloom-guard is switched off"));
    }
}
