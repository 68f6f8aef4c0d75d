package io.bloomguard.guard;

import io.bloomguard.registry.NamedBloomFilter;
import io.bloomguard.registry.UnkeyedWrites;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;
import reactor.util.context.ContextView;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One subscription to a reactive {@code @BloomPut} write ({@link ReactiveKeyedWrite}), watched from inside its
 * transaction: told whether it runs in one, how it ended, and how the transaction ended.
 *
 * <p>Its pipeline is marked as writing to the filter; with no transaction around it each statement commits at once,
 * so the write counts as {@linkplain UnkeyedWrites unkeyed} while it runs. A subscription that fails or is cancelled
 * before it delivers puts a key its arguments hold by now; otherwise, in a transaction, the outcome waits for its end
 * (a cancelled reactive transaction rolls back), and with none a cancelled write may go on writing, so the filter is
 * marked at once; a failure is taken as a write that did not happen. A value or {@code Flux} element that arrives with
 * a {@code null} key (or a key from the arguments still {@code null} at the end) is a row whose key is lost the same
 * way, once its transaction commits (at once without one).
 */
final class KeyedWriteSubscription {

    private static final String FLUX_FIX = "Key the @BloomPut on a value known before the insert, or deliver what"
            + " the database holds (read the rows back)";

    private final KeyedWrite write;
    private final String publisher;
    private volatile boolean inTransaction;
    private final AtomicBoolean over = new AtomicBoolean();
    private final AtomicInteger deliveredWithoutKey = new AtomicInteger();
    private volatile @Nullable String endedWithoutKey;
    /** The filter's build epoch when the subscription began, before any of its puts. */
    private final long epoch;
    /** The keys put in its transaction: put again once it commits if a rebuild began since ({@link #epoch}). */
    private final List<Object> keysPut = new ArrayList<>();

    KeyedWriteSubscription(KeyedWrite write, String publisher) {
        this.write = write;
        this.publisher = publisher;
        this.epoch = write.put().buildEpoch();
    }

    /** Keys (a key, or a collection or array of them) put from what the write delivered. */
    void put(@Nullable Object keys) {
        if (keys != null && inTransaction) {
            synchronized (keysPut) {
                keysPut.add(keys);
            }
        }
    }

    /** Whether a pipeline with this context runs inside a {@code @BloomPut} write to {@code filter}. */
    static boolean writingIn(ContextView context, NamedBloomFilter filter) {
        return context.hasKey(new WritingTo(filter));
    }

    /** Whether the write runs in a transaction, which will then report its end. */
    void inTransaction(boolean inTransaction) {
        this.inTransaction = inTransaction;
    }

    /** The write delivered what it had to: whatever comes after is no interruption. */
    void settled() {
        over.set(true);
    }

    /** The write failed before it settled. */
    void failed() {
        if (over.compareAndSet(false, true)) {
            endedWithoutKey(false);
        }
    }

    /** The write was cancelled before it settled. */
    void cancelled() {
        if (over.compareAndSet(false, true)) {
            endedWithoutKey(true);
        }
    }

    private void endedWithoutKey(boolean cancelled) {
        if (write.putKeyFromArguments()) {
            return;
        }
        if (inTransaction) {
            endedWithoutKey = "its " + publisher + (cancelled ? " was cancelled" : " failed")
                    + " before it gave its key";
        }
        else if (cancelled) {
            write.put().keyUnknown("its " + publisher + " was cancelled before it gave its key, with no transaction to"
                    + " roll back what it may have begun to write", "Make the write @Transactional (a cancelled"
                    + " reactive transaction rolls back), or compute the @BloomPut key from values known before the"
                    + " call");
        }
    }

    /**
     * The write delivered a value (or a {@code Flux} element) whose key is {@code null}, which nothing will fill in
     * for it (a column the database fills in, that the value does not show): its row would lack its key. With no
     * transaction that row is committed already; in one, it is once the transaction commits.
     */
    void deliveredWithoutKey() {
        if (deliveredWithoutKey.getAndIncrement() == 0 && !inTransaction) {
            write.put().keyUnknown("its " + publisher + " delivered a null key, with no transaction to roll back its"
                    + " row", FLUX_FIX);
        }
    }

    /**
     * The transaction the write ran in has ended. Once committed, the keys it put are put again if a rebuild began
     * since: its read of the key source could not see the rows, and the puts reached only the generation it replaced.
     */
    void transactionEnded(boolean committed) {
        if (committed && write.put().rebuiltSince(epoch)) {
            List<Object> again;
            synchronized (keysPut) {
                again = List.copyOf(keysPut);
            }
            again.forEach(write.put()::putKeys);
        }
        String what = endedWithoutKey;
        if (committed && what != null) {
            write.committedWithoutKey(what);
        }
        int withoutKey = deliveredWithoutKey.get();
        if (committed && withoutKey > 0) {
            write.put().keyUnknown(withoutKey + " value(s) of its " + publisher + " had a null key, and the"
                    + " transaction they were written in committed", FLUX_FIX);
        }
    }

    /** Marks the pipeline as writing; outside a transaction its rows may be visible before their keys. */
    Mono<Object> track(Mono<Object> mono) {
        UnkeyedWrites.@Nullable Write unkeyed = open();
        return mono.doFinally(signal -> end(unkeyed)).contextWrite(this::marked);
    }

    Flux<Object> track(Flux<Object> flux) {
        UnkeyedWrites.@Nullable Write unkeyed = open();
        return flux.doFinally(signal -> end(unkeyed)).contextWrite(this::marked);
    }

    private UnkeyedWrites.@Nullable Write open() {
        return inTransaction ? null : write.put().filter().unkeyedWrites().beginDetached();
    }

    private Context marked(Context context) {
        return context.put(new WritingTo(write.put().filter()), Boolean.TRUE);
    }

    private static void end(UnkeyedWrites.@Nullable Write unkeyed) {
        if (unkeyed != null) {
            unkeyed.end();
        }
    }

    /** The context entry that marks a pipeline writing to a filter. */
    private record WritingTo(NamedBloomFilter filter) {
    }
}
