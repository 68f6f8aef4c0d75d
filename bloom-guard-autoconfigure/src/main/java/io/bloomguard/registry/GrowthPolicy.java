package io.bloomguard.registry;

/**
 * What a filter does once it holds more keys than it was sized for, when its false-positive rate would climb.
 *
 * @since 0.1.0
 */
public enum GrowthPolicy {

    /** Nothing: it reports being over capacity (health, metrics, endpoint) and its false-positive rate climbs. */
    NONE,

    /**
     * Rebuilds itself from its key source, larger, once its keys reach 90% of its capacity: the configured error
     * rate holds again, and a check costs what it did. Without a key source it reports being over capacity.
     */
    REBUILD,

    /**
     * Adds a layer, larger and with a lower error rate, each time the newest is full (a scalable Bloom filter): the
     * error rate holds with no key source, and an absent key's check costs one more block read per layer.
     */
    SCALE
}
