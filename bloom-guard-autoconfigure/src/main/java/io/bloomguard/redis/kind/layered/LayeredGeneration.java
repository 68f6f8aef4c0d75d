package io.bloomguard.redis.kind.layered;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.ScalableSizing;
import io.bloomguard.local.LocalBloomFilter;
import io.bloomguard.redis.kind.CopiedBits;
import io.bloomguard.redis.kind.Generation;
import io.bloomguard.redis.kind.KeyCheck;
import io.bloomguard.redis.kind.RedisCaller;
import io.bloomguard.redis.kind.RedisCalls;
import io.bloomguard.redis.kind.RedisFilterIdentity;
import io.bloomguard.redis.kind.RedisFilterKeys;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

/**
 * A generation that grows by layers ({@link Layers}), all on shard 0: readable once this instance has sized
 * every layer the metadata counts; a key is checked by one script over every layer, and each key of a batch apart.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public final class LayeredGeneration implements Generation {

    private final RedisFilterIdentity identity;
    private final String build;
    private final int layerCount;
    private final @Nullable Layers layers;
    private final List<String> dataKeys;

    /** @param layers {@code null} when this instance cannot size them all (or the generation's size is unknown) */
    LayeredGeneration(RedisFilterIdentity identity, String build, int layerCount, @Nullable Layers layers,
            RedisFilterKeys keys) {
        this.identity = identity;
        this.build = build;
        this.layerCount = layerCount;
        this.layers = layers;
        List<String> data = new ArrayList<>();
        data.add(keys.bits(0, identity));
        for (int layer = 1; layers != null && layer < layers.count(); layer++) {
            data.add(layers.key(layer));
        }
        this.dataKeys = List.copyOf(data);
    }

    /** Its layers; {@code null} while not {@link #readable}. */
    public @Nullable Layers layers() {
        return layers;
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
        return layerCount;
    }

    /** Not before this instance has sized every layer: a key in a layer it cannot read is never rejected. */
    @Override
    public boolean readable() {
        return layers != null;
    }

    @Override
    public List<String> dataKeys() {
        return dataKeys;
    }

    /** All in shard 0: its layers share one hash slot. */
    @Override
    public List<String> dataKeysIn(int shard) {
        return (shard == 0) ? dataKeys : List.of();
    }

    @Override
    public @Nullable GrownSize grownSize() {
        Layers known = layers;
        return (known != null) ? new GrownSize(known.bitSize(), known.newestHashCount(), known.capacity()) : null;
    }

    @Override
    public FilterSizing rebuildSizing(FilterSizing sizing) {
        Layers known = layers;
        return (known != null && known.count() > 1) ? Layers.oneLayerFor(known.capacity(), sizing) : sizing;
    }

    /**
     * The keys of every layer together, and the chance that an absent key passes any of them; layer 0's alone
     * before this instance has sized the layers.
     */
    @Override
    public Fill readFill(RedisCaller via, FilterSizing sizing) {
        Layers known = layers;
        if (known == null) {
            long setBits = via.call(port -> port.bitCount(dataKeys.get(0)));
            return new Fill(sizing.estimateKeyCount(setBits), sizing.falsePositiveProbabilityAt(setBits), -1);
        }
        double keys = 0;
        long allSetBits = 0;
        double[] fpp = new double[known.count()];
        for (int layer = 0; layer < known.count(); layer++) {
            String bitmap = known.key(layer);
            long setBits = via.call(port -> port.bitCount(bitmap));
            allSetBits += setBits;
            double estimate = known.sizing(layer).estimateKeys(setBits);
            keys += estimate;
            fpp[layer] = Double.isInfinite(estimate) ? 1.0 : known.sizing(layer).falsePositiveProbability(estimate);
        }
        long count = Double.isInfinite(keys) ? Long.MAX_VALUE : Math.round(keys);
        return new Fill(count, ScalableSizing.compoundFalsePositiveProbability(fpp), allSetBits);
    }

    @Override
    public boolean hasLayers() {
        return true;
    }

    /** A copy of each layer, part {@code i} layer {@code i}. */
    @Override
    public CopiedBits newCopy(FilterSizing sizing) {
        Layers known = readableLayers();
        List<LocalBloomFilter> copies = new ArrayList<>(known.count());
        for (int layer = 0; layer < known.count(); layer++) {
            copies.add(LocalBloomFilter.create(known.sizing(layer), identity.seed()));
        }
        return new LayeredCopiedBits(copies);
    }

    @Override
    public KeyCheck<?> check(Object key, KeyCheck.Events events) {
        return new LayerCheck(this, readableLayers(), key, events);
    }

    /** One check script per key, all sent before any reply is awaited: one round trip. */
    @Override
    public boolean[] checkAll(List<?> keys, boolean[] held, RedisCalls calls, KeyCheck.Events events) {
        Layers known = readableLayers();
        List<@Nullable BooleanSupplier> answered = new ArrayList<>(keys.size());
        for (int i = 0; i < held.length; i++) {
            answered.add(held[i] ? null : sendInBatch(new LayerCheck(this, known, keys.get(i), events), calls));
        }
        boolean[] answers = new boolean[keys.size()];
        for (int i = 0; i < answers.length; i++) {
            answers[i] = held[i] || answered.get(i).getAsBoolean();
        }
        return answers;
    }

    private static <R> BooleanSupplier sendInBatch(KeyCheck<R> check, RedisCalls calls) {
        CompletableFuture<R> reply = calls.send(check::send);
        return () -> check.answer(calls.await(reply));
    }

    private Layers readableLayers() {
        Layers known = layers;
        if (known == null) {
            throw new IllegalStateException("layers of " + identity.fingerprintWithoutSeed() + " not sized: not readable");
        }
        return known;
    }
}
