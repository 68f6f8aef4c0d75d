package io.bloomguard.redis.engine;

import io.bloomguard.redis.RedisBreakerSettings;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** When the breaker opens, how soon it tries again, and what closes it; on a clock the test moves. */
class CircuitBreakerTest {

    /** The defaults: 50 % of at least 10 calls in the last 2 s; a trial every 250 ms. */
    private static final EngineSettings.Breaker DEFAULTS = breaker(RedisBreakerSettings.defaults());

    /** The calls' own timeout, after which a trial that never reported lets another go. */
    private static final Duration TIMEOUT = Duration.ofMillis(50);

    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final CircuitBreaker breaker = new CircuitBreaker("checks", DEFAULTS, TIMEOUT, now::get);

    @Test
    void oneSlowCallAmongManyThatAnswerDoesNotOpenIt() {
        succeed(100);
        breaker.onFailure(); // a GC pause made one call miss its timeout
        assertThat(breaker.isOpen()).isFalse();
        assertThat(breaker.tryAcquire()).isTrue();
    }

    @Test
    void failuresAmongCallsThatAnswerDoNotOpenItBeforeTheMinimumNumberOfCalls() {
        succeed(1);
        fail(DEFAULTS.minimumCalls() - 2);
        assertThat(breaker.isOpen()).as("%d failures of %d calls", DEFAULTS.minimumCalls() - 2,
                DEFAULTS.minimumCalls() - 1).isFalse();
        fail(1);
        assertThat(breaker.isOpen()).as("the minimum reached, most calls failed").isTrue();
        assertThat(breaker.tryAcquire()).isFalse();
    }

    /** Little traffic against a dead server: each call waits for its timeout, too few to reach the minimum. */
    @Test
    void twoFailuresAndNoCallAnsweringInTheWindowOpenIt() {
        succeed(50);
        advance(DEFAULTS.window().plusMillis(1));
        fail(1);
        assertThat(breaker.isOpen()).as("one failure, nothing else in the window").isFalse();
        advance(Duration.ofMillis(500));
        fail(1);
        assertThat(breaker.isOpen()).as("two failures, no success in the window").isTrue();
    }

    @Test
    void itOpensWhenHalfTheCallsInTheWindowFail() {
        succeed(10);
        fail(9);
        assertThat(breaker.isOpen()).as("9 failures of 19 calls").isFalse();
        fail(1);
        assertThat(breaker.isOpen()).as("10 failures of 20 calls").isTrue();
    }

    @Test
    void callsOlderThanTheWindowNoLongerCount() {
        succeed(1000); // a busy moment: a failure rate needs as many failures as these to reach 50 %
        advance(DEFAULTS.window().plusMillis(1));
        fail(DEFAULTS.minimumCalls());
        assertThat(breaker.isOpen()).as("the successes are older than the window").isTrue();
    }

    @Test
    void aSteadyMinorityOfFailuresDoesNotOpenIt() {
        for (int i = 0; i < 30; i++) {
            succeed(2);
            fail(1); // a third of the calls fail, steadily
            advance(Duration.ofMillis(100));
        }
        assertThat(breaker.isOpen()).isFalse();
    }

    @Test
    void anOpenBreakerLetsOneTrialThroughAfterTheOpenWaitAndASuccessClosesIt() {
        fail(DEFAULTS.minimumCalls());
        assertThat(breaker.tryAcquire()).isFalse();
        advance(DEFAULTS.openWait().minusMillis(1));
        assertThat(breaker.tryAcquire()).as("before the open wait").isFalse();
        advance(Duration.ofMillis(1));
        assertThat(breaker.tryAcquire()).as("the trial").isTrue();
        assertThat(breaker.tryAcquire()).as("a second call while the trial is out").isFalse();
        advance(DEFAULTS.openWait());
        assertThat(breaker.tryAcquire()).as("an open wait later, while the trial is still out").isFalse();
        breaker.onSuccess();
        assertThat(breaker.isOpen()).isFalse();
        assertThat(breaker.tryAcquire()).isTrue();
    }

    @Test
    void aFailedTrialKeepsItOpenForAnotherOpenWaitOnly() {
        fail(DEFAULTS.minimumCalls());
        advance(DEFAULTS.openWait());
        assertThat(breaker.tryAcquire()).isTrue();
        breaker.onFailure();
        assertThat(breaker.isOpen()).isTrue();
        assertThat(breaker.tryAcquire()).isFalse();
        advance(DEFAULTS.openWait());
        assertThat(breaker.tryAcquire()).as("the next trial, one open wait later").isTrue();
    }

    @Test
    void aTrialThatNeverReportsDoesNotKeepItOpenForGood() {
        fail(DEFAULTS.minimumCalls());
        advance(DEFAULTS.openWait());
        assertThat(breaker.tryAcquire()).isTrue(); // its caller is interrupted: no success, no failure
        advance(TIMEOUT);
        assertThat(breaker.tryAcquire()).as("within the trial's timeout and an open wait").isFalse();
        advance(DEFAULTS.openWait());
        assertThat(breaker.tryAcquire()).isTrue();
    }

    @Test
    void afterClosingItCountsAfresh() {
        fail(DEFAULTS.minimumCalls());
        advance(DEFAULTS.openWait());
        breaker.tryAcquire();
        breaker.onSuccess();
        fail(DEFAULTS.minimumCalls() / 2);
        assertThat(breaker.isOpen()).as("the failures that opened it before are forgotten").isFalse();
    }

    @Test
    void settingsOutOfRangeAreRefused() {
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                .isThrownBy(() -> new RedisBreakerSettings(0, 10, Duration.ofSeconds(2), Duration.ofMillis(250)));
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                .isThrownBy(() -> new RedisBreakerSettings(50, 0, Duration.ofSeconds(2), Duration.ofMillis(250)));
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                .isThrownBy(() -> new RedisBreakerSettings(50, 10, Duration.ZERO, Duration.ofMillis(250)));
    }

    private void succeed(int calls) {
        for (int i = 0; i < calls; i++) {
            breaker.onSuccess();
        }
    }

    private void fail(int calls) {
        for (int i = 0; i < calls; i++) {
            breaker.onFailure();
        }
    }

    private void advance(Duration duration) {
        now.addAndGet(duration.toNanos());
    }

    /** The breaker settings as the backend hands them to the engine. */
    static EngineSettings.Breaker breaker(RedisBreakerSettings settings) {
        return new EngineSettings.Breaker(settings.failureRatePercent(), settings.minimumCalls(), settings.window(),
                settings.openWait());
    }
}
