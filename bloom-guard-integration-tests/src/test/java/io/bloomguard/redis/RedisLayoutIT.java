package io.bloomguard.redis;

import io.bloomguard.core.BlockedBloomLayout;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.KeyCanonicalizer;
import io.bloomguard.core.KeyFeed;
import io.bloomguard.core.SharedBloomFilter.StartOutcome;
import io.bloomguard.core.SharedFilterStatus;
import io.bloomguard.local.LocalBloomFilter;
import io.bloomguard.redis.kind.BitmapCodec;
import io.bloomguard.testsupport.redis.RedisServerExtension;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Redis backend stores exactly the bits the local backend computes, so a filter moves between the two
 * (export, import) and answers the same: pinned by a golden vector of the Redis bytes, and checked through
 * {@code SETBIT}-by-offset adds, bulk uploads and sharded filters.
 */
@Timeout(60)
@ExtendWith(RedisServerExtension.class)
class RedisLayoutIT {

    private static final int GOLDEN_SEED = 42;

    private static final UUID GOLDEN_UUID = UUID.fromString("123e4567-e89b-12d3-a456-426614174000");

    /**
     * SHA-256 of the Redis string holding {@code FilterSizing.of(1000, 0.01)} (20 blocks, k = 7), seed 42, after
     * adding 0..999 (Long), "alice" and {@link #GOLDEN_UUID}. Pins the whole chain a stored filter depends on:
     * key encoding, Murmur3, block and bit choice ({@link BlockedBloomLayout} v1) and the word-to-Redis-bytes
     * codec. If it changes, filters already in Redis answer "absent" for keys they hold: bump the layout version
     * instead.
     */
    private static final String GOLDEN_BITMAP_SHA256 = "7c12617d88cecbf34a3480db06ff6387d5234ff03aea07d11f4ffd46eb93c0b4";

    /**
     * Redis bit offsets ({@code GETBIT key offset}) of "alice" in the golden filter, in probe order: all in block
     * 13 (bits 6656-7167), as the blocked layout puts one key's bits in one 64-byte block.
     */
    private static final long[] ALICE_OFFSETS = { 7061, 6797, 6746, 6900, 6779, 6963, 6701 };

    private static final int PROBES = 50_000;

    private static RedisServerProcess server;
    private static TestRedisBackend redis;
    private static RedisClient rawClient;
    private static StatefulRedisConnection<byte[], byte[]> raw;

    @BeforeAll
    static void connect(RedisServerProcess redisServer) {
        server = redisServer;
        redis = TestRedisBackend.on(server, TestRedisBackend.FAST);
        rawClient = RedisClient.create(server.redisUri());
        raw = rawClient.connect(ByteArrayCodec.INSTANCE);
    }

