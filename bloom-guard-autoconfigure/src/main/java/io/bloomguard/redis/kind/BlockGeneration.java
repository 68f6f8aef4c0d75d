package io.bloomguard.redis.kind;

import io.bloomguard.core.FilterSizing;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * A generation of a kind without layers: its blocks split over shards, a bitmap each. A key is checked with one
 * {@code GETRANGE} of its block, a batch with one {@link UnlayeredKind#checkAll} script per shard.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public final class BlockGeneration implements Generation {

    private final UnlayeredKind kind;
    private final RedisFilterIdentity identity;
    private final String build;
    /** Each shard's bitmap: named once per refresh rather than per check. */
    private final String[] bitmaps;
    private final List<String> dataKeys;
    private final RedisFilterKeys keys;

    BlockGeneration(UnlayeredKind kind, RedisFilterIdentity identity, RedisFilterKeys keys, String build) {
        this.kind = kind;
        this.identity = identity;
        this.build = build;
        this.bitmaps = new String[identity.shards()];
        for (int shard = 0; shard < bitmaps.length; shard++) {
            bitmaps[shard] = keys.bits(shard, identity);
        }
        this.dataKeys = List.of(bitmaps);
        this.keys = keys;
    }

    public UnlayeredKind kind() {
        return kind;
    }

    public String bitmap(int shard) {
        return bitmaps[shard];
    }

    public RedisFilterKeys keys() {
        return keys;
    }

    @Override
    public RedisFilterIdentity identity() {
        return identity;
    }

    @Override
    public String build() {
        return build;
    }

    @Override
    public int layerCount() {
        return 1;
    }

    @Override
    public boolean readable() {
        return true;
    }

    @Override
    public List<String> dataKeys() {
        return dataKeys;
    }

    @Override
    public List<String> dataKeysIn(int shard) {
        return (shard < bitmaps.length) ? List.of(bitmaps[shard]) : List.of();
    }

    /** Positions in use in every shard: bits set, or counters above zero. */
    @Override
    public Fill readFill(RedisCaller via, FilterSizing sizing) {
        long inUse = 0;
        for (int shard = 0; shard < bitmaps.length; shard++) {
            inUse += kind.positionsInUse(via, bitmaps[shard], identity.blocksIn(shard) * identity.bytesPerBlock());
        }
        return new Fill(sizing.estimateKeyCount(inUse), sizing.falsePositiveProbabilityAt(inUse), -1);
    }

    @Override
    public @Nullable ScriptCall removal(Object key, String epoch, String id) {
        return kind.removal(this, key, epoch, id);
    }

    @Override
    public CopiedBits newCopy(FilterSizing sizing) {
        return kind.newCopy(identity, sizing);
    }

    @Override
    public KeyCheck<?> check(Object key, KeyCheck.Events events) {
        return BlockCheck.of(this, key, events);
    }

    /** One script per shard: ARGV {@code k} and each key's offsets; the reply a character a key, or {@code "-"}. */
    @Override
    public boolean[] checkAll(List<?> keys, boolean[] held, RedisCalls calls, KeyCheck.Events events) {
        boolean[] answers = new boolean[keys.size()];
        Map<Integer, List<Integer>> indexesByShard = new LinkedHashMap<>();
        Map<Integer, List<String>> argsByShard = new LinkedHashMap<>();
        for (int i = 0; i < answers.length; i++) {
            if (held[i]) {
                answers[i] = true;
                continue;
            }
            RedisFilterIdentity.KeyBits located = identity.locate(keys.get(i));
            indexesByShard.computeIfAbsent(located.shard(), s -> new ArrayList<>()).add(i);
            List<String> args = argsByShard.computeIfAbsent(located.shard(),
                    s -> new ArrayList<>(List.of(Integer.toString(identity.hashCount()))));
            for (long offset : located.offsets()) {
                args.add(Long.toString(offset));
            }
        }
        Map<Integer, CompletableFuture<Object>> replies = new LinkedHashMap<>();
        for (Map.Entry<Integer, List<String>> entry : argsByShard.entrySet()) {
            String bitmap = bitmaps[entry.getKey()];
            replies.put(entry.getKey(), calls.send(port -> port.eval(kind.checkAll(), List.of(bitmap),
                    entry.getValue())));
        }
        for (Map.Entry<Integer, CompletableFuture<Object>> reply : replies.entrySet()) {
            byte[] bits = (byte[]) calls.await(reply.getValue());
            List<Integer> indexes = indexesByShard.get(reply.getKey());
            // '-' is the script's "no bitmap"; a shard holding one key of the batch answers one character too.
            boolean missing = bits.length > 0 && bits[0] == '-';
            if (missing) {
                events.bitmapMissing(this);
            }
            for (int j = 0; j < indexes.size(); j++) {
                answers[indexes.get(j)] = missing || bits[j] == '1';
                if (!missing && bits[j] == '1') {
                    events.keyHeld(this, keys.get(indexes.get(j)));
                }
            }
        }
        return answers;
    }
}
