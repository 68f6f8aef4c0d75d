package io.bloomguard.redis.kind.layered;

import io.bloomguard.local.LocalBloomFilter;
import io.bloomguard.redis.kind.BitmapCodec;
import io.bloomguard.redis.kind.CopiedBits;

import java.util.List;

/**
 * The layers of a filter that grows by layers, part {@code i} layer {@code i}: a key is held when a layer holds it;
 * this instance's adds go to the newest, as Redis's do (unless an older one holds the key already).
 */
record LayeredCopiedBits(List<LocalBloomFilter> layers) implements CopiedBits {

    @Override
    public boolean mightContain(Object key) {
        for (LocalBloomFilter layer : layers) {
            if (layer.mightContain(key)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public boolean[] mightContainAll(List<?> keys) {
        boolean[] held = new boolean[keys.size()];
        for (int i = 0; i < held.length; i++) {
            held[i] = mightContain(keys.get(i));
        }
        return held;
    }

    @Override
    public long words(int part) {
        return layers.get(part).bitSize() / Long.SIZE;
    }

    @Override
    public void readWords(int part, int fromWord, byte[] bytes) {
        BitmapCodec.orBytes(layers.get(part), fromWord, bytes);
    }

    @Override
    public void learnBlock(long block, byte[] bytes) {
        // a check of a layered filter reads every layer's block in a script: nothing is merged from it
    }

    @Override
    public void learnKey(Object key) {
        layers.get(layers.size() - 1).put(key);
    }

    @Override
    public void added(int part, String[] positions, int from) {
        BitmapCodec.setBits(layers.get(part), 0, positions, from);
    }

    @Override
    public void removed(int part, String[] positions, int from) {
        // a filter that grows by layers has no removes
    }

    @Override
    public long bytes() {
        return layers.stream().mapToLong(layer -> layer.bitSize() / Byte.SIZE).sum();
    }
}
