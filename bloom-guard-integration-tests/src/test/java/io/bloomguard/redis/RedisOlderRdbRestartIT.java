package io.bloomguard.redis;

import io.bloomguard.testsupport.redis.LostWrites;
import io.bloomguard.testsupport.redis.RdbRollback;
import io.bloomguard.testsupport.redis.RedisServerProcess;
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
 * Two instances save customers without pause while Redis is saved to an RDB file, takes more adds, is killed
 * ({@code kill -9}) and restarted on the same port from that file: it comes back with its bitmap, without the adds it
 * acknowledged after the save. The harness proves the loss (bits set after the save) or fails.
 */
@Timeout(60)
class RedisOlderRdbRestartIT {

    private static final Log logger = LogFactory.getLog(RedisOlderRdbRestartIT.class);

    private static final Duration REPAIR_BOUND = Duration.ofSeconds(15);

    private RedisServerProcess redis;

    private GuardedApplications apps;

    @BeforeEach
    void startRedis() {
        redis = RedisServerProcess.start();
        apps = new GuardedApplications("older-rdb", "it");
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
     * The adds the old file lacks are found lost and repaired: within 15 s of the restart both instances find every
     * customer saved, trusting the filter again, and no save failed.
     */
    @Test
    void afterARestartFromAnOlderRdbFileNoCustomerSavedIsRejected() throws Exception {
        try (SavingInstances saving = SavingInstances.start(apps,
                Map.of("spring.data.redis.host", redis.host(), "spring.data.redis.port", String.valueOf(redis.port())),
                Map.of())) {
            saving.awaitSaved(100);
            RdbRollback rollback = RdbRollback.save(redis, apps.keyPrefix() + "{customers}:bits:*");
            saving.awaitSaved(100);
            LostWrites lost = rollback.killAndRestart();
            logger.info("Loss proven: " + lost);
            long restartedAt = System.nanoTime();
            saving.awaitSaved(100);
            saving.stop();

            Duration lastWait = saving.awaitEveryCustomerFound(REPAIR_BOUND);
            Duration sinceRestart = Duration.ofNanos(System.nanoTime() - restartedAt);
            logger.info("Restart from an older RDB file: " + lost + "; " + saving.saved().size() + " customers saved, "
                    + saving.failed().size() + " saves failed; every customer found on both instances "
                    + sinceRestart.toMillis() + " ms after the restart (the last wait " + lastWait.toMillis()
                    + " ms); losses counted: " + saving.lossesCounted());
            assertThat(sinceRestart).as("time from the restart until both instances found every customer")
                .isLessThanOrEqualTo(REPAIR_BOUND);
            assertThat(saving.failed()).as("saves that failed").isEmpty();
            saving.assertFailedSavesRolledBack();
            assertThat(saving.lossesCounted()).as("bloomguard.redis.losses on the two instances").isPositive();
        }
    }
}
