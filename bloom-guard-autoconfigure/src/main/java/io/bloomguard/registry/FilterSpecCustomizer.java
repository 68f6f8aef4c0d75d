package io.bloomguard.registry;

import java.util.Objects;
import java.util.function.Consumer;

/**
 * Adjusts one filter's spec in code, after its properties were applied: declare it as a bean. It is given a builder
 * holding the spec as configured; what it sets is checked as a property would be. Customizers of the same filter run
 * in their bean order.
 *
 * <p>Usage: {@code @Bean FilterSpecCustomizer users() { return FilterSpecCustomizer.of("users", spec ->
 * spec.expectedSize(userCount() * 2)); }}
 *
 * @since 0.1.0
 */
public interface FilterSpecCustomizer {

    /** The name of the filter it adjusts, as under {@code bloom-guard.filters}. */
    String filterName();

    /** Changes what it needs to on {@code spec}, which holds the filter's configured values. */
    void customize(FilterSpecBuilder spec);

    /** A customizer of the filter {@code filterName} that runs {@code customizer}. */
    static FilterSpecCustomizer of(String filterName, Consumer<FilterSpecBuilder> customizer) {
        Objects.requireNonNull(filterName, "filterName");
        Objects.requireNonNull(customizer, "customizer");
        return new FilterSpecCustomizer() {

            @Override
            public String filterName() {
                return filterName;
            }

            @Override
            public void customize(FilterSpecBuilder spec) {
                customizer.accept(spec);
            }

            @Override
            public String toString() {
                return "FilterSpecCustomizer[" + filterName + "]";
            }
        };
    }
}
