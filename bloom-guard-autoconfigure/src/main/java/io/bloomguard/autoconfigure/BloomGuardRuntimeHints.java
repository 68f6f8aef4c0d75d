package io.bloomguard.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;

import java.util.List;

/**
 * What bloom-guard itself looks up reflectively in a native image: the classes whose presence tells it which
 * integrations the application has (Spring Data, Reactor, Spring's transactions, Lettuce). Nothing else is needed
 * here: Spring Boot registers binding hints for the bound properties as for any {@code @ConfigurationProperties}
 * bean, the Redis scripts are strings in the code rather than resources, the endpoint's bodies are
 * {@link BloomFiltersEndpointRuntimeHints}' and the application's annotated beans
 * {@link BloomAnnotatedBeanAotProcessor}'s.
 */
final class BloomGuardRuntimeHints implements RuntimeHintsRegistrar {

    /** Looked up by name (classes that may be missing), so a native image must be told of them. */
    static final List<String> OPTIONAL_CLASSES = List.of("org.springframework.data.domain.Page",
            "org.springframework.data.repository.Repository", "org.springframework.data.repository.CrudRepository",
            "reactor.core.publisher.Mono", "reactor.core.publisher.Flux", "reactor.core.scheduler.Schedulers",
            "org.reactivestreams.Publisher",
            "org.springframework.transaction.support.TransactionSynchronizationManager",
            "org.springframework.data.domain.Persistable", "io.lettuce.core.AbstractRedisClient",
            "kotlinx.coroutines.reactor.MonoKt", "kotlinx.coroutines.flow.Flow");

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        OPTIONAL_CLASSES.forEach(name -> hints.reflection().registerType(TypeReference.of(name)));
    }
}
