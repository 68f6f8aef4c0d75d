package io.bloomguard.redis.engine;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The replay log gives back the adds a loss may have taken, and says when it no longer holds them all: past its size
 * or its age the oldest go, and a loss reaching back to them is then repaired by a rebuild alone.
 */
class ReplayLogTest {

    private final AtomicLong now = new AtomicLong();

    @Test
    void givesBackTheKeysOfEveryAddAfterACountOfOneRecordOnly() {
        ReplayLog log = new ReplayLog(100, Duration.ofHours(1), now::get);
        log.add("meta a.0", 1, List.of(1L, 2L));
        log.add("meta b.0", 1, List.of(99L));
        log.add("meta a.0", 2, List.of(3L));
        log.add("meta a.0", 3, List.of(4L, 5L));

        assertThat(log.after("meta a.0", 1)).containsExactly(3L, 4L, 5L);
        assertThat(log.after("meta a.0", 0)).containsExactly(1L, 2L, 3L, 4L, 5L);
        assertThat(log.holdsAllAfter("meta a.0", 0)).isTrue();
        assertThat(log.keys()).isEqualTo(6);
    }

    @Test
    void pastItsSizeTheOldestGoAndALossReachingBackToThemIsNotWhole() {
        ReplayLog log = new ReplayLog(3, Duration.ofHours(1), now::get);
        log.add("meta a.0", 1, List.of(1L, 2L));
        log.add("meta a.0", 2, List.of(3L));
        log.add("meta a.0", 3, List.of(4L));

        assertThat(log.keys()).isEqualTo(2);
        assertThat(log.after("meta a.0", 0)).containsExactly(3L, 4L);
        assertThat(log.holdsAllAfter("meta a.0", 0)).isFalse();
        assertThat(log.holdsAllAfter("meta a.0", 1)).isTrue();
    }

    @Test
    void pastItsAgeTheOldestGo() {
        ReplayLog log = new ReplayLog(100, Duration.ofSeconds(10), now::get);
        log.add("meta a.0", 1, List.of(1L));
        now.set(Duration.ofSeconds(6).toNanos());
        log.add("meta a.0", 2, List.of(2L));
        now.set(Duration.ofSeconds(11).toNanos());

        assertThat(log.after("meta a.0", 0)).containsExactly(2L);
        assertThat(log.holdsAllAfter("meta a.0", 0)).isFalse();
        assertThat(log.holdsAllAfter("meta a.0", 1)).isTrue();
        assertThat(log.holdsAllAfter("meta b.0", 0)).as("another record let go of nothing").isTrue();
    }
}
