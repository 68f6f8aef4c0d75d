package io.bloomguard.redis.kind;

import io.bloomguard.core.BlockedBloomLayout;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.redis.kind.counting.CounterCodec;
import io.bloomguard.redis.kind.counting.CountingKind;
import io.bloomguard.redis.kind.layered.LayeredKind;
import io.bloomguard.redis.kind.plain.PlainKind;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** How a filter's identity is named in Redis, and how its blocks are cut into shards. */
class RedisFilterIdentityTest {

    private static final PlainKind PLAIN = PlainKind.INSTANCE;

    private static final List<BlockKind> KINDS = List.of(PLAIN, CountingKind.INSTANCE, LayeredKind.INSTANCE);

    @Test
    void aFingerprintNamesEverythingThatPlacesBitsAndParsesBack() {
        RedisFilterIdentity identity = RedisFilterIdentity.of(FilterSizing.of(1_000_000, 0.01), 0xcafe1234, 1, PLAIN);
        assertThat(identity.fingerprint()).isEqualTo("v1.b" + identity.blockCount() + ".k7.scafe1234.n1");
        assertThat(RedisFilterIdentity.parse(identity.fingerprint(), KINDS)).isEqualTo(identity);
        RedisFilterIdentity negativeSeed = new RedisFilterIdentity(1, identity.blockCount(), 7, -5, 1, PLAIN);
        assertThat(RedisFilterIdentity.parse(negativeSeed.fingerprint(), KINDS)).isEqualTo(negativeSeed);
        assertThat(RedisFilterIdentity.parse("something else", KINDS)).isNull();
        assertThat(RedisFilterIdentity.parse(null, KINDS)).isNull();
    }

    /** A counting filter's identity says so: a plain and a counting filter of one size are two shapes. */
    @Test
    void aCountingFilterIsAnotherShapeAndTakesFourTimesTheBytes() {
        FilterSizing sizing = FilterSizing.of(1_000_000, 0.01);
        RedisFilterIdentity counting = RedisFilterIdentity.of(sizing, 0xcafe1234, 1, CountingKind.INSTANCE);
        RedisFilterIdentity plain = RedisFilterIdentity.of(sizing, 0xcafe1234, 1, PLAIN);
        assertThat(counting.fingerprint()).isEqualTo(plain.fingerprint() + ".c4");
        assertThat(counting.fingerprintWithoutSeed()).endsWith(".n1.c4");
        assertThat(RedisFilterIdentity.parse(counting.fingerprint(), KINDS)).isEqualTo(counting);
        assertThat(counting.sameShape(plain)).isFalse();
        assertThat(counting.bytesPerBlock()).isEqualTo(4 * plain.bytesPerBlock()).isEqualTo(256);
        // 10⁹ keys at 1%: 1.2 GB of bits fit three strings, 4.8 GB of counters need ten.
        FilterSizing large = FilterSizing.of(1_000_000_000L, 0.01);
        RedisFilterIdentity countingLarge = RedisFilterIdentity.of(large, 1, 1, CountingKind.INSTANCE);
        assertThat(RedisFilterIdentity.of(large, 1, 1, PLAIN).shards()).isEqualTo(3);
        assertThat(countingLarge.shards()).isEqualTo(10);
        assertThat(countingLarge.blocksPerShard() * countingLarge.bytesPerBlock() * 8).isLessThanOrEqualTo(1L << 32);
    }

    /** An instance that does not grow by layers must not take layer 0 alone for the filter: it would miss keys. */
    @Test
    void layerZeroOfAFilterThatGrowsByLayersIsAnotherShape() {
        RedisFilterIdentity plain = RedisFilterIdentity.of(FilterSizing.of(1_000_000, 0.01), 0xcafe1234, 1, PLAIN);
        RedisFilterIdentity layered = RedisFilterIdentity.of(FilterSizing.of(1_000_000, 0.01), 0xcafe1234, 1,
                LayeredKind.INSTANCE);
        assertThat(layered.fingerprint()).isEqualTo(plain.fingerprint() + ".x2");
        assertThat(RedisFilterIdentity.parse(layered.fingerprint(), KINDS)).isEqualTo(layered);
        assertThat(layered.sameShape(plain)).isFalse();
        assertThat(RedisFilterIdentity.parse(plain.fingerprint() + ".c4.x2", KINDS)).as("no kind counts in layers")
                .isNull();
        assertThat(RedisFilterIdentity.parse(layered.fingerprint(), List.of(PLAIN))).as("a kind not registered")
                .isNull();
        assertThatIllegalArgumentException().as("layers share one hash slot")
            .isThrownBy(() -> RedisFilterIdentity.of(FilterSizing.of(1_000_000, 0.01), 1, 2, LayeredKind.INSTANCE));
    }

