package io.bloomguard.testsupport.redis;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assumptions;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A primary, one replica and one Sentinel watching them, each a {@link RedisServerProcess} on a loopback port, for
 * tests of a failover under an application's writes. The Sentinel ({@code redis-sentinel}, or {@code redis-server
 * --sentinel}) has quorum 1,
 * {@code down-after-milliseconds} 500 and {@code failover-timeout} 2000, so it promotes the replica about a second
 * after the primary dies.
 *
 * <p>Usage: <pre>{@code
 * try (RedisSentinelProcess redis = RedisSentinelProcess.start()) {   // skips the test without Sentinel mode
 *     properties.put("spring.data.redis.sentinel.master", redis.masterName());
 *     properties.put("spring.data.redis.sentinel.nodes", redis.sentinelNodes());
 *     redis.cutOffReplica("app:{users}:bits:*");   // writes from now on reach the primary only
 *     ... write ...
 *     LostWrites lost = redis.killPrimaryAndAwaitPromotion();   // the replica is the primary now, without them
 * }}</pre>
 */
public final class RedisSentinelProcess implements AutoCloseable {

    private static final String MASTER_NAME = "bloomguard";

    private static final Duration PROMOTION_TIMEOUT = Duration.ofSeconds(20);

    /** A primary sends a replica that connects its data at once, not 5 s later in case more come (Redis 7's default). */
    static final String[] NO_SYNC_DELAY = { "--repl-diskless-sync-delay", "0" };

    private final RedisServerProcess sentinel;

    private RedisServerProcess primary;

    private RedisServerProcess replica;

    private @Nullable ReplicaCutOff cutOff;

    private RedisSentinelProcess(RedisServerProcess primary, RedisServerProcess replica, RedisServerProcess sentinel) {
        this.primary = primary;
        this.replica = replica;
        this.sentinel = sentinel;
    }

