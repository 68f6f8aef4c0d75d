package io.bloomguard.redis.layout;

import io.bloomguard.redis.state.RedisFilterIdentity;
import io.bloomguard.redis.state.RedisFilterKeys;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.List;

/**
 * The keys one {@link RedisScripts#ADD} call writes into one shard: their bit offsets in the live generation and,
 * during a rebuild, in the next one, so that an add made while a generation is built reaches both. For a filter that
 * grows by layers, the arguments of {@link RedisLayerScripts#ADD} instead.
 */
final class ShardWrite {

    private final int shard;
    private final RedisFilterKeys names;
    private final List<Object> liveKeys = new ArrayList<>();
    private final List<Object> nextKeys = new ArrayList<>();
    private final List<String> liveOffsets = new ArrayList<>();
    private final List<String> nextOffsets = new ArrayList<>();

    ShardWrite(int shard, RedisFilterKeys names) {
        this.shard = shard;
        this.names = names;
    }

    int shard() {
        return shard;
    }

    void addLive(Object key, long[] offsets) {
        liveKeys.add(key);
        for (long offset : offsets) {
            liveOffsets.add(Long.toString(offset));
        }
    }

    void addNext(Object key, long[] offsets) {
        nextKeys.add(key);
        for (long offset : offsets) {
            nextOffsets.add(Long.toString(offset));
        }
    }

    /**
     * Every key of this write, to retry, or to keep for replay: a key put twice in the batch twice (a counting filter
     * counts both puts), but a key in both generations once.
     */
    List<Object> allKeys() {
        List<Object> all = new ArrayList<>(liveKeys);
        List<Object> onlyInNext = new ArrayList<>(nextKeys);
        liveKeys.forEach(onlyInNext::remove);
        all.addAll(onlyInNext);
        return all;
    }

    /** KEYS of the add scripts without layers, for the live generation and the next one ({@code null}: none). */
    List<String> keys(@Nullable RedisFilterIdentity live, @Nullable RedisFilterIdentity next) {
        String liveKey = (live != null && shard < live.shards()) ? names.bits(shard, live) : names.meta(shard) + ":none";
        boolean inNext = next != null && shard < next.shards();
        String nextKey = inNext ? names.next(shard, next) : names.meta(shard) + ":none";
        // Where the next generation's bits are once this shard has been swapped: see RedisScripts.PLACE.
        String nextLiveKey = inNext ? names.bits(shard, next) : names.meta(shard) + ":none";
        return List.of(names.meta(shard), liveKey, nextKey, nextLiveKey, names.adds(shard));
    }

    /**
     * KEYS of {@link RedisLayerScripts#ADD}, for a filter that grows by layers (one shard):
     * this write must be shard 0's, where its layers and the next generation's shard 0 are.
     */
    List<String> layeredKeys(RedisLayers layers, @Nullable RedisFilterIdentity next) {
        List<String> keyNames = new ArrayList<>(layers.checkKeys());
        keyNames.add((next != null) ? names.next(0, next) : names.meta(0) + ":none");
        keyNames.add(layers.growKey(names));
        keyNames.add(names.adds(0));
        return keyNames;
    }

    /**
     * ARGV of {@link RedisLayerScripts#ADD}: the view the metadata must match, and each key's offsets in every layer
     * ({@link #addLive} was handed {@link RedisLayers#offsetsOf}).
     */
    List<String> layeredArgs(RedisFilterIdentity live, RedisLayers layers, @Nullable RedisFilterIdentity next) {
        List<String> args = new ArrayList<>(8 + layers.count() + liveOffsets.size() + nextOffsets.size());
        args.add(live.fingerprint());
        args.add((next != null) ? next.fingerprint() : "");
        args.add(Integer.toString(layers.count()));
        args.add(Long.toString(layers.fullAtSetBits()));
        args.add(Long.toString(layers.growLastBit()));
        args.add(Integer.toString(liveKeys.size()));
        args.add(Integer.toString(next != null ? next.hashCount() : 0));
        args.add(Integer.toString(nextKeys.size()));
        for (int layer = 0; layer < layers.count(); layer++) {
            args.add(Integer.toString(layers.sizing(layer).hashCount()));
        }
        args.addAll(liveOffsets);
        args.addAll(nextOffsets);
        return args;
    }

    /** ARGV of the add scripts without layers: the view the shard's metadata must match ({@link RedisScripts#ADD}). */
    List<String> args(@Nullable RedisFilterIdentity live, @Nullable RedisFilterIdentity next) {
        List<String> args = new ArrayList<>(6 + liveOffsets.size() + nextOffsets.size());
        args.add((live != null && shard < live.shards()) ? live.fingerprint() : "");
        args.add((next != null && shard < next.shards()) ? next.fingerprint() : "");
        args.add(Integer.toString(live != null ? live.hashCount() : 0));
        args.add(Integer.toString(liveKeys.size()));
        args.add(Integer.toString(next != null ? next.hashCount() : 0));
        args.add(Integer.toString(nextKeys.size()));
        args.addAll(liveOffsets);
        args.addAll(nextOffsets);
        return args;
    }
}
