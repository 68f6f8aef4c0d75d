package io.bloomguard.redis;

import io.bloomguard.core.FillEstimate;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.SharedBloomFilter;
import io.bloomguard.redis.engine.RedisFillEstimate;
import io.bloomguard.redis.engine.RedisFilterParts;
import io.bloomguard.redis.kind.layered.Layers;

import java.util.OptionalLong;

/**
 * What a {@link RedisBloomFilter} reports of its stored bits: their layout (sizing, bits, bytes, hashes, layers, seed,
 * shards, counters or not), its capacity, and how full it is, as its maintenance last read them: none of it waits on
 * Redis. The filter itself adds its lifecycle, checks, writes and rebuilds.
 */
abstract sealed class RedisSizedFilter implements SharedBloomFilter permits RedisBloomFilter {

    /** The filter's parts, of which the size, the fill and the configured identity answer here. */
    abstract RedisFilterParts parts();

    /** Whether each position is a 4-bit counter ({@code type: counting}), so that keys can be removed. */
    public boolean counting() {
        return parts().configured.counting();
    }

    @Override
    public long approximateElementCount() {
        return parts().fill.read().approximateElementCount();
    }

    @Override
    public double expectedFpp() {
        return parts().fill.read().expectedFpp();
    }

    @Override
    public FillEstimate lastEstimate() {
        return parts().fill.current(parts().access.answering());
    }

    /** Bits of the live generation, of all its layers when it grows by layers. */
    @Override
    public long bitSize() {
        return parts().size.bitSize();
    }

    @Override
    public long byteSize() {
        return parts().size.byteSize();
    }

    /** Bits a put sets: in the newest layer when it grows by layers. */
    @Override
    public int hashCount() {
        return parts().size.hashCount();
    }

    /** Keys it holds at its error rate: of all its layers together when it grows by layers. */
    @Override
    public long capacity() {
        return parts().size.capacity();
    }

    /** See {@link RedisFillEstimate#layerSetBits()}. */
    @Override
    public OptionalLong countedSetBits() {
        return parts().fill.layerSetBits();
    }

    /** Whether it grows by layers ({@code growth: scale}); see {@link Layers}. */
    public boolean layered() {
        return parts().configured.layered();
    }

    /** Layers of the live generation as last read: 1 unless it grows by layers, 0 before it has one. */
    @Override
    public int layerCount() {
        return parts().size.layerCount();
    }

    /** The live generation's size (the configured one, or the one it grew to) once known; until then the configured. */
    @Override
    public FilterSizing sizing() {
        return parts().size.sizing();
    }

    /** Seed of the stored filter once known; until then the seed this instance would create it with. */
    @Override
    public int seed() {
        return parts().size.seed();
    }

    /** Shards the configured filter is split over. */
    public int shards() {
        return parts().configured.shards();
    }
}
