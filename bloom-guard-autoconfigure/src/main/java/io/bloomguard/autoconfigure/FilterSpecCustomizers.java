package io.bloomguard.autoconfigure;

import io.bloomguard.registry.FilterSpec;
import io.bloomguard.registry.FilterSpecBuilder;
import io.bloomguard.registry.FilterSpecCustomizer;
import io.bloomguard.registry.InvalidFilterSpecException;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Applies the application's {@link FilterSpecCustomizer} beans to the specs the properties gave, in bean order, and
 * checks what they set as the properties are checked: a refused value names the property and the customizer that set
 * it.
 */
final class FilterSpecCustomizers {

    private FilterSpecCustomizers() {
    }

    /** The specs, each adjusted by the customizers of its name; {@code specs} themselves when there are none. */
    static List<FilterSpec> apply(List<FilterSpec> specs, List<FilterSpecCustomizer> customizers, boolean enabled) {
        if (customizers.isEmpty()) {
            return specs;
        }
        Map<String, FilterSpec> byName = new LinkedHashMap<>();
        specs.forEach(spec -> byName.put(spec.name(), spec));
        for (FilterSpecCustomizer customizer : customizers) {
            FilterSpec spec = byName.get(customizer.filterName());
            if (spec == null) {
                throw new InvalidBloomGuardPropertyException("bloom-guard.filters", customizer.filterName(),
                        customizer + " adjusts filter '" + customizer.filterName() + "', which is not configured;"
                                + " declare it under bloom-guard.filters." + customizer.filterName()
                                + ", or name one of " + byName.keySet());
            }
            byName.put(spec.name(), customized(spec, customizer, enabled));
        }
        List<FilterSpec> customized = new ArrayList<>(byName.values());
        if (enabled) {
            FilterSpecLimits.checkTogether(customized);
        }
        return List.copyOf(customized);
    }

    private static FilterSpec customized(FilterSpec spec, FilterSpecCustomizer customizer, boolean enabled) {
        String prefix = "bloom-guard.filters." + spec.name();
        String setBy = " (set by " + customizer + ")";
        FilterSpecBuilder builder = spec.toBuilder();
        customizer.customize(builder);
        try {
            FilterSpec changed = builder.build();
            FilterSpec.Lifecycle lifecycle = changed.lifecycle();
            FilterSpecLimits.checkSchedule(prefix + ".rebuild.cron", lifecycle.rebuildCron(),
                    prefix + ".rebuild.zone", lifecycle.rebuildZone());
            FilterSpecLimits.check(changed, enabled);
            return changed;
        }
        catch (InvalidFilterSpecException ex) {
            throw new InvalidBloomGuardPropertyException(prefix + "." + ex.property(), ex.value(),
                    ex.allowed() + setBy);
        }
        catch (InvalidBloomGuardPropertyException ex) {
            throw new InvalidBloomGuardPropertyException(ex.property(), ex.value(), ex.allowed() + setBy);
        }
    }
}
