package io.bloomguard.autoconfigure;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code bloom-guard.redis.rebuild-grace: 0} is allowed (a deployment whose keys all go in after their commit needs
 * no grace), but a write inside a transaction may then be missing from a rebuilt filter: startup says so.
 */
@ExtendWith(OutputCaptureExtension.class)
class RebuildGraceWarningTest {

    @Test
    void aZeroGraceIsTakenWithAWarningThatSaysWhatItRisks(CapturedOutput output) {
        RedisBackendProperties redis = new RedisBackendProperties();
        redis.setRebuildGrace(Duration.ZERO);
        assertThat(RedisSettingsResolver.resolve(redis).rebuildGrace()).isZero();
        assertThat(output).contains("bloom-guard.redis.rebuild-grace is 0")
            .contains("missing from the rebuilt filter");
    }

    @Test
    void theDefaultGraceSaysNothing(CapturedOutput output) {
        assertThat(RedisSettingsResolver.resolve(new RedisBackendProperties()).rebuildGrace())
            .isEqualTo(Duration.ofSeconds(1));
        assertThat(output).doesNotContain("rebuild-grace is 0");
    }
}
