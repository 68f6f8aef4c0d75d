package io.bloomguard.testsupport.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.platform.testkit.engine.EngineTestKit;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

/**
 * Proves the harness does what tests built on it rely on: real servers that answer, die and come back on the
 * same port, a working cluster, a proxy whose freeze makes clients time out, and an extension that hands a test
 * class one server and stops it afterwards.
 */
@Timeout(60)
class RedisHarnessIT {

    /** A short, constant reconnect delay, so a restarted server is picked up at once instead of after backoff. */
    private static final ClientResources resources = ClientResources.builder()
        .reconnectDelay(Delay.constant(Duration.ofMillis(100)))
        .build();

    @AfterAll
    static void shutDownClientResources() {
        resources.shutdown(0, 2, TimeUnit.SECONDS);
    }

    @Test
    void serverAnswersPingAndLettuce() {
        try (RedisServerProcess redis = RedisServerProcess.start()) {
            assertThat(redis.command("PING")).isEqualTo("PONG");
            assertThat(redis.command("INFO", "server")).contains("redis_version:" + RedisServerBinary.version());
            assertThat(redis.command("GET", "missing")).isNull();
            assertThat(redis.command("DEBUG", "SLEEP", "0")).isEqualTo("OK");
            assertThatThrownBy(() -> redis.command("NO-SUCH-COMMAND")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("unknown command");
            RedisClient client = RedisClient.create(resources, uri(redis.redisUri(), Duration.ofSeconds(2)));
            try (StatefulRedisConnection<String, String> connection = client.connect()) {
                connection.sync().set("greeting", "hello");
                assertThat(connection.sync().get("greeting")).isEqualTo("hello");
            }
            finally {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
            assertThat(redis.command("INFO", "commandstats")).contains("cmdstat_set:calls=1");
        }
    }

    /** Tests that count commands with MONITOR or INFO commandstats rely on the harness sending only its own. */
    @Test
    void aCommandTravelsAloneOnItsConnection() {
        try (RedisServerProcess redis = RedisServerProcess.start()) {
            redis.command("CONFIG", "RESETSTAT");
            redis.command("ECHO", "alone");
            assertThat(Arrays.stream(redis.command("INFO", "commandstats").split("\r?\n"))
                .filter((line) -> line.startsWith("cmdstat_"))
                .map((line) -> line.substring("cmdstat_".length(), line.indexOf(':'))))
                .containsExactlyInAnyOrder("config|resetstat", "echo");
        }
    }

    @Test
    void killFailsCommandsAndRestartServesAgainOnTheSamePort() {
        try (RedisServerProcess redis = RedisServerProcess.start()) {
            int port = redis.port();
            RedisClient client = RedisClient.create(resources, uri(redis.redisUri(), Duration.ofMillis(500)));
            try (StatefulRedisConnection<String, String> connection = client.connect()) {
                RedisCommands<String, String> commands = connection.sync();
                commands.set("key", "before");

                redis.kill();
                assertThat(redis.isRunning()).isFalse();
                assertThatThrownBy(() -> commands.get("key")).isInstanceOf(RedisException.class);

                redis.restart();
                assertThat(redis.isRunning()).isTrue();
                assertThat(redis.port()).isEqualTo(port);
                // The restarted server is empty: nothing is persisted. The client may still be reconnecting.
                await().atMost(Duration.ofSeconds(5))
                    .ignoreExceptionsInstanceOf(RedisException.class)
                    .untilAsserted(() -> assertThat(commands.get("key")).isNull());
                commands.set("key", "after");
                assertThat(commands.get("key")).isEqualTo("after");
            }
            finally {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
        }
    }

    @Test
    void clusterServesKeysFromEveryNode() {
        try (RedisClusterProcess cluster = RedisClusterProcess.start()) {
            assertThat(cluster.nodes()).hasSize(3);
            for (RedisServerProcess node : cluster.nodes()) {
                assertThat(node.command("CLUSTER", "INFO")).contains("cluster_state:ok", "cluster_slots_assigned:16384",
                        "cluster_known_nodes:3");
            }
            assertThat(cluster.nodeAddresses()).matches("127\\.0\\.0\\.1:\\d+(,127\\.0\\.0\\.1:\\d+){2}");
            // "b", "c" and "a" hash to slots 3300, 7365 and 15495: one on each node.
            assertThat(Stream.of("b", "c", "a").map(SlotHash::getSlot)).containsExactly(3300, 7365, 15495);

            RedisClusterClient client = RedisClusterClient.create(resources,
                    cluster.redisUris().stream().map((uri) -> uri(uri, Duration.ofSeconds(2))).toList());
            try (StatefulRedisClusterConnection<String, String> connection = client.connect()) {
                RedisAdvancedClusterCommands<String, String> commands = connection.sync();
                for (String key : Set.of("a", "b", "c")) {
                    commands.set(key, "value-" + key);
                }
                for (String key : Set.of("a", "b", "c")) {
                    assertThat(commands.get(key)).isEqualTo("value-" + key);
                }
            }
            finally {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
            assertThat(cluster.nodes().stream().map((node) -> node.command("DBSIZE")).toList())
                .containsExactly("1", "1", "1");
            assertThat(cluster.nodes().get(0).command("GET", "b")).isEqualTo("value-b");

            cluster.flushAll();
            assertThat(cluster.nodes().stream().map((node) -> node.command("DBSIZE")).toList())
                .containsExactly("0", "0", "0");
        }
    }

    @Test
    void frozenProxyMakesCommandsTimeOutUntilThawed() {
        try (RedisServerProcess redis = RedisServerProcess.start();
                FreezableTcpProxy proxy = FreezableTcpProxy.start(redis.port())) {
            RedisClient client = RedisClient.create(resources,
                    uri("redis://127.0.0.1:" + proxy.port(), Duration.ofMillis(200)));
            try (StatefulRedisConnection<String, String> connection = client.connect()) {
                RedisCommands<String, String> commands = connection.sync();
                commands.set("key", "value");
                assertThat(commands.get("key")).isEqualTo("value");

                proxy.freeze();
                assertThatThrownBy(() -> commands.get("key")).isInstanceOf(RedisCommandTimeoutException.class);
                assertThat(connection.isOpen()).isTrue();

                proxy.thaw();
                assertThat(commands.get("key")).isEqualTo("value");
            }
            finally {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
        }
    }

    private static RedisURI uri(String uri, Duration timeout) {
        RedisURI redisUri = RedisURI.create(uri);
        redisUri.setTimeout(timeout);
        return redisUri;
    }

    @Test
    void extensionHandsEveryMethodOfAClassOneServerAndStopsItAfterTheClass() {
        OneServerPerClass.seen.clear();

        EngineTestKit.engine("junit-jupiter")
            .selectors(selectClass(OneServerPerClass.class))
            .execute()
            .testEvents()
            .assertStatistics((stats) -> stats.succeeded(2).failed(0));

        assertThat(OneServerPerClass.seen).hasSize(3)
            .allSatisfy((server) -> assertThat(server).isSameAs(OneServerPerClass.seen.get(0)));
        assertThat(OneServerPerClass.seen.get(0).isRunning()).as("running after the class").isFalse();
    }

    /**
     * {@link TwoInstances}: the first instance of a pair goes through the proxy, which cuts it off alone, and both are
     * closed after the test, before the proxy.
     */
    @Test
    void twoInstancesAreOneBehindTheProxyAndAreClosedAfterTheTest() {
        EngineTestKit.engine("junit-jupiter")
            .selectors(selectClass(TwoInstancesPerTest.class))
            .execute()
            .testEvents()
            .assertStatistics((stats) -> stats.succeeded(1).failed(0));

        assertThat(TwoInstancesPerTest.closed).containsExactly("direct", "behind proxy");
        assertThatThrownBy(() -> new java.net.Socket("127.0.0.1", TwoInstancesPerTest.proxy.get().port()).close())
            .as("the proxy is closed after the test").isInstanceOf(java.io.IOException.class);
    }

    /** Run only through the test kit above. */
    @ExtendWith(RedisServerExtension.class)
    static class TwoInstancesPerTest {

        static final List<String> closed = new CopyOnWriteArrayList<>();

        static final java.util.concurrent.atomic.AtomicReference<FreezableTcpProxy> proxy =
                new java.util.concurrent.atomic.AtomicReference<>();

        @Test
        void cutsOffOnlyTheFirst(TwoInstances two) {
            proxy.set(two.proxy());
            TwoInstances.Pair<Client> pair = two.start(Client::new);
            assertThat(pair.behindProxy().ping()).isEqualTo("PONG");
            assertThat(pair.direct().ping()).isEqualTo("PONG");
            two.proxy().freeze();
            assertThatThrownBy(() -> pair.behindProxy().ping()).isInstanceOf(RedisCommandTimeoutException.class);
            assertThat(pair.direct().ping()).isEqualTo("PONG");
        }

        /** One instance's Redis client, named by how it connects. */
        static final class Client implements AutoCloseable {

            private final String name;
            private final RedisClient client;
            private final StatefulRedisConnection<String, String> connection;

            Client(int port) {
                this.name = (port == proxy.get().port()) ? "behind proxy" : "direct";
                this.client = RedisClient.create(resources, RedisURI.builder().withHost("127.0.0.1").withPort(port)
                    .withTimeout(Duration.ofMillis(300)).build());
                this.connection = client.connect();
            }

            String ping() {
                return connection.sync().ping();
            }

            @Override
            public void close() {
                closed.add(name);
                connection.close();
                client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
            }
        }
    }

    /** Run only through the test kit above (failsafe leaves nested classes out). */
    @ExtendWith(RedisServerExtension.class)
    static class OneServerPerClass {

        static final List<RedisServerProcess> seen = new CopyOnWriteArrayList<>();

        @BeforeAll
        static void before(RedisServerProcess redis) {
            seen.add(redis);
        }

        @Test
        void answers(RedisServerProcess redis) {
            seen.add(redis);
            assertThat(redis.command("PING")).isEqualTo("PONG");
        }

        @Test
        void isTheSameServer(RedisServerProcess redis) {
            seen.add(redis);
            assertThat(redis.isRunning()).isTrue();
        }

    }

}
