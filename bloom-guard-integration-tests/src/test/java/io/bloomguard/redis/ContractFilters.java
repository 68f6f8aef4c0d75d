package io.bloomguard.redis;

import io.bloomguard.core.KeyFeed;
import io.bloomguard.core.SharedBloomFilter.StartOutcome;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the Redis contract suites do with each filter they are asked for: a name no other test of the run uses, and
 * an empty load in this instance, as the contract begins with an empty filter.
 */
final class ContractFilters {

    private static final AtomicInteger names = new AtomicInteger();

    private ContractFilters() {
    }

    /** A filter name of this kind, e.g. {@code counting-contract-7}. */
    static String name(String kind) {
        return kind + "-contract-" + names.incrementAndGet();
    }

    /** Starts a fresh filter empty, loaded by this instance. */
    static RedisBloomFilter loadedHere(RedisBloomFilter filter) {
        StartOutcome outcome = filter.start(KeyFeed.EMPTY);
        if (outcome != StartOutcome.LOADED_HERE) {
            throw new IllegalStateException("a fresh filter should be loaded here, was " + outcome);
        }
        return filter;
    }
}
