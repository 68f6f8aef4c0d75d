package io.bloomguard.redis.kind;

import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.List;

/**
 * The keys one {@link RedisScripts#ADD} call writes into one shard: their bit offsets in the live generation and,
 * during a rebuild, in the next one, so that an add made while a generation is built reaches both. For a filter that
 * grows by layers, the offsets its own script takes.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public final class ShardWrite {

    private final int shard;
    private final RedisFilterKeys names;
    private final List<Object> liveKeys = new ArrayList<>();
    private final List<Object> nextKeys = new ArrayList<>();
    private final List<String> liveOffsets = new ArrayList<>();
    private final List<String> nextOffsets = new ArrayList<>();

    public ShardWrite(int shard, RedisFilterKeys names) {
        this.shard = shard;
        this.names = names;
    }

    public int shard() {
        return shard;
    }

    public void addLive(Object key, long[] offsets) {
        liveKeys.add(key);
        for (long offset : offsets) {
            liveOffsets.add(Long.toString(offset));
        }
    }

    public void addNext(Object key, long[] offsets) {
        nextKeys.add(key);
        for (long offset : offsets) {
            nextOffsets.add(Long.toString(offset));
        }
    }

    /**
     * Every key of this write, to retry, or to keep for replay: a key put twice in the batch twice (a counting filter
     * counts both puts), but a key in both generations once.
     */
    public List<Object> allKeys() {
        List<Object> all = new ArrayList<>(liveKeys);
        List<Object> onlyInNext = new ArrayList<>(nextKeys);
        liveKeys.forEach(onlyInNext::remove);
        all.addAll(onlyInNext);
        return all;
    }

    /** KEYS of the add scripts without layers, for the live generation and the next one ({@code null}: none). */
    public List<String> keys(@Nullable RedisFilterIdentity live, @Nullable RedisFilterIdentity next) {
        String liveKey = (live != null && shard < live.shards()) ? names.bits(shard, live) : names.meta(shard) + ":none";
        boolean inNext = next != null && shard < next.shards();
        String nextKey = inNext ? names.next(shard, next) : names.meta(shard) + ":none";
        // Where the next generation's bits are once this shard has been swapped: see RedisScripts.PLACE.
        String nextLiveKey = inNext ? names.bits(shard, next) : names.meta(shard) + ":none";
        return List.of(names.meta(shard), liveKey, nextKey, nextLiveKey, names.adds(shard));
    }

    /** The live generation's offsets of every key placed, in order. */
    public List<String> liveOffsets() {
        return liveOffsets;
    }

    /** The next generation's offsets of every key placed, in order. */
    public List<String> nextOffsets() {
        return nextOffsets;
    }

    public int liveKeyCount() {
        return liveKeys.size();
    }

    public int nextKeyCount() {
        return nextKeys.size();
    }

    /** ARGV of the add scripts without layers: the view the shard's metadata must match ({@link RedisScripts#ADD}). */
    public List<String> args(@Nullable RedisFilterIdentity live, @Nullable RedisFilterIdentity next) {
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
