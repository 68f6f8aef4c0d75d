package io.bloomguard.redis.kind;

import io.bloomguard.core.FilterSizing;
import org.jspecify.annotations.Nullable;

import java.util.List;

/**
 * The live generation as one read of the metadata found it, opened by its kind ({@link RedisKind#open}): what a
 * check of it sends and how the reply answers, and which keys must exist for it to be whole. Immutable; a refresh
 * opens a new one, so a check works with the generation its view named however the filter changes meanwhile.
 *
 * <p>Usage: {@code Generation live = view.generation; if (live.readable()) answer = send(live.check(key, events));}
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public interface Generation {

    RedisFilterIdentity identity();

    /** {@code generation@loaded-at} of the metadata: tells apart two builds of one identity. */
    String build();

    /** The metadata's count of layers: 1 unless the generation grows by layers. */
    int layerCount();

    /** Whether a check can read it: not a generation with layers this instance cannot size yet. */
    boolean readable();

    /** The Redis keys that must all exist for it to be whole: every shard's bitmap, every layer's. */
    List<String> dataKeys();

    /** The keys of {@link #dataKeys} in shard {@code shard}'s hash slot. */
    List<String> dataKeysIn(int shard);

    /** A key's check ({@link #readable} only): one command, decided in the JVM. */
    KeyCheck<?> check(Object key, KeyCheck.Events events);

    /**
     * Checks the keys not {@code held} already, all sent before any reply is awaited ({@link #readable} only).
     *
     * @return each key's answer; {@code true} for the keys {@code held}
     */
    boolean[] checkAll(List<?> keys, boolean[] held, RedisCalls calls, KeyCheck.Events events);

    /**
     * Its size where the generation says more than its identity and sizing do: of all the layers together of a
     * generation that grows by layers, once sized; {@code null} otherwise.
     */
    default @Nullable GrownSize grownSize() {
        return null;
    }

    /**
     * Reads how full it is: one command per shard or layer.
     *
     * @param sizing its size with the configured expected size and error rate
     */
    Fill readFill(RedisCaller via, FilterSizing sizing);

    /**
     * The size a rebuild of it keeps, from {@code sizing}, its own: a generation that grows by layers is rebuilt into
     * one layer 0 that holds the keys of them all (no key source read twice, and checks read one block again).
     */
    default FilterSizing rebuildSizing(FilterSizing sizing) {
        return sizing;
    }

    /**
     * Whether the metadata's count of layers is part of which build it is: a layer added makes the build a copy
     * holds out of date, and its layers are all in shard 0.
     */
    default boolean hasLayers() {
        return false;
    }

    /** An empty near copy of it ({@link #readable} only), of size {@code sizing}, its own. */
    CopiedBits newCopy(FilterSizing sizing);

    /**
     * The call that takes a key's counts back ({@code REMOVE}: KEYS meta, bitmap, channel, removal id; ARGV
     * fingerprint, epoch, offsets), or {@code null} when this generation keeps no counts and a remove changes nothing.
     * The reply: 1 taken back, 0 a counter was zero (certainly absent), -1 the bitmap is gone, -2 another generation
     * is live.
     *
     * @param epoch the build epoch the row's delete began at ('' for none): nothing changes once Redis holds another
     * @param id    one per remove, sent again with each attempt, so a remove retried is applied once
     */
    default @Nullable ScriptCall removal(Object key, String epoch, String id) {
        return null;
    }

    /** Whether {@code other} is this build of this identity, with as many layers. */
    default boolean sameBuild(Generation other) {
        return this == other || (identity().equals(other.identity()) && build().equals(other.build())
                && layerCount() == other.layerCount());
    }

    /**
     * All layers of a generation that grows by layers.
     *
     * @param bitSize   bits of every layer together
     * @param hashCount bits a put sets, in the newest layer
     * @param capacity  keys the layers hold together at the error rate
     */
    record GrownSize(long bitSize, int hashCount, long capacity) {
    }

    /**
     * What a read of the fill found.
     *
     * @param keys                     keys estimated from the positions in use
     * @param falsePositiveProbability the chance that an absent key passes
     * @param layerSetBits             bits set in all layers of a generation that grows by layers, -1 for another
     */
    record Fill(long keys, double falsePositiveProbability, long layerSetBits) {
    }
}
