package io.bloomguard.redis.kind;

import io.bloomguard.core.BlockedBloomLayout;
import io.bloomguard.core.CountingBlockLayout;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.ScalableSizing;
import io.bloomguard.local.LocalBloomFilter;
import io.bloomguard.local.LocalCountingFilter;
import io.bloomguard.redis.kind.counting.CounterCodec;
import io.bloomguard.redis.kind.counting.CountingKind;
import io.bloomguard.redis.kind.layered.LayeredKind;
import io.bloomguard.redis.kind.plain.PlainKind;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What each kind's generation sends to check keys and how it reads the replies, without a server: the command and
 * its arguments, a held key, an absent one, a bitmap gone (never "absent"), a layer added since the view was read.
 */
class GenerationChecksTest {

    private static final FilterSizing SIZING = FilterSizing.of(10_000, 0.01);

    private static final int SEED = 0x5eed;

    private static final RedisFilterKeys KEYS = new RedisFilterKeys("bloom-guard:", "users");

    private final RecordedEvents events = new RecordedEvents();

    @Test
    void aPlainGenerationReadsTheKeysBlockWithOneGetrangeAndDecidesInTheJvm() {
        RedisFilterIdentity identity = PlainKind.INSTANCE.identity(SIZING, SEED, 3);
        Generation generation = PlainKind.INSTANCE.open(identity, SIZING, 1, KEYS, "4@1700000000000");
        LocalBloomFilter local = LocalBloomFilter.create(SIZING, SEED);
        local.put(42L);
        long block = blockOf(identity, 42L);
        int shard = identity.shardOf(block);
        long start = (block - identity.firstBlockOf(shard)) * 64;
        byte[] held = plainBlock(local, block);

        RecordingRedisPort port = new RecordingRedisPort().replying(held, new byte[64], new byte[0]);
        assertThat(answer(generation.check(42L, events), port)).isTrue();
        assertThat(answer(generation.check(42L, events), port)).as("all zero").isFalse();
        assertThat(answer(generation.check(42L, events), port)).as("bitmap gone: might contain").isTrue();

        String bitmap = KEYS.bits(shard, identity);
        assertThat(port.sent).containsOnly("getrange " + bitmap + " " + start + " " + (start + 63));
        assertThat(events.log).containsExactly("block " + block, "block " + block, "missing 4@1700000000000");
        assertThat(generation.readable()).isTrue();
        assertThat(generation.dataKeys()).containsExactly(KEYS.bits(0, identity), KEYS.bits(1, identity),
                KEYS.bits(2, identity));
    }

    @Test
    void aCountingGenerationReadsTheKeysBlockOfCounters() {
        RedisFilterIdentity identity = CountingKind.INSTANCE.identity(SIZING, SEED, 1);
        Generation generation = CountingKind.INSTANCE.open(identity, SIZING, 1, KEYS, "1@1");
        LocalCountingFilter local = LocalCountingFilter.create(SIZING, SEED);
        local.put("alice");
        long block = blockOf(identity, "alice");
        long[] words = new long[CountingBlockLayout.BLOCK_WORDS];
        local.copyCounterWords((int) block * CountingBlockLayout.BLOCK_WORDS, words, words.length);
        byte[] held = CounterCodec.toRedisBytes(words, 0, words.length);

        RecordingRedisPort port = new RecordingRedisPort().replying(held, new byte[256], new byte[64]);
        assertThat(answer(generation.check("alice", events), port)).isTrue();
        assertThat(answer(generation.check("alice", events), port)).isFalse();
        assertThat(answer(generation.check("alice", events), port)).as("short: the bitmap is not whole").isTrue();

        long start = block * 256;
        assertThat(port.sent).containsOnly("getrange " + KEYS.bits(0, identity) + " " + start + " " + (start + 255));
        assertThat(events.log).endsWith("missing 1@1");
    }

