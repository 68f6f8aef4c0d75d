package io.bloomguard.registry;

import java.util.Collection;
import java.util.Optional;

/**
 * The application's configured filters, by name. Metrics, the actuator endpoint and the preload read it;
 * the guard resolves each annotated method's filter through it once, at startup.
 *
 * <p>Usage: {@code registry.get("users").put(user.getId());}
 *
 * @since 0.1.0
 */
public interface BloomFilterRegistry {

    Optional<NamedBloomFilter> find(String name);

    /**
     * The filter with this name.
     *
     * @throws UnknownFilterException naming the filters that do exist
     */
    NamedBloomFilter get(String name);

    /** Every filter, in configuration order. */
    Collection<NamedBloomFilter> all();
}
