package io.bloomguard.preload;

import org.jspecify.annotations.Nullable;
import org.springframework.util.ClassUtils;

import java.util.Spliterator;
import java.util.Spliterators;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * A {@link ReactiveBloomKeySource} read as a {@link BloomKeySource}, so that the preload and every rebuild treat it
 * as they treat any other source (batches, readiness, failures, the keys a rebuild must read): each {@link #keys()}
 * subscribes afresh, requests at most a batch of keys ahead of those the filter took, and cancels the subscription
 * when the stream is closed (the load finished, failed or was abandoned). Named in the preload's log and errors
 * like a {@link KeySourceBean}.
 *
 * <p>Usage (what the auto-configuration does with each bean): {@code new PublisherKeySource("userIds", source)}
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public final class PublisherKeySource implements BloomKeySource {

    private static final boolean REACTOR_PRESENT = ClassUtils.isPresent("reactor.core.scheduler.Schedulers",
            PublisherKeySource.class.getClassLoader());

    private final @Nullable String beanName;
    private final ReactiveBloomKeySource source;
    /** Keys requested ahead of those taken. */
    private final int demand;

    /** @param beanName the source's bean name; {@code null} when it is not a bean */
    public PublisherKeySource(@Nullable String beanName, ReactiveBloomKeySource source) {
        this(beanName, source, KeySourceFeed.BATCH_SIZE);
    }

    PublisherKeySource(@Nullable String beanName, ReactiveBloomKeySource source, int demand) {
        this.beanName = beanName;
        this.source = source;
        this.demand = demand;
    }

    @Override
    public String filter() {
        return source.filter();
    }

    @Override
    public Stream<?> keys() {
        if (REACTOR_PRESENT && ReactorThreads.mustNotBlock()) {
            // Its keys may well arrive on this very thread: waiting for them here would never end.
            throw new IllegalStateException("Reading a reactive key source waits for its keys, and thread '"
                    + Thread.currentThread().getName() + "' is one of Reactor's non-blocking threads, which must not"
                    + " wait: start the rebuild from another thread (the endpoint, a scheduled rebuild or"
                    + " Schedulers.boundedElastic())");
        }
        PublisherKeyIterator keys = new PublisherKeyIterator(demand);
        source.keys().subscribe(keys);
        return StreamSupport.stream(Spliterators.spliteratorUnknownSize(keys,
                Spliterator.ORDERED | Spliterator.NONNULL), false).onClose(keys::cancel);
    }

    @Override
    public String toString() {
        return (beanName != null) ? "bean '" + beanName + "'" : String.valueOf(source);
    }

    /** Reactor's own test of its threads, in a class of its own so that none of it loads without Reactor. */
    private static final class ReactorThreads {

        static boolean mustNotBlock() {
            return reactor.core.scheduler.Schedulers.isInNonBlockingThread();
        }
    }
}
