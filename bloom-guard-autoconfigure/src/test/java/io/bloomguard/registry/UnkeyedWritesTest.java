package io.bloomguard.registry;

import io.bloomguard.testapp.OwnThread;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class UnkeyedWritesTest {

    private final UnkeyedWrites writes = new UnkeyedWrites();

    @Test
    void aWriteInATransactionKeepsOnlyItsOwnThreadFromRejecting() throws Exception {
        UnkeyedWrites.Write write = writes.begin();

        assertThat(writes.writingOnThisThread()).isTrue();
        assertThat(OwnThread.supply(writes::writingOnThisThread).get(5, TimeUnit.SECONDS)).isFalse();
        assertThat(writes.visibleCount()).as("nothing for other threads to wait for").isZero();

        write.end();
        assertThat(writes.writingOnThisThread()).isFalse();
    }

    @Test
    void aLookupWaitsForAVisibleWriteToPutItsKey() throws Exception {
        UnkeyedWrites.Write write = writes.begin();
        write.visible();
        assertThat(writes.visibleCount()).isEqualTo(1);

        CompletableFuture<Boolean> waiting = OwnThread.supply(writes::awaitVisibleWrites);
        assertThat(waiting).as("still waiting while the write runs").isNotDone();
        write.end();

        assertThat(waiting.get(5, TimeUnit.SECONDS)).as("settled once the key is in").isTrue();
        assertThat(writes.visibleCount()).isZero();
    }

    @Test
    void aWriteThatOutlastsTheWaitLetsTheLookupGoThrough() throws Exception {
        UnkeyedWrites.Write write = writes.beginDetached();

        long start = System.nanoTime();
        boolean settled = OwnThread.supply(writes::awaitVisibleWrites).get(5, TimeUnit.SECONDS);

        assertThat(settled).isFalse();
        assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(UnkeyedWrites.MAX_WAIT.toNanos());
        write.end();
    }

    @Test
    void endingTwiceCountsOnce() {
        UnkeyedWrites.Write first = writes.begin();
        UnkeyedWrites.Write second = writes.begin();
        first.visible();
        first.end();
        first.end();

        assertThat(writes.visibleCount()).isZero();
        assertThat(writes.writingOnThisThread()).as("the second write is still open").isTrue();
        second.end();
        assertThat(writes.writingOnThisThread()).isFalse();
    }
}
