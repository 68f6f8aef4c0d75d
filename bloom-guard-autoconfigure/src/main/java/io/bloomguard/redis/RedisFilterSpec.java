package io.bloomguard.redis;

import io.bloomguard.core.AddFailurePolicy;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.NearCopyMode;
import io.bloomguard.redis.kind.RedisKind;

import java.security.SecureRandom;

/**
 * What a Redis filter is created as: its kind ({@link RedisKinds}), size, seed, shards, what its puts do when Redis
 * does not answer, and whether this instance keeps a near copy of its bits.
 *
 * <p>Usage: {@code backend.create("users", RedisFilterSpec.builder(RedisKinds.COUNTING, sizing).shards(4).build())}
 *
 * @param kind         how its positions are kept: bits, counters, or bits in layers
 * @param sizing       its size; for {@link RedisKinds#LAYERED}, layer 0's ({@code ScalableSizing.of(n, ε).layer(0)})
 * @param seed         hash seed for when this instance is the one that creates it in Redis (random by default: the
 *                     seed would let anyone who knows it pick keys that collide)
 * @param shards       Redis strings it is split over, at least (more when one string would not hold it)
 * @param onAddFailure what puts do when Redis does not answer
 * @param nearCopy     whether this instance keeps a copy of the bits, and how it follows Redis
 *
 * @since 0.1.0
 */
public record RedisFilterSpec(RedisKind kind, FilterSizing sizing, int seed, int shards,
        AddFailurePolicy onAddFailure, NearCopyMode nearCopy) {

    private static final SecureRandom SEEDS = new SecureRandom();

    /**
     * @throws IllegalArgumentException for a shard count the kind cannot be stored in, or a near copy of a kind no
     * copy reads, saying why
     */
    public RedisFilterSpec {
        if (shards < 1) {
            throw new IllegalArgumentException("shards must be at least 1, was " + shards);
        }
        kind.identity(sizing, seed, shards); // refuses what the kind cannot store (layers on several shards)
        if (nearCopy.keepsCopy() && !kind.nearCopies()) {
            throw new IllegalArgumentException(kind + " keeps its bits in the server's own layout: no near copy reads"
                    + " them (near copy off)");
        }
    }

    /** A spec of this kind and size: random seed, one shard, adds buffered while Redis is down, no near copy. */
    public static Builder builder(RedisKind kind, FilterSizing sizing) {
        return new Builder(kind, sizing);
    }

    /** Builds a {@link RedisFilterSpec}; each setter returns the builder. */
    public static final class Builder {

        private final RedisKind kind;
        private final FilterSizing sizing;
        private int seed = SEEDS.nextInt();
        private int shards = 1;
        private AddFailurePolicy onAddFailure = AddFailurePolicy.BUFFER;
        private NearCopyMode nearCopy = NearCopyMode.OFF;

        private Builder(RedisKind kind, FilterSizing sizing) {
            this.kind = kind;
            this.sizing = sizing;
        }

        /** A chosen seed: for tests and migrations. */
        public Builder seed(int seed) {
            this.seed = seed;
            return this;
        }

        public Builder shards(int shards) {
            this.shards = shards;
            return this;
        }

        public Builder onAddFailure(AddFailurePolicy onAddFailure) {
            this.onAddFailure = onAddFailure;
            return this;
        }

        public Builder nearCopy(NearCopyMode nearCopy) {
            this.nearCopy = nearCopy;
            return this;
        }

        public RedisFilterSpec build() {
            return new RedisFilterSpec(kind, sizing, seed, shards, onAddFailure, nearCopy);
        }
    }
}