    @Test
    void aBatchOnAPlainGenerationIsOneScriptPerShardWithTheOffsetsOfItsKeys() {
        RedisFilterIdentity identity = PlainKind.INSTANCE.identity(SIZING, SEED, 1);
        Generation generation = PlainKind.INSTANCE.open(identity, SIZING, 1, KEYS, "1@1");
        List<Object> keys = List.of(1L, 2L, 3L);
        boolean[] held = { false, true, false };
        RecordingRedisPort port = new RecordingRedisPort().replying(ascii("10"), ascii("-"));

        assertThat(generation.checkAll(keys, held, port, events)).containsExactly(true, true, false);
        assertThat(events.log).as("the key Redis holds goes to the near copy").containsExactly("held 1");
        List<String> args = new ArrayList<>(List.of(Integer.toString(identity.hashCount())));
        for (long key : new long[] { 1L, 3L }) {
            for (long offset : identity.locate(key).offsets()) {
                args.add(Long.toString(offset));
            }
        }
        assertThat(port.sent).containsExactly("eval:check-all " + KEYS.bits(0, identity) + " | "
                + String.join(" ", args));

        assertThat(generation.checkAll(keys, held, port, events)).as("no bitmap: every key might be there")
                .containsExactly(true, true, true);
        assertThat(events.log).endsWith("missing 1@1");
    }

    @Test
    void aLayeredGenerationChecksEveryLayerInOneScriptAndNoticesALayerAddedSince() {
        ScalableSizing scaling = ScalableSizing.of(10_000, 0.01);
        FilterSizing layer0 = scaling.layer(0);
        RedisFilterIdentity identity = LayeredKind.INSTANCE.identity(layer0, SEED, 1);
        Generation generation = LayeredKind.INSTANCE.open(identity, layer0, 2, KEYS, "2@2");
        assertThat(generation.readable()).isTrue();
        assertThat(generation.dataKeys()).containsExactly(KEYS.bits(0, identity), KEYS.layer(identity, 1));

        RecordingRedisPort port = new RecordingRedisPort().replying(
                List.of(ascii("2"), new byte[64], new byte[64]),
                List.of(ascii("3")),
                List.of(ascii("2"), new byte[64], new byte[0]));
        assertThat(answer(generation.check(7L, events), port)).as("both layers read, neither holds it").isFalse();
        assertThat(answer(generation.check(7L, events), port)).as("a third layer since").isTrue();
        assertThat(answer(generation.check(7L, events), port)).as("layer 1 gone").isTrue();
        assertThat(events.log).containsExactly("layer added", "missing 2@2");
        assertThat(port.sent.get(0)).startsWith("eval:check-layers " + KEYS.meta(0) + " " + KEYS.bits(0, identity)
                + " " + KEYS.layer(identity, 1) + " | ");
    }

    @Test
    void aLayeredGenerationWithLayersThisInstanceCannotSizeIsNotReadable() {
        RedisFilterIdentity identity = LayeredKind.INSTANCE.identity(SIZING, SEED, 1);
        assertThat(LayeredKind.INSTANCE.open(identity, null, 2, KEYS, "1@1").readable()).as("size unknown")
                .isFalse();
        assertThat(LayeredKind.INSTANCE.open(identity, SIZING, -1, KEYS, "1@1").readable()).as("count unreadable")
                .isFalse();
        assertThat(LayeredKind.INSTANCE.open(identity, null, 2, KEYS, "1@1").dataKeys())
                .as("layer 0 must still exist").containsExactly(KEYS.bits(0, identity));
    }

    @Test
    void twoOpeningsOfOneBuildAreTheSameBuildAndAnotherBuildIsNot() {
        RedisFilterIdentity identity = PlainKind.INSTANCE.identity(SIZING, SEED, 1);
        Generation first = PlainKind.INSTANCE.open(identity, SIZING, 1, KEYS, "3@30");
        assertThat(first.sameBuild(PlainKind.INSTANCE.open(identity, SIZING, 1, KEYS, "3@30"))).isTrue();
        assertThat(first.sameBuild(PlainKind.INSTANCE.open(identity, SIZING, 1, KEYS, "4@40"))).isFalse();
    }

