package io.bloomguard.redis.engine;

import io.bloomguard.core.AddFailurePolicy;
import io.bloomguard.core.NearCopyMode;
import io.bloomguard.redis.kind.RedisKind;

/**
 * How one filter is laid out and behaves, as {@link io.bloomguard.redis.RedisFilterBackend}'s factories chose: its seed
 * and shards, whether its positions are bits, counters or layers, what its puts do when Redis does not answer, and
 * whether it keeps a near copy.
 *
 * <p>Usage: {@code new FilterOptions(seed, shards, CountingKind.INSTANCE, AddFailurePolicy.BUFFER, NearCopyMode.OFF)}
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 *
 * @param seed           seed for when this instance creates the filter in Redis
 * @param shards         keys the filter is split over
 * @param kind           plain, counting ({@code type: counting}) or grown by layers ({@code growth: scale})
 * @param onAddFailure   what puts do when Redis does not answer
 * @param nearCopy       whether this instance keeps a copy of the bits, and how it follows Redis
 * @hidden
 */
public record FilterOptions(int seed, int shards, RedisKind kind, AddFailurePolicy onAddFailure,
        NearCopyMode nearCopy) {
}
