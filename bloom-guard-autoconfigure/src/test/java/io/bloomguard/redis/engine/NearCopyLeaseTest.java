package io.bloomguard.redis.engine;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The lease's rules on a clock the test moves: from before the barrier, never from a barrier sent before a revoke. */
class NearCopyLeaseTest {

    private static final NearCopyLease.LeaseTimes TIMES = new NearCopyLease.LeaseTimes(Duration.ofMillis(100), 0.01);

    private final AtomicLong clock = new AtomicLong(1_000_000);

    private final NearCopyLease lease = new NearCopyLease(TIMES, clock::get);

    @Test
    void aLeaseRunsFromBeforeItsBarrierWasSentNotFromItsReply() {
        long sentAt = lease.beforeBarrier();
        clock.addAndGet(Duration.ofMillis(60).toNanos()); // the reply takes 60 ms
        assertThat(lease.granted(sentAt, 1)).isTrue();
        NearCopyLease.Held held = lease.hold();
        clock.addAndGet(Duration.ofMillis(39).toNanos());
        assertThat(lease.stillHeld(held)).isTrue();
        clock.addAndGet(Duration.ofMillis(1).toNanos());
        assertThat(lease.stillHeld(held)).as("100 ms after the send, not after the reply").isFalse();
    }

    @Test
    void aBarrierSentBeforeARevokeGrantsNothingHoweverLateItsReply() {
        long sentAt = lease.beforeBarrier();
        clock.incrementAndGet();
        lease.revoke();
        clock.incrementAndGet();
        assertThat(lease.granted(sentAt, 1)).isFalse();
        assertThat(lease.stillHeld(lease.hold())).isFalse();
        long after = lease.beforeBarrier();
        assertThat(lease.granted(after, 2)).as("one sent after the revoke").isTrue();
        assertThat(lease.hold().epoch()).isEqualTo(2);
    }

    @Test
    void anOlderBarrierNeverShortensTheLease() {
        long first = lease.beforeBarrier();
        clock.addAndGet(10);
        long second = lease.beforeBarrier();
        lease.granted(second, 1);
        lease.granted(first, 1);
        assertThat(lease.hold().until()).isEqualTo(second + TIMES.read().toNanos());
    }

    @Test
    void writersWaitLongerThanAnyLeaseLastsOnAClockWithinTheRateBound() {
        // A lease read on a clock 1% slow lasts 100/0.99 ms; a wait on a clock 1% fast lasts write/1.01 ms.
        double longestLease = TIMES.read().toNanos() / (1 - TIMES.clockRate());
        double shortestWait = TIMES.write().toNanos() / (1 + TIMES.clockRate());
        assertThat(shortestWait).isGreaterThanOrEqualTo(longestLease);
        assertThatThrownBy(() -> new NearCopyLease.LeaseTimes(Duration.ofMillis(1), 1.0))
            .hasMessageContaining("clock-rate bound");
    }
}