    @Test
    void onlyACountingGenerationTakesKeysBackWithOneScriptOnTheKeysShard() {
        RedisFilterIdentity counting = CountingKind.INSTANCE.identity(SIZING, SEED, 2);
        Generation generation = CountingKind.INSTANCE.open(counting, SIZING, 1, KEYS, "1@1");
        ScriptCall removal = generation.removal(42L, "7", "id-1");
        RedisFilterIdentity.KeyBits located = counting.locate(42L);
        int shard = located.shard();
        assertThat(removal.script().name()).isEqualTo("remove");
        assertThat(removal.keys()).containsExactly(KEYS.meta(shard), KEYS.bits(shard, counting), KEYS.adds(shard),
                KEYS.removal(shard, "id-1"));
        List<String> args = new ArrayList<>(List.of(counting.fingerprint(), "7"));
        for (long offset : located.offsets()) {
            args.add(Long.toString(offset));
        }
        assertThat(removal.args()).containsExactlyElementsOf(args);

        RedisFilterIdentity plain = PlainKind.INSTANCE.identity(SIZING, SEED, 1);
        assertThat(PlainKind.INSTANCE.open(plain, SIZING, 1, KEYS, "1@1").removal(42L, "", "id")).isNull();
        RedisFilterIdentity layered = LayeredKind.INSTANCE.identity(SIZING, SEED, 1);
        assertThat(LayeredKind.INSTANCE.open(layered, SIZING, 1, KEYS, "1@1").removal(42L, "", "id")).isNull();
    }

    @Test
    void eachKindMakesANearCopyOfItsOwnShape() {
        RedisFilterIdentity plain = PlainKind.INSTANCE.identity(SIZING, SEED, 2);
        CopiedBits plainCopy = PlainKind.INSTANCE.open(plain, SIZING, 1, KEYS, "1@1").newCopy(SIZING);
        plainCopy.learnKey(42L);
        assertThat(plainCopy.mightContain(42L)).isTrue();
        assertThat(plainCopy.words(0) + plainCopy.words(1)).isEqualTo(SIZING.blockCount() * 8);
        assertThat(plainCopy.overwrites()).isFalse();

        RedisFilterIdentity counting = CountingKind.INSTANCE.identity(SIZING, SEED, 1);
        CopiedBits counters = CountingKind.INSTANCE.open(counting, SIZING, 1, KEYS, "1@1").newCopy(SIZING);
        counters.learnKey(42L);
        assertThat(counters.mightContain(42L)).as("counted once Redis publishes it, not before").isFalse();
        assertThat(counters.overwrites()).isTrue();

        ScalableSizing scaling = ScalableSizing.of(10_000, 0.01);
        RedisFilterIdentity layered = LayeredKind.INSTANCE.identity(scaling.layer(0), SEED, 1);
        CopiedBits layers = LayeredKind.INSTANCE.open(layered, scaling.layer(0), 3, KEYS, "1@1")
                .newCopy(scaling.layer(0));
        assertThat(layers.words(2)).as("a part per layer, the third four times the first")
                .isEqualTo(scaling.layer(2).bitSize() / 64).isGreaterThan(3 * layers.words(0));
    }

    private static long blockOf(RedisFilterIdentity identity, Object key) {
        return BlockedBloomLayout.blockIndex(io.bloomguard.core.KeyCanonicalizer.hash(key, identity.seed()).h1(),
                (int) identity.blockCount());
    }

    private static byte[] plainBlock(LocalBloomFilter local, long block) {
        long[] words = new long[BlockedBloomLayout.BLOCK_WORDS];
        local.copyWords((int) block * BlockedBloomLayout.BLOCK_WORDS, words, words.length);
        return BitmapCodec.toRedisBytes(words, 0, words.length);
    }

    private static <R> boolean answer(KeyCheck<R> check, RecordingRedisPort port) {
        return check.answer(check.send(port).join());
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    private static final class RecordedEvents implements KeyCheck.Events {

        final List<String> log = new ArrayList<>();

        @Override
        public void bitmapMissing(Generation seen) {
            log.add("missing " + seen.build());
        }

        @Override
        public void layerAdded() {
            log.add("layer added");
        }

        @Override
        public void blockRead(Generation seen, long block, byte[] bytes) {
            log.add("block " + block);
        }

        @Override
        public void keyHeld(Generation seen, Object key) {
            log.add("held " + key);
        }
    }
}
