package io.bloomguard.redis;

import io.bloomguard.core.BloomFilter;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.redis.kind.RedisKind;
import io.bloomguard.testsupport.BloomFilterContractTest;
import io.bloomguard.testsupport.redis.RedisServerExtension;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import io.bloomguard.testsupport.redis.WithRedisBloom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The backend contract on a native kind, a filter of the server's own ({@code redis.kind: native}), on one
 * {@code redis-server} per class with the RedisBloom module (skipped without one: set {@code REDISBLOOM_MODULE}). A
 * subclass says which kind. Adapted where every native kind differs from a bitmap: the server hashes (no seed), and its
 * count of keys is the server's, which depends on the order keys were put in.
 */
@ExtendWith(RedisServerExtension.class)
abstract class RedisNativeContractTest extends BloomFilterContractTest {

    private static TestRedisBackend redis;

    @BeforeAll
    static void connect(@WithRedisBloom RedisServerProcess server) {
        redis = TestRedisBackend.on(server, TestRedisBackend.CONTRACT);
    }

    @AfterAll
    static void disconnect() {
        if (redis != null) {
            redis.close();
        }
    }

    /** The native kind under test. */
    abstract RedisKind kind();

    /** What its filters' names begin with ({@link ContractFilters#name}). */
    abstract String namePrefix();

    /**
     * A quarter of the keys: the single-server bitmap proves the engine at half size; this proves the kind's own
     * scripts, as the other variants of the engine do at a quarter.
     */
    @Override
    protected int scaleDown() {
        return 4;
    }

    /** The server hashes the keys' text: the filter has no seed. */
    @Override
    protected boolean hashesWithItsSeed() {
        return false;
    }

    /**
     * The server counts what it was given, not the keys: {@code BF.CARD} the puts it found new, {@code CF.INFO} the
     * copies it holds (a put that meets a matching fingerprint adds a copy, or none at two).
     */
    @Override
    protected boolean countDependsOnOrder() {
        return true;
    }

    @Override
    protected BloomFilter createFilter(FilterSizing sizing, int seed) {
        return ContractFilters.loadedHere(redis.backend.create(ContractFilters.name(namePrefix()),
                RedisFilterSpec.builder(kind(), sizing).seed(seed).build()));
    }
}
