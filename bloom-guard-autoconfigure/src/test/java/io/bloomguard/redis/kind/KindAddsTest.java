package io.bloomguard.redis.kind;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.redis.kind.counting.CountingKind;
import io.bloomguard.redis.kind.layered.LayeredKind;
import io.bloomguard.redis.kind.plain.PlainKind;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which script each kind's adds send for each pair of live and next generation, with which KEYS and ARGV, and how
 * the reply reads: without a server. The script names and argument order are what instances of other versions
 * send too (the scripts themselves are pinned by {@code LuaScriptsGoldenTest}).
 */
class KindAddsTest {

    private static final FilterSizing SIZING = FilterSizing.of(10_000, 0.01);

    private static final RedisFilterKeys KEYS = new RedisFilterKeys("bloom-guard:", "users");

    private static final RedisFilterIdentity PLAIN = PlainKind.INSTANCE.identity(SIZING, 1, 1);

    private static final RedisFilterIdentity COUNTING = CountingKind.INSTANCE.identity(SIZING, 2, 1);

    private static final RedisFilterIdentity LAYERED = LayeredKind.INSTANCE.identity(SIZING, 3, 1);

    /** Readable layers: 2 of them. */
    private static final Generation LAYERS = LayeredKind.INSTANCE.open(LAYERED, SIZING, 2, KEYS, "1@1");

    /** Layers this instance cannot size. */
    private static final Generation UNREADABLE_LAYERS = LayeredKind.INSTANCE.open(LAYERED, null, 2, KEYS, "1@1");

    @Test
    void theScriptIsTheLiveKindsUnlessTheNextGenerationCounts() {
        assertThat(script(PLAIN, null, null)).isEqualTo("add");
        assertThat(script(PLAIN, null, PLAIN)).isEqualTo("add");
        assertThat(script(PLAIN, null, LAYERED)).isEqualTo("add");
        assertThat(script(PLAIN, null, COUNTING)).isEqualTo("add-counting");
        assertThat(script(COUNTING, null, null)).isEqualTo("add-counting");
        assertThat(script(COUNTING, null, PLAIN)).isEqualTo("add-counting");
        assertThat(script(COUNTING, null, LAYERED)).isEqualTo("add-counting");
        assertThat(script(LAYERED, LAYERS, null)).isEqualTo("add-layers");
        assertThat(script(LAYERED, LAYERS, PLAIN)).isEqualTo("add-layers");
        assertThat(script(LAYERED, LAYERS, COUNTING)).as("it counts into a counting next").isEqualTo("add-layers");
        assertThat(script(LAYERED, UNREADABLE_LAYERS, null)).as("layer 0 alone, as plain bits").isEqualTo("add");
        assertThat(script(LAYERED, null, PLAIN)).isEqualTo("add");
        assertThat(script(LAYERED, UNREADABLE_LAYERS, COUNTING)).isEqualTo("add-counting");
        assertThat(script(null, null, PLAIN)).isEqualTo("add");
        assertThat(script(null, null, LAYERED)).isEqualTo("add");
        assertThat(script(null, null, COUNTING)).isEqualTo("add-counting");
    }

    @Test
    void anAddDuringARebuildCarriesEachKeysOffsetsInBothGenerations() {
        RedisFilterIdentity next = PlainKind.INSTANCE.identity(FilterSizing.of(20_000, 0.01), 9, 1);
        Adds adds = PlainKind.INSTANCE.adds(PLAIN, null, next, KEYS);
        adds.add(5L);
        adds.add(5L);

        ScriptCall call = adds.calls().get(0);
        assertThat(call.keys()).containsExactly(KEYS.meta(0), KEYS.bits(0, PLAIN), KEYS.next(0, next),
                KEYS.bits(0, next), KEYS.adds(0));
        List<String> args = new ArrayList<>(List.of(PLAIN.fingerprint(), next.fingerprint(),
                Integer.toString(PLAIN.hashCount()), "2", Integer.toString(next.hashCount()), "2"));
        for (RedisFilterIdentity generation : List.of(PLAIN, next)) {
            for (int put = 0; put < 2; put++) {
                for (long offset : generation.locate(5L).offsets()) {
                    args.add(Long.toString(offset));
                }
            }
        }
        assertThat(call.args()).containsExactlyElementsOf(args);
        assertThat(call.carried()).as("put twice: counted twice, not once per generation").containsExactly(5L, 5L);
    }

