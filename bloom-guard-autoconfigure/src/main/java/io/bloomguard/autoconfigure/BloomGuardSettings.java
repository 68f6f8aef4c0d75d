package io.bloomguard.autoconfigure;

import io.bloomguard.observation.CheckObservations;
import io.bloomguard.registry.FilterSpec;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.bind.handler.NoUnboundElementsBindHandler;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.UnboundElementsSourceFilter;
import org.springframework.core.env.Environment;

import java.util.List;
import java.util.Set;

/**
 * {@code bloom-guard.*} as bound once per application context, with every filter's spec resolved and validated:
 * what the registry, the filter beans and the redis backend are built from. {@link BloomGuardPropertiesRegistrar}
 * binds it before any bean is created and publishes it as a singleton, which the beans that need it inject.
 *
 * @param properties the properties as bound, each filter shown with the values it ended up with
 * @param filters    each configured filter's spec, in the order the filters are declared
 */
record BloomGuardSettings(BloomGuardProperties properties, List<FilterSpec> filters) {

    private static final String PREFIX = "bloom-guard";

    /** Name of the master switch. */
    static final String ENABLED = "bloom-guard.enabled";

    /** Name of the switch of the checks' observations. */
    static final String CHECK_OBSERVATIONS = "bloom-guard.observations.checks";

    BloomGuardSettings {
        filters = List.copyOf(filters);
    }

    /**
     * Binds {@code bloom-guard.*} from the environment and resolves the filters' specs, which refuses invalid
     * values; the properties it returns show each filter as resolved. Strict for application files, the command line and every other source the application chose: a
     * property this version does not know (a typo such as {@code eror-rate}, or a setting from a later version)
     * fails startup instead of silently leaving a filter on its defaults. Not for environment variables and system
     * properties, which relaxed binding maps onto {@code bloom-guard.*} even when another tool set them
     * ({@code BLOOMGUARD_VERSION} reads as {@code bloom-guard.version}); {@link #unknownInEnvironment} finds those.
     * This is the rule Spring Boot applies to a properties bean with {@code ignoreUnknownFields = false}.
     */
    static BloomGuardSettings bind(Environment environment) {
        BloomGuardProperties properties = Binder.get(environment).bindOrCreate(PREFIX,
                Bindable.of(BloomGuardProperties.class),
                new NoUnboundElementsBindHandler(BindHandler.DEFAULT, new UnboundElementsSourceFilter()));
        List<FilterSpec> filters = FilterSpecResolver.resolve(properties);
        return new BloomGuardSettings(properties.withResolvedFilters(filters), filters);
    }

    /**
     * The {@code bloom-guard.*} properties from environment variables and system properties that this version does
     * not know, which {@link #bind} leaves alone; empty when there are none. A check only: what it binds is dropped.
     */
    static Set<ConfigurationProperty> unknownInEnvironment(Environment environment) {
        UnboundElementsSourceFilter applicationSources = new UnboundElementsSourceFilter();
        try {
            Binder.get(environment).bindOrCreate(PREFIX, Bindable.of(BloomGuardProperties.class),
                    new NoUnboundElementsBindHandler(BindHandler.DEFAULT,
                            (source) -> !applicationSources.apply(source)));
            return Set.of();
        }
        catch (BindException ex) {
            if (ex.getCause() instanceof UnboundConfigurationPropertiesException unbound) {
                return unbound.getUnboundProperties();
            }
            throw ex;
        }
    }

    /**
     * Reads the master switch alone, the way {@link #bind} reads it (true when unset), for the conditions that
     * decide whether the guard and the preload exist: they are evaluated before the settings are bound. A value
     * the binder does not take for a boolean throws its {@code BindException}, which Spring Boot reports as it
     * reports any property it cannot bind.
     */
    static boolean enabled(Environment environment) {
        return Binder.get(environment).bind(ENABLED, Bindable.of(Boolean.class)).orElse(true);
    }

    /**
     * Reads {@code bloom-guard.observations.checks} alone, as {@link #bind} reads it ({@code off} when unset), for the
     * condition that decides whether the checks have an observer at all; a value that is none of the
     * {@link CheckObservations} throws the binder's {@code BindException}, which Spring Boot reports with the valid
     * values.
     */
    static CheckObservations checkObservations(Environment environment) {
        return Binder.get(environment).bind(CHECK_OBSERVATIONS, Bindable.of(CheckObservations.class))
                .orElse(CheckObservations.OFF);
    }

    /**
     * Shows {@code specs}, as customized in code, in the properties bean ({@code /actuator/configprops}), which was
     * registered with the values the properties alone gave.
     */
    void showResolved(List<FilterSpec> specs) {
        for (FilterSpec spec : specs) {
            properties.getFilters().put(spec.name(), FilterProperties.resolved(spec, properties.feedOf(spec.name())));
        }
    }

    /** Whether bloom-guard is switched on ({@code bloom-guard.enabled}). */
    boolean enabled() {
        return properties.isEnabled();
    }
}
