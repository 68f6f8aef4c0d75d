package io.bloomguard.redis.kind.layered;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.Hash128;
import io.bloomguard.core.KeyFeed;
import io.bloomguard.core.ScalableSizing;
import io.bloomguard.local.LocalBloomFilter;
import io.bloomguard.redis.kind.Adds;
import io.bloomguard.redis.kind.BitmapCodec;
import io.bloomguard.redis.kind.BlockAdds;
import io.bloomguard.redis.kind.BlockKind;
import io.bloomguard.redis.kind.Generation;
import io.bloomguard.redis.kind.LocalWords;
import io.bloomguard.redis.kind.RedisCaller;
import io.bloomguard.redis.kind.RedisFilterIdentity;
import io.bloomguard.redis.kind.RedisFilterKeys;
import io.bloomguard.redis.port.LuaScript;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.List;

/**
 * Bits in layers ({@code growth: scale}, see {@link Layers}), all on one shard: a key is checked with one
 * {@link LayerScripts#CHECK} that reads its block in every layer, added by {@link LayerScripts#ADD} into
 * the newest, and a build whose key source outgrew layer 0 is built again with a larger one.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public final class LayeredKind extends BlockKind {

    public static final LayeredKind INSTANCE = new LayeredKind();

    private LayeredKind() {
    }

    /** Layer 0's identity; its layers share one hash slot. */
    @Override
    public RedisFilterIdentity identity(FilterSizing sizing, int seed, int shards) {
        return RedisFilterIdentity.of(sizing, seed, shards, this);
    }

    /** Each layer twice the one before. */
    @Override
    public String suffix() {
        return ".x" + ScalableSizing.GROWTH_FACTOR;
    }

    @Override
    public String type() {
        return "bloom";
    }

    @Override
    public boolean layered() {
        return true;
    }

    /** Its layers share one hash slot. */
    @Override
    public void checkShards(int shards) {
        if (shards != 1) {
            throw new IllegalArgumentException("a filter that grows by layers is a plain filter on one shard");
        }
    }

    @Override
    public byte[] toRedisBytes(long[] words, int from, int count) {
        return BitmapCodec.toRedisBytes(words, from, count);
    }

    @Override
    public void fromRedisBytes(byte[] bytes, long[] words, int from) {
        BitmapCodec.fromRedisBytes(bytes, words, from);
    }

    /** Its layers as this instance sizes them: none it cannot size, so that it reads none of them. */
    @Override
    public Generation open(RedisFilterIdentity identity, @Nullable FilterSizing sizing, int layerCount,
            RedisFilterKeys keys, String build) {
        Layers layers = (sizing != null) ? Layers.of(identity, sizing, layerCount, keys) : null;
        return new LayeredGeneration(identity, build, layerCount, layers, keys);
    }

    /** Into the layers once this instance has sized them; into layer 0 alone, as a plain filter, before. */
    @Override
    public Adds adds(@Nullable RedisFilterIdentity live, @Nullable Generation generation,
            @Nullable RedisFilterIdentity next, RedisFilterKeys keys) {
        Layers layers = (generation instanceof LayeredGeneration layered) ? layered.layers() : null;
        if (live != null && layers != null) {
            return new LayeredAdds(live, layers, next, keys);
        }
        return new BlockAdds(live, next, keys);
    }

    @Override
    public LocalWords read(KeyFeed source, FilterSizing sizing, int seed) {
        LocalBloomFilter bits = LocalBloomFilter.create(sizing, seed);
        long keys = source.feed(bits::putAll);
        return new LocalWords(bits.sizing(), bits::copyWords, keys, outgrownBy(sizing, keys, bits.setBitCount()));
    }

    /**
     * For a layer 0 of {@code sizing} that a key source of {@code keys} keys set {@code setBits} bits of: a layer 0 for
     * twice the keys when they are more than this one holds and a larger one fits one Redis string; {@code null}
     * otherwise.
     */
    private static @Nullable FilterSizing outgrownBy(FilterSizing sizing, long keys, long setBits) {
        if (setBits <= ScalableSizing.fullAtSetBits(sizing)) {
            return null;
        }
        FilterSizing larger = Layers.oneLayerFor(Math.multiplyExact(keys, 2), sizing);
        return (larger.expectedSize() > sizing.expectedSize()) ? larger : null;
    }

    @Override
    public boolean mergesUploadBeforeSwap() {
        return false;
    }

    @Override
    public List<String> extraKeys(RedisFilterKeys keys, RedisFilterIdentity live, int layers) {
        List<String> extra = new ArrayList<>();
        for (int layer = 1; layer < layers + 2; layer++) {
            extra.add(keys.layer(live, layer));
        }
        return extra;
    }

    @Override
    public long positionsInUse(RedisCaller via, String bitmap, long bytes) {
        return via.call(port -> port.bitCount(bitmap));
    }

    @Override
    public int layerCount(@Nullable Generation live) {
        return (live instanceof LayeredGeneration layered && layered.readable()) ? layered.layerCount() : 0;
    }

    @Override
    public long maxLocalBlocks() {
        return LocalBloomFilter.MAX_BLOCKS;
    }
}
