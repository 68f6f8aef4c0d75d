package io.bloomguard.redis;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.redis.kind.RedisKind;

/**
 * The backend contract on the server's own cuckoo filter ({@code type: cuckoo}, {@code redis.kind: native},
 * {@code CF.*}). Adapted as every native kind is ({@link RedisNativeContractTest}), and where a cuckoo table differs
 * from bits: its count and its false-positive model (see the overrides).
 */
class RedisNativeCuckooFilterContractIT extends RedisNativeContractTest {

    @Override
    RedisKind kind() {
        return RedisKinds.NATIVE_CUCKOO;
    }

    @Override
    String namePrefix() {
        return "native-cf";
    }

    /** A key is held once a put, at most twice: a key put again and again stays until a rebuild. */
    @Override
    protected long expectedCount(long distinctKeys, long puts) {
        return Math.min(puts, 2 * distinctKeys);
    }

    /**
     * 8-bit fingerprints in buckets of two: a check matches one of the 4 slots of its two buckets with chance 1/256
     * each, at load α = keys / the capacity the kind reserves ({@code expected-size / min(0.8, 64 · 0.95 ε)}).
     */
    @Override
    protected double modelFalsePositiveRate(FilterSizing sizing, long keys) {
        double capacity = sizing.expectedSize() / Math.min(0.8, 64 * FilterSizing.DESIGN_MARGIN * sizing.errorRate());
        return Math.min(1, keys / capacity) * 4 / 256;
    }
}