    /**
     * Starts the primary, a replica in sync with it, and the Sentinel, and waits until the Sentinel knows the
     * replica. Skips the calling test (a JUnit assumption) when this {@code redis-server} cannot run as a Sentinel.
     * @return the running group
     */
    public static RedisSentinelProcess start() {
        Assumptions.assumeTrue(SentinelMode.UNAVAILABLE_BECAUSE == null,
                () -> RedisServerBinary.sentinelPath() + " cannot run as a Sentinel (install Debian's "
                        + "redis-sentinel package): " + SentinelMode.UNAVAILABLE_BECAUSE);
        RedisServerProcess primary = RedisServerProcess.start(NO_SYNC_DELAY);
        @Nullable RedisServerProcess replica = null;
        @Nullable RedisServerProcess sentinel = null;
        try {
            replica = RedisServerProcess.start(NO_SYNC_DELAY[0], NO_SYNC_DELAY[1], "--replicaof", primary.host(),
                    String.valueOf(primary.port()));
            awaitLinkUp(replica);
            sentinel = RedisServerProcess.startSentinel(String.join("\n",
                    "sentinel monitor " + MASTER_NAME + " " + primary.host() + " " + primary.port() + " 1",
                    "sentinel down-after-milliseconds " + MASTER_NAME + " 500",
                    "sentinel failover-timeout " + MASTER_NAME + " 2000", ""));
            RedisServerProcess watching = sentinel;
            String replicaAddress = replica.host() + ":" + replica.port();
            await("Sentinel on port " + sentinel.port() + " knowing the replica").atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(20))
                .untilAsserted(() -> assertThat(watching.command("SENTINEL", "REPLICAS", MASTER_NAME))
                    .contains(replicaAddress));
            return new RedisSentinelProcess(primary, replica, sentinel);
        }
        catch (RuntimeException | AssertionError ex) {
            for (RedisServerProcess started : new RedisServerProcess[] { sentinel, replica, primary }) {
                if (started != null) {
                    started.close();
                }
            }
            throw ex;
        }
    }

    /** Name the Sentinel knows the primary by, for {@code spring.data.redis.sentinel.master}. */
    public String masterName() {
        return MASTER_NAME;
    }

    /** {@code host:port} of the Sentinel, for {@code spring.data.redis.sentinel.nodes}. */
    public String sentinelNodes() {
        return this.sentinel.host() + ":" + this.sentinel.port();
    }

    /** The server that is primary now: the replica once promoted. */
    public synchronized RedisServerProcess primary() {
        return this.primary;
    }

    /** The server that is replica now: after a promotion, the old primary (killed until {@link #rejoinOldPrimary}). */
    public synchronized RedisServerProcess replica() {
        return this.replica;
    }

    /**
     * Stops the replica (SIGSTOP) and has the primary drop its link, so the replica misses every write from now
     * on; {@link #killPrimaryAndAwaitPromotion()} then proves it did.
     * @param bitmapKeys {@code SCAN} pattern of the bitmaps whose bits prove the loss, such as {@code app:{users}:bits:*}
     */
    public synchronized void cutOffReplica(String bitmapKeys) {
        if (this.cutOff != null) {
            throw new IllegalStateException("The replica is cut off already");
        }
        this.cutOff = ReplicaCutOff.cut(this.primary, this.replica, bitmapKeys);
    }

    /**
     * Kills the primary (SIGKILL), resumes the replica and waits until the Sentinel has promoted it: the replica is
     * {@link #primary()} then, and clients that ask the Sentinel are sent to it.
     * @return the proof the promoted replica lacks writes the old primary had
     * @throws AssertionError, as a harness error, when the primary wrote no bit since the cut (nothing lost)
     */
    public synchronized LostWrites killPrimaryAndAwaitPromotion() {
        ReplicaCutOff current = Objects.requireNonNull(this.cutOff, "cutOffReplica(...) first");
        this.cutOff = null;
        LostWrites lost = current.killPrimary();
        RedisServerProcess promoted = this.replica;
        await("Sentinel promoting the replica on port " + promoted.port()).atMost(PROMOTION_TIMEOUT)
            .pollInterval(Duration.ofMillis(20))
            .ignoreExceptions()
            .untilAsserted(() -> {
                // The failover ended: the Sentinel's master is the promoted replica, and nothing is in progress.
                assertThat(this.sentinel.command("SENTINEL", "MASTER", MASTER_NAME))
                    .contains("\nport\n" + promoted.port() + "\n")
                    .contains("\nflags\nmaster\n");
                assertThat(promoted.command("ROLE")).startsWith("master");
            });
        this.replica = this.primary;
        this.primary = promoted;
        return lost;
    }

    /**
     * Starts the killed old primary again, empty, as a replica of the promoted one, as a failed node comes back,
     * and waits until it is in sync.
     */
    public synchronized void rejoinOldPrimary() {
        this.replica.restart();
        this.replica.command("REPLICAOF", this.primary.host(), String.valueOf(this.primary.port()));
        awaitLinkUp(this.replica);
    }

    /** Stops the three servers and deletes their directories. Safe to call more than once. */
    @Override
    public synchronized void close() {
        for (RedisServerProcess server : List.of(this.sentinel, this.replica, this.primary)) {
            try {
                server.close();
            }
            catch (RuntimeException ex) {
                // Close the others anyway: each is a process of its own.
            }
        }
    }

    @Override
    public String toString() {
        return "Redis primary " + this.primary.port() + ", replica " + this.replica.port() + ", Sentinel "
                + this.sentinel.port();
    }

    private static void awaitLinkUp(RedisServerProcess replica) {
        await("replica on port " + replica.port() + " in sync").atMost(Duration.ofSeconds(10))
            .pollInterval(Duration.ofMillis(20))
            .untilAsserted(() -> assertThat(replica.command("INFO", "replication"))
                .contains("master_link_status:up"));
    }

    /** Whether this {@code redis-server} runs as a Sentinel, found once per JVM by starting one. */
    private static final class SentinelMode {

        static final @Nullable String UNAVAILABLE_BECAUSE = probe();

        private static @Nullable String probe() {
            try (RedisServerProcess probe = RedisServerProcess.startSentinel("")) {
                return null;
            }
            catch (RuntimeException ex) {
                return ex.getMessage();
            }
        }

    }

}
