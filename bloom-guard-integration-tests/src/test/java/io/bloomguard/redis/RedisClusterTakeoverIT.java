package io.bloomguard.redis;

import io.bloomguard.testsupport.redis.LostWrites;
import io.bloomguard.testsupport.redis.RedisClusterProcess;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two instances save customers without pause on a Redis Cluster whose masters have a replica each, while the replica
 * of the master that holds the filter is cut off (stopped, its link dropped), the master is killed ({@code kill -9})
 * and the replica promoted with {@code CLUSTER FAILOVER TAKEOVER}: it owns the filter's slot without the adds it
 * missed. The harness proves the loss (bits the old master had set that the replica cannot have) or fails.
 */
@Timeout(90)
class RedisClusterTakeoverIT {

    private static final Log logger = LogFactory.getLog(RedisClusterTakeoverIT.class);

    private static final Duration REPAIR_BOUND = Duration.ofSeconds(15);

    /** Clients find the slot's new owner at their next topology refresh; a save may fail until then. */
    private static final Duration RECONNECT_GRACE = Duration.ofSeconds(5);

    private RedisClusterProcess cluster;

    private GuardedApplications apps;

    @BeforeEach
    void startCluster() {
        cluster = RedisClusterProcess.startWithReplicas();
        apps = new GuardedApplications("cluster-takeover", "it");
    }

    @AfterEach
    void stopAll() {
        try {
            if (apps != null) {
                apps.close();
            }
        }
        finally {
            if (cluster != null) {
                cluster.close();
            }
        }
    }

    /**
     * The adds the promoted replica lacks are found lost and repaired: within 15 s of the takeover both instances
     * find every customer saved before, during and after it, trusting the filter again.
     */
    @Test
    void everyCustomerSavedIsFoundOnBothInstancesSoonAfterATakeoverByAReplicaThatMissedAdds() throws Exception {
        // Lettuce learns the new owner of the slot at its next topology refresh. A refresh waits for every node's
        // answer up to spring.data.redis.timeout (60 s when unset), so the dead master held it up for a minute.
        Map<String, String> connection = Map.of("spring.data.redis.cluster.nodes", cluster.nodeAddresses(),
                "spring.data.redis.lettuce.cluster.refresh.period", "200ms",
                "spring.data.redis.lettuce.cluster.refresh.adaptive", "true", "spring.data.redis.timeout", "2s");
        try (SavingInstances saving = SavingInstances.start(apps, connection, Map.of())) {
            saving.awaitSaved(100);
            cluster.cutOffReplicaOf(apps.keyPrefix() + "{customers}:bits:*");
            saving.awaitSaved(100);
            long killedAt = System.nanoTime();
            LostWrites lost = cluster.killMasterAndTakeOver();
            logger.info("Loss proven: " + lost);
            long promotedAt = System.nanoTime();
            saving.awaitSaved(100);
            saving.stop();

            Duration lastWait = saving.awaitEveryCustomerFound(REPAIR_BOUND);
            Duration sincePromotion = Duration.ofNanos(System.nanoTime() - promotedAt);
            logger.info("Cluster takeover: " + lost + "; promoted " + Duration.ofNanos(promotedAt - killedAt).toMillis()
                    + " ms after the kill; " + saving.saved().size() + " customers saved, " + saving.failed().size()
                    + " saves failed; every customer found on both instances " + sincePromotion.toMillis()
                    + " ms after the takeover (the last wait " + lastWait.toMillis() + " ms); losses counted: "
                    + saving.lossesCounted());
            assertThat(sincePromotion).as("time from the takeover until both instances found every customer")
                .isLessThanOrEqualTo(REPAIR_BOUND);
            assertThat(saving.failed()).as("saves that failed outside the takeover (kill to takeover + "
                    + RECONNECT_GRACE.toSeconds() + " s)")
                .allSatisfy(failure -> assertThat(failure.atNanos()).isBetween(killedAt,
                        promotedAt + RECONNECT_GRACE.toNanos()));
            saving.assertFailedSavesRolledBack();
            assertThat(saving.lossesCounted()).as("bloomguard.redis.losses on the two instances").isPositive();
        }
    }
}
