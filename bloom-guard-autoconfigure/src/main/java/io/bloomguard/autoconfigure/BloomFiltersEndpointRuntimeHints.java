package io.bloomguard.autoconfigure;

import io.bloomguard.actuate.BloomFiltersEndpoint;
import io.bloomguard.actuate.BloomFiltersEndpointWebExtension;
import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

import java.util.Arrays;
import java.util.stream.Stream;

/**
 * The {@code bloomfilters} endpoint's bodies, serialized to JSON by reflection: Spring Boot registers what an
 * operation's declared return type names, but the web extension returns {@code WebEndpointResponse<Object>} (a filter,
 * a 404's list of filters, a refused action's message) and a write operation a sealed interface, so the records
 * behind them are registered here.
 */
final class BloomFiltersEndpointRuntimeHints implements RuntimeHintsRegistrar {

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        Class<?>[] bodies = Stream.of(BloomFiltersEndpoint.class, BloomFiltersEndpointWebExtension.class)
                .flatMap(endpoint -> Arrays.stream(endpoint.getDeclaredClasses())).filter(Class::isRecord)
                .toArray(Class<?>[]::new);
        new BindingReflectionHintsRegistrar().registerReflectionHints(hints.reflection(), bodies);
    }
}
