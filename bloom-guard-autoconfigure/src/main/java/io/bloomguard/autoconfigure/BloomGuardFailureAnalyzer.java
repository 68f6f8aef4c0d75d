package io.bloomguard.autoconfigure;

import io.bloomguard.guard.InvalidBloomAnnotationException;
import io.bloomguard.preload.UnknownKeySourceFilterException;
import io.bloomguard.redis.port.RedisAccessDeniedException;
import io.bloomguard.redis.port.RedisForeignFilterException;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

/**
 * Explains a startup failure caused by a bloom-guard annotation, key source or property, or by a Redis that refuses
 * bloom-guard's user: what is wrong, where, and what to change. Ahead of Spring Boot's analyzers, which would
 * otherwise answer an unknown property with their generic report whenever the starter comes after Spring Boot on the
 * classpath: analyzers of equal order run in classpath order.
 */
@Order(Ordered.HIGHEST_PRECEDENCE)
final class BloomGuardFailureAnalyzer implements FailureAnalyzer {

    @Override
    public @Nullable FailureAnalysis analyze(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof InvalidBloomAnnotationException annotation) {
                return new FailureAnalysis(annotation.annotation() + " on " + annotation.method() + ": "
                        + annotation.problem(), annotation.action(), annotation);
            }
            if (cause instanceof UnknownKeySourceFilterException keySource) {
                return new FailureAnalysis(keySource.getMessage(), "Make " + keySource.source()
                        + " name a configured filter in its filter(), or declare bloom-guard.filters."
                        + keySource.filter() + " in your configuration.", keySource);
            }
            if (cause instanceof UnboundConfigurationPropertiesException unbound) {
                FailureAnalysis analysis = UnknownPropertyReport.analyze(unbound);
                if (analysis != null) {
                    return analysis;
                }
            }
            if (cause instanceof RedisAccessDeniedException refused) {
                return new FailureAnalysis(refused.getMessage() + ".", refused.action() + ".", refused);
            }
            if (cause instanceof RedisForeignFilterException foreign) {
                return new FailureAnalysis(foreign.getMessage() + ".", foreign.action() + ".", foreign);
            }
            if (cause instanceof InvalidBloomGuardPropertyException property) {
                return new FailureAnalysis("Invalid value '" + property.value() + "' for property "
                        + property.property() + ": " + property.allowed() + ".",
                        "Update " + property.property() + " in your application's configuration.", property);
            }
        }
        return null;
    }
}