    @Test
    void aNextGenerationOfSeveralShardsBesideLayersTakesItsOtherShardsKeysThroughTheirOwnShards() {
        RedisFilterIdentity next = PlainKind.INSTANCE.identity(SIZING, 9, 3);
        Adds adds = LayeredKind.INSTANCE.adds(LAYERED, LAYERS, next, KEYS);
        List<Long> keys = new ArrayList<>();
        for (long key = 0; key < 30; key++) {
            keys.add(key);
            adds.add(key);
        }

        List<ScriptCall> calls = adds.calls();
        assertThat(calls.get(0).script().name()).isEqualTo("add-layers");
        assertThat(calls.get(0).carried()).as("every key goes into the layers").containsExactlyElementsOf(keys);
        assertThat(calls.get(0).keys()).contains(KEYS.next(0, next)).doesNotContain(KEYS.next(1, next));
        for (ScriptCall other : calls.subList(1, calls.size())) {
            assertThat(other.script().name()).isEqualTo("add");
            assertThat(other.args().get(0)).as("no live generation in that shard").isEmpty();
            int shard = next.locate(other.carried().get(0)).shard();
            assertThat(shard).isPositive();
            assertThat(other.keys()).containsExactly(KEYS.meta(shard), KEYS.meta(shard) + ":none",
                    KEYS.next(shard, next), KEYS.bits(shard, next), KEYS.adds(shard));
            for (Object key : other.carried()) {
                assertThat(next.locate(key).shard()).isEqualTo(shard);
            }
        }
        assertThat(calls).hasSize(3);
    }

    @Test
    void theProbeForAnAnnouncedBuildIsAnAddWithNoGenerationAndNoKeys() {
        ScriptCall probe = BlockAdds.announcedProbe(KEYS);
        String none = KEYS.meta(0) + ":none";
        assertThat(probe.script().name()).isEqualTo("add");
        assertThat(probe.keys()).containsExactly(KEYS.meta(0), none, none, none, KEYS.adds(0));
        assertThat(probe.args()).containsExactly("", "", "0", "0", "0", "0");
    }

    @Test
    void aReplyCountsNewKeysOrSaysWhyNothingWasWritten() {
        assertThat(AddReply.of(3)).isEqualTo(new AddReply(3, false));
        assertThat(AddReply.of(-1).missing()).isTrue();
        assertThat(AddReply.of(-2).outdated()).isTrue();
        assertThat(AddReply.of(-2).changed()).isZero();
        AddReply grown = AddReply.of(AddReply.LAYER_ADDED + 4);
        assertThat(grown.layerAdded()).isTrue();
        assertThat(grown.changed()).isEqualTo(4);
        assertThat(AddReply.of(AddReply.LAYER_ADDED).changed()).isZero();
    }

    @Test
    void aReplySaysWhetherLeasedWritersWaitAndForWhichLease() {
        AddReply on = AddReply.of(3 + AddReply.WRITERS_WAIT + 100 * AddReply.LEASE_MILLIS);
        assertThat(on.changed()).isEqualTo(3);
        assertThat(on.writersWait()).isTrue();
        assertThat(on.layerAdded()).isFalse();
        assertThat(on.lease()).isEqualTo(java.time.Duration.ofMillis(100));
        AddReply none = AddReply.of(AddReply.LAYER_ADDED + AddReply.WRITERS_WAIT);
        assertThat(none.layerAdded()).isTrue();
        assertThat(none.writersWait()).as("no state stored: wait").isTrue();
        assertThat(none.lease()).as("the writer's own lease").isNull();
        assertThat(AddReply.of(5).writersWait()).as("off").isFalse();
        assertThat(AddReply.of(60_000 * AddReply.LEASE_MILLIS + AddReply.WRITERS_WAIT).lease())
                .as("a minute, below 2^53").isEqualTo(java.time.Duration.ofMinutes(1));
    }

    private static String script(@Nullable RedisFilterIdentity live, @Nullable Generation generation,
            @Nullable RedisFilterIdentity next) {
        RedisKind kind = (live != null) ? live.kind() : next.kind();
        Adds adds = kind.adds(live, generation, next, KEYS);
        adds.add(1L);
        return adds.calls().get(0).script().name();
    }
}
