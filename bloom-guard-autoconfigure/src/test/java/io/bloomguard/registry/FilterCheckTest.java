package io.bloomguard.registry;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.local.LocalBloomFilter;
import io.bloomguard.testapp.OwnThread;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@link NamedBloomFilter#check} and its forms for many keys and without blocking: each answer, and why an undecided
 * one is undecided, on a local filter.
 */
class FilterCheckTest {

    private static final long PRESENT = 1L;
    private static final long ABSENT = 987_654_321L;

    private final NamedBloomFilter filter = new NamedBloomFilter(
            FilterSpec.builder("ids").expectedSize(1000).errorRate(0.01).growth(GrowthPolicy.NONE).build(),
            LocalBloomFilter.create(FilterSizing.of(1000, 0.01), 7), FilterState.LOADING);

    private final UnkeyedWrites writes = filter.unkeyedWrites();

    @Test
    void aFilterNotYetReadyIsUndecidedForEveryKey() {
        filter.put(PRESENT);

        assertThat(filter.check(ABSENT)).isEqualTo(CheckResult.NOT_READY);
        assertThat(filter.checkAsync(ABSENT, false)).isCompletedWithValue(CheckResult.NOT_READY);
        assertThat(filter.checkAll(List.of(PRESENT, ABSENT)))
                .satisfies(batch -> assertThat(batch.result()).isEqualTo(CheckResult.NOT_READY))
                .satisfies(batch -> assertThat(batch.mightContain()).containsExactly(true, true));
        assertThat(CheckResult.NOT_READY.skipReason()).isEqualTo(SkipReason.NOT_READY);
        assertThat(CheckResult.NOT_READY.mightContain()).isTrue();
    }

    @Test
    void aFailedFilterIsUndecided() {
        filter.finishLoading();
        filter.transitionTo(FilterState.FAILED);

        assertThat(filter.check(ABSENT)).isEqualTo(CheckResult.NOT_READY);
    }

    @Test
    void aKeyOfAnUnsupportedTypeIsRefusedInEveryState() {
        assertThatIllegalArgumentException().as("loading").isThrownBy(() -> filter.check(1.5d));
        assertThatIllegalArgumentException().as("loading, without blocking")
                .isThrownBy(() -> filter.checkAsync(1.5d, false));
        filter.finishLoading();
        assertThatIllegalArgumentException().as("ready").isThrownBy(() -> filter.check(1.5d));
        assertThatIllegalArgumentException().as("ready, many").isThrownBy(() -> filter.checkAll(List.of(1L, 1.5d)));
    }

    @Test
    void aReadyFilterWithNoWriteUnderWayDecides() {
        filter.put(PRESENT);
        filter.finishLoading();

        assertThat(filter.check(PRESENT)).isEqualTo(CheckResult.MIGHT_CONTAIN);
        assertThat(filter.check(ABSENT)).isEqualTo(CheckResult.ABSENT);
        assertThat(filter.checkAsync(ABSENT, false)).as("a local filter's answer is in at once")
                .isCompletedWithValue(CheckResult.ABSENT);
        assertThat(filter.checkAsync(PRESENT, false)).isCompletedWithValue(CheckResult.MIGHT_CONTAIN);
        BatchCheckResult batch = filter.checkAll(List.of(PRESENT, ABSENT));
        assertThat(batch.result()).isEqualTo(CheckResult.ABSENT);
        assertThat(batch.mightContain()).containsExactly(true, false);
        assertThat(filter.checkAll(List.of(PRESENT)).result()).isEqualTo(CheckResult.MIGHT_CONTAIN);
        assertThat(CheckResult.ABSENT.skipReason()).isNull();
        assertThat(CheckResult.ABSENT.mightContain()).isFalse();
    }

