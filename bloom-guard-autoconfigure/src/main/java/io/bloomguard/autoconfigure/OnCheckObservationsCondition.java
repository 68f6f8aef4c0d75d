package io.bloomguard.autoconfigure;

import io.bloomguard.observation.CheckObservations;
import org.springframework.boot.autoconfigure.condition.ConditionMessage;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches when {@code bloom-guard.observations.checks} asks for observations of the guard's checks ({@code on} or
 * {@code under-parent}); not by default. Read through Spring Boot's binder, as the settings read it, so that
 * {@code under-parent}, {@code UNDER_PARENT} and a YAML {@code off} (a boolean to YAML) all mean what they say.
 *
 * <p>Usage: {@code @Conditional(OnCheckObservationsCondition.class)} on a configuration class.
 */
final class OnCheckObservationsCondition extends SpringBootCondition {

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        ConditionMessage.Builder message = ConditionMessage.forCondition(BloomGuardSettings.CHECK_OBSERVATIONS);
        CheckObservations checks = BloomGuardSettings.checkObservations(context.getEnvironment());
        return (checks != CheckObservations.OFF)
                ? ConditionOutcome.match(message.because("checks are observed: " + checks))
                : ConditionOutcome.noMatch(message.because("checks are not observed (off, the default)"));
    }
}