    @Test
    void filtersAboveOneRedisStringAreShardedAutomatically() {
        // 3·10⁹ keys at 1%: about 3.8 GB of bits, far above one 512 MiB string.
        FilterSizing huge = FilterSizing.of(3_000_000_000L, 0.01);
        RedisFilterIdentity identity = RedisFilterIdentity.of(huge, 1, 1, PLAIN);
        assertThat(identity.shards()).isGreaterThan(1);
        assertThat(identity.blocksPerShard() * BlockedBloomLayout.BLOCK_BITS).isLessThanOrEqualTo(1L << 32);
        assertThat(RedisFilterIdentity.of(huge, 1, 100, PLAIN).shards()).as("more shards than needed, if asked")
                .isEqualTo(100);
        assertThatIllegalArgumentException().isThrownBy(() -> new RedisFilterIdentity(1, huge.blockCount(), 7, 1, 1, PLAIN))
                .withMessageContaining("exceed one Redis string");
    }

    @Test
    void shardsCoverEveryBlockOnce() {
        RedisFilterIdentity identity = new RedisFilterIdentity(1, 1001, 7, 0, 3, PLAIN);
        long covered = 0;
        for (int shard = 0; shard < identity.shards(); shard++) {
            assertThat(identity.firstBlockOf(shard)).isEqualTo(covered);
            covered += identity.blocksIn(shard);
        }
        assertThat(covered).isEqualTo(1001);
        assertThat(identity.shardOf(0)).isZero();
        assertThat(identity.shardOf(1000)).isEqualTo(2);
        assertThat(RedisFilterIdentity.of(FilterSizing.of(10, 0.5), 0, 16, PLAIN).shards())
                .as("never more shards than blocks")
                .isEqualTo(FilterSizing.of(10, 0.5).blockCount());
    }

    /** Counter p is the BITFIELD field u4 #p: the high nibble of byte p / 2 for an even p. */
    @Test
    void counterWordsBecomeBitfieldNibblesAndBack() {
        long[] words = new SplittableRandom(8).longs(64).toArray();
        byte[] bytes = CounterCodec.toRedisBytes(words, 0, words.length);
        long[] back = new long[words.length];
        CounterCodec.fromRedisBytes(bytes, back, 0);
        assertThat(back).isEqualTo(words);
        long[] counters = { 0x0000_0000_0000_21F3L }; // counters 0..3: 3, 15, 1, 2
        byte[] nibbles = CounterCodec.toRedisBytes(counters, 0, 1);
        assertThat(nibbles[0]).isEqualTo((byte) 0x3F);
        assertThat(nibbles[1]).isEqualTo((byte) 0x12);
        assertThat(CounterCodec.count(nibbles, 0)).isEqualTo(3);
        assertThat(CounterCodec.count(nibbles, 1)).isEqualTo(15);
        assertThat(CounterCodec.count(nibbles, 3)).isEqualTo(2);
    }

    @Test
    void wordsBecomeRedisBytesAndBack() {
        long[] words = new SplittableRandom(7).longs(64).toArray();
        byte[] bytes = BitmapCodec.toRedisBytes(words, 0, words.length);
        long[] back = new long[words.length];
        BitmapCodec.fromRedisBytes(bytes, back, 0);
        assertThat(back).isEqualTo(words);
        // Bit 0 of the layout is Redis offset 0, the most significant bit of byte 0; bit 9 is offset 9.
        long[] single = { (1L << 0) | (1L << 9) };
        byte[] redis = BitmapCodec.toRedisBytes(single, 0, 1);
        assertThat(redis[0] & 0xFF).isEqualTo(0x80);
        assertThat(redis[1] & 0xFF).isEqualTo(0x40);
        assertThat(BitmapCodec.isSet(redis, 0)).isTrue();
        assertThat(BitmapCodec.isSet(redis, 9)).isTrue();
        assertThat(BitmapCodec.isSet(redis, 1)).isFalse();
    }
}