    @AfterAll
    static void disconnect() {
        if (raw != null) {
            raw.close();
        }
        if (rawClient != null) {
            rawClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
        if (redis != null) {
            redis.close();
        }
    }

    @Test
    void goldenVectorPinsTheRedisBytesOfAFilterBuiltByAdds() {
        FilterSizing sizing = FilterSizing.of(1000, 0.01);
        List<Object> keys = new ArrayList<>();
        LongStream.range(0, 1000).forEach(keys::add);
        keys.add("alice");
        keys.add(GOLDEN_UUID);
        LocalBloomFilter local = LocalBloomFilter.create(sizing, GOLDEN_SEED);
        keys.forEach(local::put);

        // Through the add script: every bit is a SETBIT at an offset this instance computed.
        RedisBloomFilter byAdds = redis.backend.create("golden", sizing, GOLDEN_SEED, 1);
        assertThat(byAdds.start(KeyFeed.EMPTY)).isEqualTo(StartOutcome.LOADED_HERE);
        byAdds.putAll(keys);
        // Through a bulk load: the local bit array uploaded with the codec.
        RedisBloomFilter byLoad = redis.backend.create("golden-loaded", sizing, GOLDEN_SEED, 1);
        assertThat(byLoad.start(RecordingKeyFeed.of(keys))).isEqualTo(StartOutcome.LOADED_HERE);

        String bitsKey = "bloom-guard:{golden}:bits:v1.b20.k7.s2a.n1";
        byte[] stored = rawGet(bitsKey);
        byte[] expected = BitmapCodec.toRedisBytes(local.toWords(), 0, local.toWords().length);
        assertThat(stored).as("bytes of %s", bitsKey).hasSize(20 * 64).isEqualTo(expected);
        assertThat(rawGet("bloom-guard:{golden-loaded}:bits:v1.b20.k7.s2a.n1")).isEqualTo(stored);
        assertThat(stored).as("SETBIT numbering: offset b is bit 7 - (b mod 8) of byte b/8, from the most significant")
            .isEqualTo(bitmapFromOffsets(keys, sizing, GOLDEN_SEED));
        assertThat(sha256(stored)).isEqualTo(GOLDEN_BITMAP_SHA256);

        long[] alice = BlockedBloomLayout.bitIndexes(KeyCanonicalizer.hash("alice", GOLDEN_SEED),
                (int) sizing.blockCount(), sizing.hashCount());
        assertThat(alice).containsExactly(ALICE_OFFSETS);
        for (long offset : ALICE_OFFSETS) {
            assertThat(server.command("GETBIT", bitsKey, Long.toString(offset))).as("GETBIT %d", offset).isEqualTo("1");
        }
        assertThat(byAdds.mightContain("alice")).isTrue();
        assertThat(byAdds.mightContain(GOLDEN_UUID.toString().toUpperCase())).isTrue();
        assertThat(byAdds.mightContain("999")).isTrue();
        byAdds.close();
        byLoad.close();
    }

    @Test
    void aLocalSnapshotImportedIntoRedisAnswersExactlyAsTheLocalFilter() {
        FilterSizing sizing = FilterSizing.of(20_000, 0.01);
        LocalBloomFilter local = LocalBloomFilter.create(sizing, 7);
        LongStream.range(0, 20_000).forEach(local::put);

        // Configured with another seed: the snapshot's seed is what the imported bits need.
        RedisBloomFilter imported = redis.backend.create("imported", sizing, 99, 1);
        imported.start(KeyFeed.EMPTY);
        imported.importSnapshot(local.exportSnapshot());

        assertThat(imported.status()).isEqualTo(SharedFilterStatus.READY);
        assertThat(imported.seed()).isEqualTo(7);
        assertSameAnswers(local, imported);
        assertThat(imported.exportSnapshot()).isEqualTo(local.exportSnapshot());
        imported.close();
    }

    @Test
    void aRedisSnapshotImportedLocallyHasTheSameWordsAndAnswers() {
        FilterSizing sizing = FilterSizing.of(20_000, 0.01);
        RedisBloomFilter shared = redis.backend.create("exported", sizing, 11, 1);
        shared.start(KeyFeed.EMPTY);
        LocalBloomFilter reference = LocalBloomFilter.create(sizing, 11);
        List<Object> keys = new ArrayList<>();
        LongStream.range(0, 20_000).forEach(keys::add);
        for (int from = 0; from < keys.size(); from += 1000) {
            shared.putAll(keys.subList(from, from + 1000));
        }
        keys.forEach(reference::put);

        LocalBloomFilter copy = LocalBloomFilter.fromSnapshot(shared.exportSnapshot());

        assertThat(copy.toWords()).isEqualTo(reference.toWords());
        assertThat(copy.seed()).isEqualTo(11);
        assertSameAnswers(copy, shared);
        shared.close();
    }

    @Test
    void aShardedFilterHoldsTheSameBitsAsAnUnshardedLocalOne() {
        // 395 blocks over 3 shards: 132 + 132 + 131, so the last shard is shorter.
        FilterSizing sizing = FilterSizing.of(20_000, 0.01);
        assertThat(sizing.blockCount()).isEqualTo(395);
        List<Object> loaded = new ArrayList<>();
        List<Object> added = new ArrayList<>();
        LongStream.range(0, 10_000).forEach(loaded::add);
        LongStream.range(10_000, 20_000).forEach(added::add);
        LocalBloomFilter local = LocalBloomFilter.create(sizing, 13);
        loaded.forEach(local::put);
        added.forEach(local::put);

        RedisBloomFilter sharded = redis.backend.create("sharded", sizing, 13, 3);
        assertThat(sharded.start(RecordingKeyFeed.of(loaded))).isEqualTo(StartOutcome.LOADED_HERE);
        for (int from = 0; from < added.size(); from += 1000) {
            sharded.putAll(added.subList(from, from + 1000));
        }

        assertThat(rawGet("bloom-guard:{sharded}:bits:v1.b395.k7.sd.n3")).hasSize(132 * 64);
        assertThat(rawGet("bloom-guard:{sharded:1}:bits:v1.b395.k7.sd.n3")).hasSize(132 * 64);
        assertThat(rawGet("bloom-guard:{sharded:2}:bits:v1.b395.k7.sd.n3")).hasSize(131 * 64);
        assertThat(sharded.exportSnapshot().words()).isEqualTo(local.toWords());
        assertSameAnswers(local, sharded);
        sharded.close();
    }

    /** Every single check and every batch check over present and absent keys gives the local filter's answer. */
    private static void assertSameAnswers(LocalBloomFilter local, RedisBloomFilter shared) {
        List<Object> probes = new ArrayList<>(PROBES);
        for (long key = 0; key < PROBES; key++) {
            probes.add((key % 2 == 0) ? key : "probe-" + key);
        }
        boolean[] expected = new boolean[PROBES];
        int present = 0;
        for (int i = 0; i < PROBES; i++) {
            expected[i] = local.mightContain(probes.get(i));
            present += expected[i] ? 1 : 0;
        }
        assertThat(present).as("probes the filters hold").isBetween(10_000, 11_000);
        for (int i = 0; i < PROBES; i++) {
            assertThat(shared.mightContain(probes.get(i))).as("mightContain(%s)", probes.get(i)).isEqualTo(expected[i]);
        }
        boolean[] batched = new boolean[PROBES];
        for (int from = 0; from < PROBES; from += 5000) {
            System.arraycopy(shared.mightContainAll(probes.subList(from, from + 5000)), 0, batched, from, 5000);
        }
        assertThat(batched).isEqualTo(expected);
    }

    /** The bitmap {@code SETBIT key offset 1} for each key's offsets would build, computed without the codec. */
    private static byte[] bitmapFromOffsets(List<Object> keys, FilterSizing sizing, int seed) {
        byte[] bitmap = new byte[Math.toIntExact(sizing.byteSize())];
        for (Object key : keys) {
            long[] offsets = BlockedBloomLayout.bitIndexes(KeyCanonicalizer.hash(key, seed),
                    (int) sizing.blockCount(), sizing.hashCount());
            for (long offset : offsets) {
                bitmap[(int) (offset >>> 3)] |= (byte) (0x80 >>> (offset & 7));
            }
        }
        return bitmap;
    }

    private static byte[] rawGet(String key) {
        byte[] value = raw.sync().get(key.getBytes(StandardCharsets.UTF_8));
        return (value != null) ? value : new byte[0];
    }

    private static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        }
        catch (NoSuchAlgorithmException ex) {
            throw new IllegalStateException(ex);
        }
    }
}
