package io.bloomguard.testsupport.redis;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Proves the losses the harness claims are real: a Sentinel-promoted replica, a Cluster replica promoted by takeover
 * and a server restarted from an older RDB file each lack the bits written after the cut, and a cut after which
 * nothing was written is a harness error, not a loss.
 */
@Timeout(60)
class RedisFailoverHarnessIT {

    private static final String BITMAPS = "app:{f}:bits:*";

    @Test
    void sentinelPromotesAReplicaThatLacksWhatThePrimaryWroteAfterTheCut() {
        try (RedisSentinelProcess redis = RedisSentinelProcess.start()) {
            RedisServerProcess oldPrimary = redis.primary();
            RedisServerProcess replica = redis.replica();
            setBits(oldPrimary, 0, 100);
            awaitCaughtUp(replica, oldPrimary);
            redis.cutOffReplica(BITMAPS);
            setBits(oldPrimary, 100, 150);

            LostWrites lost = redis.killPrimaryAndAwaitPromotion();

            assertThat(lost.missingBits()).isEqualTo(50);
            assertThat(redis.primary()).isSameAs(replica);
            assertThat(replica.command("BITCOUNT", "app:{f}:bits:1")).isEqualTo("100");
            assertThat(oldPrimary.isRunning()).isFalse();
            redis.rejoinOldPrimary();
            assertThat(redis.replica()).isSameAs(oldPrimary);
            assertThat(oldPrimary.command("BITCOUNT", "app:{f}:bits:1")).isEqualTo("100");
        }
    }

    @Test
    void aCutAfterWhichNothingWasWrittenIsAHarnessErrorNotALoss() {
        try (RedisSentinelProcess redis = RedisSentinelProcess.start()) {
            setBits(redis.primary(), 0, 100);
            redis.cutOffReplica(BITMAPS);

            assertThatThrownBy(redis::killPrimaryAndAwaitPromotion).isInstanceOf(AssertionError.class)
                .hasMessageStartingWith("Harness error: the loss was not produced");
            assertThat(redis.primary().isRunning()).as("the primary, not killed").isTrue();
        }
    }

    @Test
    void aServerRestartedFromAnOlderRdbFileLacksWhatItWroteAfterTheSave() {
        try (RedisServerProcess redis = RedisServerProcess.start()) {
            setBits(redis, 0, 100);
            RdbRollback rollback = RdbRollback.save(redis, BITMAPS);
            setBits(redis, 100, 120);

            LostWrites lost = rollback.killAndRestart();

            assertThat(lost.missingBits()).isEqualTo(20);
            assertThat(redis.command("BITCOUNT", "app:{f}:bits:1")).isEqualTo("100");
            redis.restart();
            assertThat(redis.command("DBSIZE")).as("keys after a plain restart").isEqualTo("0");
        }
    }

    @Test
    void aClusterReplicaTakesOverItsKilledMastersSlotsWithoutWhatItMissed() {
        try (RedisClusterProcess cluster = RedisClusterProcess.startWithReplicas()) {
            int slot = Integer.parseInt(cluster.nodes().get(0).command("CLUSTER", "KEYSLOT", BITMAPS));
            int shard = slot < 5461 ? 0 : (slot < 10923 ? 1 : 2);
            RedisServerProcess master = cluster.nodes().get(shard);
            RedisServerProcess replica = cluster.replicas().get(shard);
            setBits(master, 0, 100);
            awaitCaughtUp(replica, master);
            cluster.cutOffReplicaOf(BITMAPS);
            setBits(master, 100, 130);

            LostWrites lost = cluster.killMasterAndTakeOver();

            assertThat(lost.missingBits()).isEqualTo(30);
            assertThat(cluster.nodes().get(shard)).isSameAs(replica);
            assertThat(replica.command("BITCOUNT", "app:{f}:bits:1")).isEqualTo("100");
            assertThat(master.isRunning()).isFalse();
        }
    }

    /**
     * The cut may also drop what the replica has received but not read yet, so a test that counts its bits waits
     * until it has processed all its primary wrote.
     */
    private static void awaitCaughtUp(RedisServerProcess replica, RedisServerProcess primary) {
        long written = offset(primary, "master_repl_offset");
        await("replica on port " + replica.port() + " caught up").atMost(Duration.ofSeconds(10))
            .pollInterval(Duration.ofMillis(10))
            .until(() -> offset(replica, "slave_repl_offset") >= written);
    }

    private static long offset(RedisServerProcess server, String field) {
        String info = server.command("INFO", "replication");
        int start = info.indexOf(field + ":") + field.length() + 1;
        return Long.parseLong(info.substring(start, info.indexOf('\r', start)));
    }

    private static void setBits(RedisServerProcess server, int from, int to) {
        for (int bit = from; bit < to; bit++) {
            server.command("SETBIT", "app:{f}:bits:1", String.valueOf(bit), "1");
        }
    }

}
