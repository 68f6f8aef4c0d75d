package io.bloomguard.autoconfigure;

import io.bloomguard.core.NearCopyMode;
import io.bloomguard.registry.BackendType;
import io.bloomguard.registry.FilterSpec;
import io.bloomguard.registry.FilterSpecBuilder;
import io.bloomguard.registry.FilterType;
import io.bloomguard.registry.GrowthPolicy;
import io.bloomguard.registry.InvalidFilterSpecException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Turns bound properties into validated, immutable {@link FilterSpec}s: each filter's own values over the
 * defaults. The properties are not changed; a value that is valid but unsafe is logged as a warning. A value refused
 * is reported as the property it came from: the filter's own, or the default it inherited.
 */
final class FilterSpecResolver {

    private static final Log logger = LogFactory.getLog(FilterSpecResolver.class);

    private FilterSpecResolver() {
    }

    static List<FilterSpec> resolve(BloomGuardProperties properties) {
        FilterDefaults defaults = properties.getDefaults();
        checkDefaults(defaults);
        List<FilterSpec> specs = new ArrayList<>();
        for (Map.Entry<String, FilterProperties> entry : properties.getFilters().entrySet()) {
            FilterSpec spec = resolve(entry.getKey(), entry.getValue(), defaults);
            FilterSpecLimits.check(spec, properties.isEnabled());
            specs.add(spec);
        }
        if (properties.isEnabled()) {
            FilterSpecLimits.checkTogether(specs);
        }
        return List.copyOf(specs);
    }

    private static FilterSpec resolve(String name, FilterProperties filter, FilterDefaults defaults) {
        String prefix = "bloom-guard.filters." + name;
        BackendType backend = orDefault(filter.getBackend(), defaults.getBackend());
        FilterType type = orDefault(filter.getType(), defaults.getType());
        GrowthPolicy growth = orDefault(filter.getGrowth(), defaults.getGrowth());
        if (filter.isPutsOnly() && filter.getGrowth() == null) {
            growth = putsOnlyGrowth(name, filter, backend, type, growth);
        }
        boolean foreign = backend == BackendType.REDIS && filter.getRedis().getKey() != null;
        if (foreign && filter.getGrowth() == null) {
            growth = GrowthPolicy.NONE; // its owner sizes it, and the server scales it
        }
        RebuildProperties own = filter.getRebuild();
        RebuildProperties inherited = defaults.getRebuild();
        String cron = orDefault(own.getCron(), inherited.getCron());
        String zone = orDefault(own.getZone(), inherited.getZone());
        FilterSpecLimits.checkSchedule(origin(prefix, own.getCron() != null) + ".rebuild.cron", cron,
                origin(prefix, own.getZone() != null) + ".rebuild.zone", zone);
        if ((filter.isPutsOnly() || foreign) && own.getCron() == null) {
            cron = null; // the defaults' schedule is for filters that have a key source
        }
        Double holdBelow = orDefault(own.getHoldBelow(), inherited.getHoldBelow());
        FilterSpecBuilder builder = FilterSpec.builder(name)
            .expectedSize(orDefault(filter.getExpectedSize(), defaults.getExpectedSize()))
            .errorRate(orDefault(filter.getErrorRate(), defaults.getErrorRate()))
            .type(type)
            .growth(growth)
            .mode(orDefault(filter.getMode(), defaults.getMode()))
            .onBackendFailure(orDefault(filter.getOnBackendFailure(), defaults.getOnBackendFailure()))
            .onAddFailure(orDefault(filter.getOnAddFailure(), defaults.getOnAddFailure()))
            .putsOnly(filter.isPutsOnly())
            .preloadSql(filter.getPreload().getSql())
            .rebuildCron(cron)
            .rebuildZone(zone)
            .rebuildHoldBelow((holdBelow != null) ? holdBelow : FilterSpec.DEFAULT_REBUILD_HOLD_BELOW);
        int shards = filter.getRedis().getShards();
        if (backend == BackendType.REDIS) {
            builder.redis(shards, filter.getRedis().getNearCopy(), filter.getRedis().getKind(),
                    filter.getRedis().getKey());
        }
        try {
            FilterSpec spec = builder.build();
            if (backend == BackendType.LOCAL && shards != 1) {
                // A local filter ignores redis.* (a profile may switch the default backend to local), but a number
                // of shards that could never work is refused now rather than when the backend is switched back.
                spec.toBuilder().growth(GrowthPolicy.NONE).redis(shards, NearCopyMode.OFF).build();
            }
            return spec;
        }
        catch (InvalidFilterSpecException ex) {
            throw new InvalidBloomGuardPropertyException(property(prefix, filter, ex.property()), ex.value(),
                    ex.allowed());
        }
    }

    /** {@code bloom-guard.defaults}' size, checked even when no filter inherits it. */
    private static void checkDefaults(FilterDefaults defaults) {
        try {
            FilterSpec.builder("defaults").expectedSize(defaults.getExpectedSize()).errorRate(defaults.getErrorRate())
                .growth(GrowthPolicy.NONE).build();
        }
        catch (InvalidFilterSpecException ex) {
            throw new InvalidBloomGuardPropertyException("bloom-guard.defaults." + ex.property(), ex.value(),
                    ex.allowed());
        }
    }

    /**
     * A filter filled by puts alone has no key source to rebuild from, so it grows by layers: {@code growth: rebuild}
     * inherited from the defaults becomes {@code scale}, or {@code none} where layers cannot be (a counting filter; a
     * redis filter split into shards), which then reports being over capacity. Set on the filter itself, it is
     * refused by the spec's rules.
     */
    private static GrowthPolicy putsOnlyGrowth(String name, FilterProperties filter, BackendType backend,
            FilterType type, GrowthPolicy growth) {
        if (growth != GrowthPolicy.REBUILD) {
            return growth;
        }
        boolean layersFit = type == FilterType.BLOOM && (backend == BackendType.LOCAL
                || filter.getRedis().getShards() == 1);
        if (!layersFit) {
            logger.info("Filter '" + name + "' is filled by puts alone and cannot grow by layers (" + (type
                    != FilterType.BLOOM ? "a " + type.name().toLowerCase(java.util.Locale.ROOT) + " filter"
                    : "redis.shards") + "): past"
                    + " its expected size it reports being over capacity (growth: none)");
        }
        return layersFit ? GrowthPolicy.SCALE : GrowthPolicy.NONE;
    }

    /** The property a refused value came from: the filter's own, or the default it inherited. */
    private static String property(String prefix, FilterProperties own, String property) {
        if (property.isEmpty()) {
            return "bloom-guard.filters";
        }
        boolean set = switch (property) {
            case "expected-size" -> own.getExpectedSize() != null;
            case "error-rate" -> own.getErrorRate() != null;
            case "type" -> own.getType() != null;
            case "growth" -> own.getGrowth() != null;
            case "rebuild.hold-below" -> own.getRebuild().getHoldBelow() != null;
            default -> true;
        };
        return origin(prefix, set) + "." + property;
    }

    private static String origin(String prefix, boolean setOnFilter) {
        return setOnFilter ? prefix : "bloom-guard.defaults";
    }

    private static <T> T orDefault(@Nullable T value, T fallback) {
        return (value != null) ? value : fallback;
    }
}
