package io.bloomguard.redis;

import io.bloomguard.testsupport.redis.LostWrites;
import io.bloomguard.testsupport.redis.RedisSentinelProcess;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two instances save customers without pause on a Redis that Sentinel watches (a primary and one replica), while the
 * replica is cut off (stopped, its link dropped: it misses what the primary acknowledges from then on), the primary is
 * killed ({@code kill -9}) and Sentinel promotes the replica, which lacks those adds. The harness proves the loss
 * (bits the old primary had set that the replica cannot have) or fails.
 */
@Timeout(90)
class RedisSentinelFailoverIT {

    private static final Log logger = LogFactory.getLog(RedisSentinelFailoverIT.class);

    /** What a user may expect after a failover (the 15 s); the measured time is logged. */
    private static final Duration REPAIR_BOUND = Duration.ofSeconds(15);

    /** Clients find the promoted primary through Sentinel within this; a save may fail until then. */
    private static final Duration RECONNECT_GRACE = Duration.ofSeconds(5);

    private RedisSentinelProcess redis;

    private GuardedApplications apps;

    @BeforeEach
    void startRedis() {
        redis = RedisSentinelProcess.start();
        apps = new GuardedApplications("sentinel-failover", "it");
    }

    @AfterEach
    void stopAll() {
        try {
            if (apps != null) {
                apps.close();
            }
        }
        finally {
            if (redis != null) {
                redis.close();
            }
        }
    }

    /**
     * The adds the promoted replica lacks are found lost and repaired: within 15 s of the promotion both instances
     * find every customer saved before, during and after the failover, trusting the filter again. Saves fail, if at
     * all, only while there is no primary, and those roll back.
     */
    @Test
    void everyCustomerSavedIsFoundOnBothInstancesSoonAfterAFailoverToAReplicaThatMissedAdds() throws Exception {
        try (SavingInstances saving = SavingInstances.start(apps, connection(), Map.of())) {
            saving.awaitSaved(100);
            redis.cutOffReplica(bitmaps());
            saving.awaitSaved(100);
            long killedAt = System.nanoTime();
            LostWrites lost = redis.killPrimaryAndAwaitPromotion();
            long promotedAt = System.nanoTime();
            logger.info("Loss proven: " + lost + "; promoted " + millis(promotedAt - killedAt) + " ms after the kill");
            saving.awaitSaved(100);
            saving.stop();

            Duration repaired = saving.awaitEveryCustomerFound(REPAIR_BOUND);
            Duration sincePromotion = Duration.ofNanos(System.nanoTime() - promotedAt);
            logger.info("Sentinel failover: " + lost + "; promoted " + millis(promotedAt - killedAt)
                    + " ms after the kill; " + saving.saved().size() + " customers saved, " + saving.failed().size()
                    + " saves failed; every customer found on both instances " + sincePromotion.toMillis()
                    + " ms after the promotion (the last wait " + repaired.toMillis() + " ms); losses counted: "
                    + saving.lossesCounted());
            assertThat(sincePromotion).as("time from the promotion until both instances found every customer")
                .isLessThanOrEqualTo(REPAIR_BOUND);
            assertThat(saving.failed()).as("saves that failed outside the failover (kill to promotion + "
                    + RECONNECT_GRACE.toSeconds() + " s)")
                .allSatisfy(failure -> assertThat(failure.atNanos()).isBetween(killedAt,
                        promotedAt + RECONNECT_GRACE.toNanos()));
            saving.assertFailedSavesRolledBack();
            assertThat(saving.lossesCounted()).as("bloomguard.redis.losses on the two instances").isPositive();
        }
    }

    /**
     * With {@code wait-for-replicas: 1} no add is acknowledged before the replica has it, so the same failover loses
     * nothing acknowledged: no customer saved is rejected at any time after the promotion, and there is nothing to
     * repair. Saves fail (and roll back) while the replica cannot confirm them: from the cut until the old primary
     * is back as the new primary's replica.
     */
    @Test
    void withWaitForReplicasAFailoverRejectsNoCustomerAndFindsNothingToRepair() throws Exception {
        try (SavingInstances saving = SavingInstances.start(apps, connection(),
                Map.of("bloom-guard.redis.wait-for-replicas", "1", "bloom-guard.redis.wait-timeout", "200ms",
                        "bloom-guard.filters.customers.on-add-failure", "fail"))) {
            saving.awaitSaved(100);
            long cutAt = System.nanoTime();
            redis.cutOffReplica(bitmaps());
            awaitSavesTried(saving, 20);
            LostWrites lost = redis.killPrimaryAndAwaitPromotion();
            assertNoneRejected(saving, "after the promotion");
            redis.rejoinOldPrimary();
            long rejoinedAt = System.nanoTime();
            saving.awaitSaved(100);
            saving.stop();
            assertNoneRejected(saving, "after the old primary rejoined as a replica");

            logger.info("Sentinel failover with wait-for-replicas 1: " + lost + "; " + saving.saved().size()
                    + " customers saved, " + saving.failed().size() + " saves failed; losses counted: "
                    + saving.lossesCounted());
            assertThat(saving.failed()).as("saves that failed outside the cut (cut to rejoin + "
                    + RECONNECT_GRACE.toSeconds() + " s)")
                .allSatisfy(failure -> assertThat(failure.atNanos()).isBetween(cutAt,
                        rejoinedAt + RECONNECT_GRACE.toNanos()));
            saving.assertFailedSavesRolledBack();
            assertThat(saving.allTrusted()).as("both instances trust the filter").isTrue();
            assertThat(saving.lossesCounted()).as("bloomguard.redis.losses: nothing acknowledged was lost").isZero();
        }
    }

    /** Sweeps every customer saved through both guards for a second: not one may be rejected. */
    private static void assertNoneRejected(SavingInstances saving, String when) {
        long until = System.nanoTime() + Duration.ofSeconds(1).toNanos();
        do {
            Map<String, List<Long>> rejected = saving.rejectedNow();
            assertThat(rejected.values()).as("customers saved that an instance rejected " + when + ": " + rejected)
                .allSatisfy(ids -> assertThat(ids).isEmpty());
        }
        while (System.nanoTime() < until);
    }

    /** Waits until the instances have tried {@code count} more saves, whether they succeeded or not. */
    private static void awaitSavesTried(SavingInstances saving, int count) {
        int target = saving.saved().size() + saving.failed().size() + count;
        await(count + " more saves tried").atMost(Duration.ofSeconds(20))
            .until(() -> saving.saved().size() + saving.failed().size() >= target);
    }

    private Map<String, String> connection() {
        return Map.of("spring.data.redis.sentinel.master", redis.masterName(), "spring.data.redis.sentinel.nodes",
                redis.sentinelNodes());
    }

    private String bitmaps() {
        return apps.keyPrefix() + "{customers}:bits:*";
    }

    private static long millis(long nanos) {
        return Duration.ofNanos(nanos).toMillis();
    }
}