    /** The writing thread reads back its own row before its key is in: it is never told the row does not exist. */
    @Test
    void aLookupInsideAWriteOfItsOwnIsUndecided() throws Exception {
        filter.finishLoading();
        UnkeyedWrites.Write write = writes.begin();
        try {
            assertThat(filter.check(ABSENT)).isEqualTo(CheckResult.OWN_WRITE_PENDING);
            assertThat(filter.checkAsync(ABSENT, false)).isCompletedWithValue(CheckResult.OWN_WRITE_PENDING);
            assertThat(filter.checkAll(List.of(PRESENT, ABSENT)).result()).isEqualTo(CheckResult.OWN_WRITE_PENDING);
            assertThat(filter.checkAll(List.of(PRESENT, ABSENT)).mightContain()).containsExactly(true, true);
            assertThat(OwnThread.supply(() -> filter.check(ABSENT)).get(5, TimeUnit.SECONDS))
                    .as("another thread: the write's row is not visible to it").isEqualTo(CheckResult.ABSENT);
        }
        finally {
            write.end();
        }
        assertThat(CheckResult.OWN_WRITE_PENDING.skipReason()).isEqualTo(SkipReason.WRITE_PENDING);
    }

    /** A reactive pipeline that writes to the filter says so: its thread may be anyone's. */
    @Test
    void aPipelineInsideAWriteOfItsOwnIsUndecided() {
        filter.finishLoading();

        assertThat(filter.checkAsync(ABSENT, true)).isCompletedWithValue(CheckResult.OWN_WRITE_PENDING);
        assertThat(filter.checkAll(List.of(ABSENT), true).result()).isEqualTo(CheckResult.OWN_WRITE_PENDING);
    }

    @Test
    void anAbsentKeyWaitsForAVisibleWriteAndIsAskedAgain() throws Exception {
        filter.finishLoading();
        UnkeyedWrites.Write write = writes.beginDetached();

        CompletableFuture<CheckResult> blocking = OwnThread.supply(() -> filter.check(ABSENT));
        CompletableFuture<BatchCheckResult> many = OwnThread.supply(() -> filter.checkAll(List.of(ABSENT)));
        CompletableFuture<CheckResult> async = filter.checkAsync(ABSENT, false);
        assertThat(async).as("waits for the write").isNotDone();

        filter.put(ABSENT); // the write's key
        write.end();

        assertThat(blocking.get(5, TimeUnit.SECONDS)).isEqualTo(CheckResult.MIGHT_CONTAIN);
        assertThat(many.get(5, TimeUnit.SECONDS).result()).isEqualTo(CheckResult.MIGHT_CONTAIN);
        assertThat(async.get(5, TimeUnit.SECONDS)).isEqualTo(CheckResult.MIGHT_CONTAIN);
    }

    @Test
    void anAbsentKeyStaysAbsentOnceTheWriteEndsWithAnotherKey() throws Exception {
        filter.finishLoading();
        UnkeyedWrites.Write write = writes.beginDetached();

        CompletableFuture<CheckResult> blocking = OwnThread.supply(() -> filter.check(ABSENT));
        CompletableFuture<CheckResult> async = filter.checkAsync(ABSENT, false);
        filter.put(PRESENT);
        write.end();

        assertThat(blocking.get(5, TimeUnit.SECONDS)).isEqualTo(CheckResult.ABSENT);
        assertThat(async.get(5, TimeUnit.SECONDS)).isEqualTo(CheckResult.ABSENT);
    }

    @Test
    void aWriteThatOutlastsTheWaitLeavesTheCheckUndecided() throws Exception {
        filter.finishLoading();
        UnkeyedWrites.Write write = writes.beginDetached();
        try {
            CompletableFuture<CheckResult> async = filter.checkAsync(ABSENT, false);
            assertThat(filter.check(ABSENT)).isEqualTo(CheckResult.WRITES_PENDING);
            assertThat(filter.checkAll(List.of(PRESENT, ABSENT)).result()).isEqualTo(CheckResult.WRITES_PENDING);
            assertThat(async.get(5, TimeUnit.SECONDS)).isEqualTo(CheckResult.WRITES_PENDING);
        }
        finally {
            write.end();
        }
        assertThat(CheckResult.WRITES_PENDING.skipReason()).isEqualTo(SkipReason.WRITE_PENDING);
        assertThat(filter.mightContain(ABSENT)).as("once it ended").isFalse();
    }
}
