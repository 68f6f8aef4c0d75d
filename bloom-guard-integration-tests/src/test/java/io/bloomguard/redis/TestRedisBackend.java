package io.bloomguard.redis;

import io.bloomguard.redis.port.LettuceRedisPort;
import io.bloomguard.redis.port.RedisPort;
import io.bloomguard.testsupport.RedisBackendSettingsBuilder;
import io.bloomguard.testsupport.redis.RedisClusterProcess;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A {@link RedisFilterBackend} over a real server or cluster, as one application instance would have it: its
 * own Lettuce client, reconnecting quickly so that tests of restarts do not wait out Lettuce's backoff.
 */
final class TestRedisBackend implements AutoCloseable {

    /**
     * Quick settings for tests: no rebuild grace, frequent refresh, short lock expiry, and circuit breakers that
     * open on a failure when nothing answered in the 100 ms before it (each of these tests causes one outage and
     * looks at what follows; {@code CircuitBreakerTest} and {@code RedisRecoveryIT} cover the failure rate) and try
     * again after 500 ms.
     */
    static final RedisBackendSettings FAST = RedisBackendSettingsBuilder.from(RedisBackendSettings.defaults())
            .checkTimeout(Duration.ofMillis(200))
            .commandTimeout(Duration.ofSeconds(5))
            .breaker(new RedisBreakerSettings(50, 1, Duration.ofMillis(100), Duration.ofMillis(500)))
            .lockTtl(Duration.ofSeconds(3))
            .refreshInterval(Duration.ofMillis(100))
            .rebuildGrace(Duration.ZERO)
            .build();

    /**
     * {@link #FAST} with a check timeout of 5 s: for the backend contract, which is about answers, not latency. A check
     * that misses 200 ms on a loaded machine (a three-node cluster on two cores, a reader racing a writer) throws, and
     * the suite would fail on the machine's load rather than on a wrong answer.
     */
    static final RedisBackendSettings CONTRACT = RedisBackendSettingsBuilder.from(FAST)
            .checkTimeout(Duration.ofSeconds(5))
            .build();

    private final ClientResources resources;
    private final AbstractRedisClient client;
    private final AtomicBoolean closed = new AtomicBoolean();
    final RedisFilterBackend backend;

    /** The port the backend uses, through which a test acts before chosen commands; null unless asked for. */
    final InterceptingRedisPort port;

    private TestRedisBackend(ClientResources resources, AbstractRedisClient client, RedisBackendSettings settings,
            boolean intercepting) {
        this.resources = resources;
        this.client = client;
        this.port = intercepting ? new InterceptingRedisPort(LettuceRedisPort.connect(client)) : null;
        this.backend = intercepting ? new RedisFilterBackend(() -> port, settings)
                : new RedisFilterBackend(() -> LettuceRedisPort.connect(client), settings);
    }

    private TestRedisBackend(ClientResources resources, AbstractRedisClient client, RedisBackendSettings settings) {
        this(resources, client, settings, false);
    }

    /** A backend whose ports are {@code wrap}'s: each connection the backend opens goes through it. */
    private TestRedisBackend(ClientResources resources, RedisClient client, RedisBackendSettings settings,
            java.util.function.UnaryOperator<RedisPort> wrap) {
        this.resources = resources;
        this.client = client;
        this.port = null;
        this.backend = new RedisFilterBackend(() -> wrap.apply(LettuceRedisPort.connect(client)), settings);
    }

    /** A backend whose subscriber connection hands over messages and barrier replies {@code lag} late. */
    static TestRedisBackend lagging(RedisServerProcess server, RedisBackendSettings settings, Duration lag) {
        ClientResources resources = resources();
        RedisURI uri = RedisURI.builder().withHost("127.0.0.1").withPort(server.port())
                .withTimeout(Duration.ofSeconds(5)).build();
        return new TestRedisBackend(resources, RedisClient.create(resources, uri), settings,
                port -> new LaggingRedisPort(port, lag));
    }

    /** A backend whose commands go through an {@link InterceptingRedisPort}, {@link #port}. */
    static TestRedisBackend intercepting(RedisServerProcess server, RedisBackendSettings settings) {
        ClientResources resources = resources();
        RedisURI uri = RedisURI.builder().withHost("127.0.0.1").withPort(server.port())
                .withTimeout(Duration.ofSeconds(5)).build();
        return new TestRedisBackend(resources, RedisClient.create(resources, uri), settings, true);
    }

    static TestRedisBackend on(RedisServerProcess server, RedisBackendSettings settings) {
        return on(server.port(), settings);
    }

    /** A backend on a port (a server's, or a proxy's in front of it). */
    static TestRedisBackend on(int port, RedisBackendSettings settings) {
        ClientResources resources = resources();
        RedisURI uri = RedisURI.builder().withHost("127.0.0.1").withPort(port).withTimeout(Duration.ofSeconds(5)).build();
        return new TestRedisBackend(resources, RedisClient.create(resources, uri), settings);
    }

    /** A backend that logs in as {@code user} (or, with a {@code null} user, gives only a password). */
    static TestRedisBackend as(RedisServerProcess server, String user, String password,
            RedisBackendSettings settings) {
        ClientResources resources = resources();
        RedisURI.Builder uri = RedisURI.builder().withHost("127.0.0.1").withPort(server.port())
                .withTimeout(Duration.ofSeconds(5));
        uri = (user != null) ? uri.withAuthentication(user, password) : uri.withPassword(password.toCharArray());
        return new TestRedisBackend(resources, RedisClient.create(resources, uri.build()), settings);
    }

    static TestRedisBackend on(RedisClusterProcess cluster, RedisBackendSettings settings) {
        ClientResources resources = resources();
        List<RedisURI> uris = cluster.redisUris().stream().map(RedisURI::create).toList();
        return new TestRedisBackend(resources, RedisClusterClient.create(resources, uris), settings);
    }

    private static ClientResources resources() {
        return ClientResources.builder().reconnectDelay(Delay.constant(Duration.ofMillis(100))).build();
    }

    /** Stops this instance, as a shutdown does; once only, so that a test may stop it before its own cleanup. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        backend.close();
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        resources.shutdown(0, 2, TimeUnit.SECONDS);
    }
}
