package io.bloomguard.local;

import io.bloomguard.core.BlockedBloomLayout;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.KeyCanonicalizer;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What the local backend does beyond the backend contract, which {@code LocalBloomFilterContractTest} runs. */
class LocalBloomFilterTest {

    private static final int SEED = 0x5eed5eed;

    /** The local backend sets exactly the bits the shared layout names: the Redis backend relies on it. */
    @Test
    void setsExactlyTheLayoutsBits() {
        FilterSizing sizing = FilterSizing.of(1_000, 0.01);
        LocalBloomFilter filter = LocalBloomFilter.create(sizing, SEED);
        filter.put("user:1");
        filter.put(42L);
        long[] expected = new long[(int) (sizing.bitSize() / 64)];
        for (Object key : new Object[] { "user:1", 42L }) {
            for (long bit : BlockedBloomLayout.bitIndexes(KeyCanonicalizer.hash(key, SEED), (int) sizing.blockCount(),
                    sizing.hashCount())) {
                expected[(int) (bit / 64)] |= 1L << (bit % 64);
            }
        }
        assertThat(filter.toWords()).isEqualTo(expected);
        assertThat(filter.setBitCount()).isEqualTo(Arrays.stream(expected).map(Long::bitCount).sum());
    }

    /**
     * A check answers yes exactly when every bit the layout names for the key is set: not only for keys that
     * were put, but for the absent keys that an overfull filter lets through or stops on any one of its bits.
     */
    @Test
    void checksExactlyTheLayoutsBits() {
        FilterSizing sizing = FilterSizing.of(2_000, 0.01);
        LocalBloomFilter filter = LocalBloomFilter.create(sizing, SEED);
        IntStream.range(0, 4_000).forEach(i -> filter.put("user:" + i)); // twice n: many absent keys pass
        long[] words = filter.toWords();
        int passed = 0;
        for (int i = 0; i < 200_000; i++) {
            Object key = i % 2 == 0 ? (Object) ("key:" + i) : (Object) (long) i;
            boolean allSet = true;
            for (long bit : BlockedBloomLayout.bitIndexes(KeyCanonicalizer.hash(key, SEED), (int) sizing.blockCount(),
                    sizing.hashCount())) {
                allSet &= (words[(int) (bit / 64)] & 1L << (bit % 64)) != 0;
            }
            assertThat(filter.mightContain(key)).as("check of %s", key).isEqualTo(allSet);
            passed += allSet ? 1 : 0;
        }
        assertThat(passed).as("absent keys passing an overfull filter").isBetween(1_000, 199_000);
    }

    /**
     * The batch check hashes a run of keys before reading their blocks; every answer must still be the key's own.
     * A filter holding four times its expected size lets most absent keys through (about 0.94^7 = 0.65 of them
     * at 2.5 bits per key), but far from all, so an answer moved to another key shows; batch sizes around the run
     * length catch a run cut short or one key too long.
     */
    @Test
    void batchCheckAnswersEachKeyAsASingleCheckDoes() {
        LocalBloomFilter filter = LocalBloomFilter.create(FilterSizing.of(1_000, 0.01), SEED);
        IntStream.range(0, 4_000).forEach(i -> filter.put("user:" + i));
        List<Object> keys = IntStream.range(0, 1_000)
                .mapToObj(i -> i % 3 == 0 ? (Object) ("user:" + i * 7) : i % 3 == 1 ? (Object) (long) i : "key:" + i)
                .toList();
        for (int size : new int[] {0, 1, 63, 64, 65, 128, 129, 1_000}) {
            List<Object> batch = keys.subList(0, size);
            boolean[] answers = filter.mightContainAll(batch);
            assertThat(answers).hasSize(size);
            for (int i = 0; i < size; i++) {
                assertThat(answers[i]).as("key %s in a batch of %d", batch.get(i), size)
                        .isEqualTo(filter.mightContain(batch.get(i)));
            }
        }
        boolean[] all = filter.mightContainAll(keys);
        int passed = 0;
        for (boolean answer : all) {
            passed += answer ? 1 : 0;
        }
        assertThat(passed).as("keys let through, of 1,000 (about 190 present, the rest absent)").isBetween(100, 900);
    }

    @Test
    void batchCheckRefusesAKeyOfAnUnsupportedTypeAsASingleCheckDoes() {
        LocalBloomFilter filter = LocalBloomFilter.create(FilterSizing.of(1_000, 0.01), SEED);

        assertThatThrownBy(() -> filter.mightContainAll(List.of(1L, 2.5d)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("java.lang.Double");
    }

    /** A filter made from an export holds the same bits, counts and answers: first and last block included. */
    @Test
    void importOfAnExportAnswersAsTheOriginal() {
        LocalBloomFilter original = LocalBloomFilter.create(FilterSizing.of(1_000, 0.01), SEED);
        IntStream.range(0, 1_000).forEach(i -> original.put("user:" + i));
        long[] words = original.toWords();
        assertThat(words[0]).as("keys in the first word").isNotZero();
        assertThat(words[words.length - 1]).as("keys in the last word").isNotZero();

        LocalBloomFilter copy = LocalBloomFilter.fromSnapshot(original.exportSnapshot());

        assertThat(copy.toWords()).isEqualTo(words);
        assertThat(copy.setBitCount()).isEqualTo(original.setBitCount());
        assertThat(copy.approximateElementCount()).isEqualTo(original.approximateElementCount());
        assertThat(IntStream.range(0, 1_000).filter(i -> !copy.mightContain("user:" + i))).isEmpty();
        assertThat(IntStream.range(1_000, 101_000).filter(i -> copy.mightContain("user:" + i)).count())
                .isEqualTo(IntStream.range(1_000, 101_000).filter(i -> original.mightContain("user:" + i)).count());
    }

    @Test
    void copyWordsCopiesAnyRangeOfTheWordsAndNothingBeyondThem() {
        LocalBloomFilter filter = LocalBloomFilter.create(FilterSizing.of(1_000, 0.01), SEED);
        IntStream.range(0, 1_000).forEach(i -> filter.put(i));
        long[] words = filter.toWords();
        long[] tail = new long[3];

        filter.copyWords(words.length - 3, tail, 3);

        assertThat(tail).isEqualTo(Arrays.copyOfRange(words, words.length - 3, words.length));
        assertThatThrownBy(() -> filter.copyWords(words.length - 2, tail, 3))
                .isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessageContaining(words.length + "-word");
        assertThatThrownBy(() -> filter.copyWords(-1, tail, 1)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void randomSeedsDifferBetweenFilters() {
        FilterSizing sizing = FilterSizing.of(1_000, 0.01);
        assertThat(LocalBloomFilter.create(sizing).seed()).isNotEqualTo(LocalBloomFilter.create(sizing).seed());
    }
}
