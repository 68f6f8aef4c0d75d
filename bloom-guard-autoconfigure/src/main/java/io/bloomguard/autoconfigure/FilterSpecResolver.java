package io.bloomguard.autoconfigure;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.registry.BackendType;
import io.bloomguard.registry.FilterSpec;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Turns bound properties into validated, immutable {@link FilterSpec}s: each filter's own values over the
 * defaults. A pure function; the properties are not changed.
 */
final class FilterSpecResolver {

    private static final Pattern NAME = Pattern.compile("[a-z0-9-]+");

    private FilterSpecResolver() {
    }

    static List<FilterSpec> resolve(BloomGuardProperties properties) {
        BloomGuardProperties.Defaults defaults = properties.getDefaults();
        validateSize("bloom-guard.defaults", defaults.getExpectedSize(), defaults.getErrorRate());
        List<FilterSpec> specs = new ArrayList<>();
        for (Map.Entry<String, BloomGuardProperties.Filter> entry : properties.getFilters().entrySet()) {
            String name = entry.getKey();
            String prefix = "bloom-guard.filters." + name;
            if (!NAME.matcher(name).matches()) {
                throw new InvalidBloomGuardPropertyException("bloom-guard.filters", name,
                        "a filter name uses lowercase letters, digits and '-' only (e.g. 'user-ids')");
            }
            BloomGuardProperties.Filter filter = entry.getValue();
            long expectedSize = orDefault(filter.getExpectedSize(), defaults.getExpectedSize());
            double errorRate = orDefault(filter.getErrorRate(), defaults.getErrorRate());
            FilterSizing sizing = validateSize(prefix, expectedSize, errorRate);
            BackendType backend = orDefault(filter.getBackend(), defaults.getBackend());
            if (backend == BackendType.REDIS) {
                throw new InvalidBloomGuardPropertyException(prefix + ".backend", "redis",
                        "the redis backend is not supported yet in this version; the only backend available is local");
            }
            long heap = Runtime.getRuntime().maxMemory();
            if (sizing.byteSize() > heap) {
                throw new InvalidBloomGuardPropertyException(prefix + ".expected-size", expectedSize,
                        "a local filter of " + expectedSize + " keys at error rate " + errorRate + " needs "
                                + sizing.byteSize() / (1 << 20) + " MiB, more than the heap (" + heap / (1 << 20)
                                + " MiB); lower it, raise error-rate or give the JVM more memory");
            }
            String sql = filter.getPreload().getSql();
            if (sql != null && sql.isBlank()) {
                throw new InvalidBloomGuardPropertyException(prefix + ".preload.sql", "",
                        "a query whose first column yields the keys, e.g. SELECT id FROM users; or leave it out");
            }
            specs.add(new FilterSpec(name, expectedSize, errorRate, backend,
                    orDefault(filter.getMode(), defaults.getMode()),
                    orDefault(filter.getOnBackendFailure(), defaults.getOnBackendFailure()), sql));
        }
        return List.copyOf(specs);
    }

    private static FilterSizing validateSize(String prefix, long expectedSize, double errorRate) {
        if (expectedSize <= 0) {
            throw new InvalidBloomGuardPropertyException(prefix + ".expected-size", expectedSize,
                    "a whole number of keys, at least 1");
        }
        if (!(errorRate > 0.0 && errorRate < 1.0)) {
            throw new InvalidBloomGuardPropertyException(prefix + ".error-rate", errorRate,
                    "a probability greater than 0 and less than 1, e.g. 0.01 for 1%");
        }
        try {
            return FilterSizing.of(expectedSize, errorRate);
        }
        catch (IllegalArgumentException ex) {
            throw new InvalidBloomGuardPropertyException(prefix + ".expected-size", expectedSize, ex.getMessage());
        }
    }

    private static <T> T orDefault(T value, T fallback) {
        return (value != null) ? value : fallback;
    }
}
