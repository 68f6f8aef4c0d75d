package io.bloomguard.redis.kind.layered;

import io.bloomguard.core.BlockedBloomLayout;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.Hash128;
import io.bloomguard.core.ScalableSizing;
import io.bloomguard.redis.kind.BitmapCodec;
import io.bloomguard.redis.kind.BlockKind;
import io.bloomguard.redis.kind.RedisFilterIdentity;
import io.bloomguard.redis.kind.RedisFilterKeys;
import org.jspecify.annotations.Nullable;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The layers of a redis filter that grows by layers ({@code growth: scale}), as one view read them: layer 0 is the
 * live generation's bitmap, layer {@code i} a key of its own beside it (same hash slot), sized by
 * {@link ScalableSizing} from layer 0's size, with the same seed. The metadata's {@code layers} field says how many
 * there are, and {@code layer-bits} how many bits puts have set in the newest; the put that fills the newest adds
 * the next ({@link LayerScripts#ADD}).
 *
 * <p>A check reads the count and every layer's block in one script ({@link LayerScripts#CHECK}), so an
 * instance whose view predates a new layer learns of it from the check itself, and answers "might contain" until
 * it has read the layer's size (at once, in the background): a key put into a layer this instance does not know of
 * is never rejected.
 *
 * <p>Usage: {@code Layers layers = generation.layers(); eval(CHECK, layers.checkKeys(), layers.checkArgs(hash))}.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public final class Layers {

    private static final int BLOCK_BYTES = BlockedBloomLayout.BLOCK_BITS / Byte.SIZE;

    private final FilterSizing[] sizings;
    private final RedisFilterIdentity[] identities;
    private final List<String> checkKeys;
    /** Where the next layer goes, and the offset of its last bit; {@code null} when it cannot be built. */
    private final @Nullable String growKey;
    private final long growLastBit;

    private Layers(FilterSizing[] sizings, RedisFilterIdentity[] identities, List<String> checkKeys,
            @Nullable String growKey, long growLastBit) {
        this.sizings = sizings;
        this.identities = identities;
        this.checkKeys = checkKeys;
        this.growKey = growKey;
        this.growLastBit = growLastBit;
    }

    /**
     * The layers of {@code live}, of size {@code liveSizing}, when the metadata counts {@code count}; {@code null}
     * when that many cannot be: the count was not written by this version.
     */
    public static @Nullable Layers of(RedisFilterIdentity live, FilterSizing liveSizing, int count,
            RedisFilterKeys names) {
        if (count < 1) {
            return null;
        }
        ScalableSizing scaling = ScalableSizing.withFirstLayer(liveSizing);
        FilterSizing[] sizings = new FilterSizing[count];
        RedisFilterIdentity[] identities = new RedisFilterIdentity[count];
        List<String> checkKeys = new ArrayList<>(count + 1);
        checkKeys.add(names.meta(0));
        for (int i = 0; i < count; i++) {
            sizings[i] = (i == 0) ? liveSizing : oneString(scaling, i);
            if (sizings[i] == null) {
                return null;
            }
            identities[i] = (i == 0) ? live : RedisFilterIdentity.of(sizings[i], live.seed(), 1, LayeredKind.INSTANCE);
            checkKeys.add((i == 0) ? names.bits(0, live) : names.layer(live, i));
        }
        FilterSizing grown = oneString(scaling, count);
        return new Layers(sizings, identities, List.copyOf(checkKeys),
                (grown != null) ? names.layer(live, count) : null,
                (grown != null) ? grown.blockCount() * BlockedBloomLayout.BLOCK_BITS - 1 : -1);
    }

    /**
     * One layer 0 for {@code capacity} keys at {@code layer0}'s error rate: what a rebuild makes of a filter's layers,
     * or of a key source that outgrew them. {@code layer0} itself when that would not fit one Redis string.
     */
    public static FilterSizing oneLayerFor(long capacity, FilterSizing layer0) {
        if (capacity <= layer0.expectedSize()) {
            return layer0;
        }
        try {
            FilterSizing merged = FilterSizing.of(capacity, layer0.errorRate());
            return (merged.blockCount() <= BlockKind.MAX_BIT_BLOCKS_PER_SHARD) ? merged : layer0;
        }
        catch (IllegalArgumentException ex) {
            return layer0;
        }
    }

    /** Layer {@code index}'s size, if it fits one Redis string; {@code null} if not, and growth stops before it. */
    private static @Nullable FilterSizing oneString(ScalableSizing scaling, int index) {
        try {
            FilterSizing sizing = scaling.layer(index);
            return (sizing.blockCount() <= BlockKind.MAX_BIT_BLOCKS_PER_SHARD) ? sizing : null;
        }
        catch (IllegalArgumentException ex) {
            return null;
        }
    }

    public int count() {
        return sizings.length;
    }

    public FilterSizing sizing(int layer) {
        return sizings[layer];
    }

    RedisFilterIdentity identity(int layer) {
        return identities[layer];
    }

    /** Keys a put must find in layer {@code layer} count as held. */
    public String key(int layer) {
        return checkKeys.get(layer + 1);
    }

    /** Whether the next layer can be built: it would fit one Redis string. */
    boolean canGrow() {
        return growKey != null;
    }

    /** Bits of all layers. */
    public long bitSize() {
        long bits = 0;
        for (FilterSizing sizing : sizings) {
            bits += sizing.bitSize();
        }
        return bits;
    }

    /** Bits a put sets: the newest layer's {@code k}. */
    public int newestHashCount() {
        return sizings[sizings.length - 1].hashCount();
    }

    /** Keys the layers hold together at the error rate. */
    public long capacity() {
        long capacity = 0;
        for (FilterSizing sizing : sizings) {
            capacity += sizing.expectedSize();
        }
        return capacity;
    }

    /** Bits the newest layer holds its keys with: when puts have set as many, the next layer is added. */
    public long fullAtSetBits() {
        return ScalableSizing.fullAtSetBits(sizings[sizings.length - 1]);
    }

    /** A key's bit offsets in each layer, oldest first: what {@link LayerScripts#ADD} takes per key. */
    public long[] offsetsOf(Object key) {
        long[][] perLayer = new long[identities.length][];
        int total = 0;
        for (int i = 0; i < identities.length; i++) {
            perLayer[i] = identities[i].locate(key).offsets();
            total += perLayer[i].length;
        }
        long[] all = new long[total];
        int at = 0;
        for (long[] offsets : perLayer) {
            System.arraycopy(offsets, 0, all, at, offsets.length);
            at += offsets.length;
        }
        return all;
    }

    /** KEYS of {@link LayerScripts#CHECK}: the metadata, then each layer's bitmap. */
    public List<String> checkKeys() {
        return checkKeys;
    }

    /** ARGV of {@link LayerScripts#CHECK}: the first and last byte of the key's block in each layer. */
    public List<String> checkArgs(Hash128 hash) {
        List<String> args = new ArrayList<>(2 * sizings.length);
        for (FilterSizing sizing : sizings) {
            long start = (long) BlockedBloomLayout.blockIndex(hash.h1(), (int) sizing.blockCount())
                    * BLOCK_BYTES;
            args.add(Long.toString(start));
            args.add(Long.toString(start + BLOCK_BYTES - 1));
        }
        return args;
    }

    /**
     * The answer to a {@link LayerScripts#CHECK} reply: whether any layer might hold the key. A layer this view
     * does not know of, or a layer's bitmap gone, might hold it.
     *
     * @param layerMissing told when a layer's bitmap is gone (flushed, evicted or deleted): the filter is not ready
     *                     until it has been rebuilt, rather than letting every key through while it says it is
     * @param layerAdded   told when Redis has more layers than this view: it is read again at once, since every
     *                     key "might be contained" until it is
     */
    public boolean answer(List<?> reply, Hash128 hash, Runnable layerMissing, Runnable layerAdded) {
        int stored = Integer.parseInt(new String((byte[]) reply.get(0), StandardCharsets.US_ASCII));
        if (stored > sizings.length) {
            layerAdded.run();
            return true; // a layer was added since this view was read: its keys are unknown here until a refresh
        }
        for (int layer = 0; layer < stored; layer++) {
            byte[] block = (byte[]) reply.get(layer + 1);
            if (block.length < BLOCK_BYTES) {
                layerMissing.run();
                return true;
            }
            if (BitmapCodec.blockHolds(block, hash, sizings[layer].hashCount())) {
                return true;
            }
        }
        return false;
    }

    /**
     * KEYS of {@link LayerScripts#ADD}'s growth: where the next layer goes (the metadata key with a suffix when
     * it cannot be built: the script then never touches it).
     */
    public String growKey(RedisFilterKeys names) {
        return (growKey != null) ? growKey : names.meta(0) + ":none";
    }

    /** The last bit of the next layer, which creates it at full size; -1 when it cannot be built. */
    public long growLastBit() {
        return growLastBit;
    }
}
