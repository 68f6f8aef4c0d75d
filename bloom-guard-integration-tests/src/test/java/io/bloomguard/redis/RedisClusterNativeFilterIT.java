package io.bloomguard.redis;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.SharedBloomFilter.StartOutcome;
import io.bloomguard.testsupport.redis.RedisClusterProcess;
import io.bloomguard.testsupport.redis.RedisServerExtension;
import io.bloomguard.testsupport.redis.WithRedisBloom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The server's own filters on a three-node Redis Cluster whose nodes load the RedisBloom module (skipped without one:
 * set {@code REDISBLOOM_MODULE}): each filter is one key on the node of its hash slot, with its metadata, so that its
 * scripts (checks, adds during a rebuild, the swap, removes) run on one node, as on a single server.
 */
@Timeout(90)
@ExtendWith(RedisServerExtension.class)
class RedisClusterNativeFilterIT {

    private static final FilterSizing SIZING = FilterSizing.of(20_000, 0.01);

    private static final long ABSENT = 987_654_321L;

    private static TestRedisBackend first;

    private static TestRedisBackend second;

    @BeforeAll
    static void connect(@WithRedisBloom RedisClusterProcess cluster) {
        first = TestRedisBackend.on(cluster, TestRedisBackend.CONTRACT);
        second = TestRedisBackend.on(cluster, TestRedisBackend.CONTRACT);
    }

    @AfterAll
    static void disconnect() {
        if (first != null) {
            first.close();
            second.close();
        }
    }

    /**
     * One instance loads the filter, another joins it; both find every key, reject an absent one, see each other's
     * puts, answer batches as single checks; a rebuild swaps in a filter holding the source and the puts made since;
     * a cuckoo filter takes back a key put once.
     */
    @ParameterizedTest
    @ValueSource(strings = {"bf", "cf"})
    void twoInstancesShareANativeFilterOnACluster(String kind) {
        String name = "cluster-native-" + kind;
        RedisFilterSpec spec = RedisFilterSpec.builder(kind.equals("cf") ? RedisKinds.NATIVE_CUCKOO
                : RedisKinds.NATIVE_BLOOM, SIZING).build();
        List<Object> source = LongStream.range(0, 3_000).boxed().map(Object.class::cast).toList();
        RedisBloomFilter loader = first.backend.create(name, spec);
        RedisBloomFilter joiner = second.backend.create(name, spec);
        assertThat(loader.start(RecordingKeyFeed.of(source))).isEqualTo(StartOutcome.LOADED_HERE);
        assertThat(joiner.start(RecordingKeyFeed.of(source))).isEqualTo(StartOutcome.ALREADY_LOADED);

        assertThat(LongStream.range(0, 3_000).allMatch(joiner::mightContain)).isTrue();
        assertThat(joiner.mightContain(ABSENT)).isFalse();
        assertThat(loader.put(50_000L)).isTrue();
        assertThat(joiner.mightContain(50_000L)).as("put by the other instance").isTrue();
        assertThat(joiner.mightContainAll(List.of(1L, ABSENT, 50_000L))).containsExactly(true, false, true);

        assertThat(loader.rebuild()).isEqualTo(3_000);
        joiner.put(60_000L);
        assertThat(LongStream.range(0, 3_000).allMatch(joiner::mightContain)).as("after the rebuild").isTrue();
        assertThat(joiner.mightContain(60_000L)).isTrue();
        assertThat(loader.mightContain(ABSENT)).isFalse();

        if (kind.equals("cf")) {
            assertThat(loader.put(70_000L)).isTrue();
            assertThat(joiner.remove(70_000L)).isTrue();
            assertThat(loader.mightContain(70_000L)).as("taken back: it was put once").isFalse();
        }
        loader.close();
        joiner.close();
    }
}
