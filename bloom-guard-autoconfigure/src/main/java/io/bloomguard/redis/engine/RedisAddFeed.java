package io.bloomguard.redis.engine;

import io.bloomguard.redis.port.RedisPort;
import io.bloomguard.redis.port.RedisSubscriber;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The adds of every filter whose near copy reads in order, as Redis processed them: one subscriber connection for the
 * backend's filters, each filter's shard channels routed to its copy ({@link RedisNearCopy}), and the barrier that
 * lets a copy answer "absent".
 *
 * <p>The barrier: a {@code PING} sent on the subscriber connection after a lookup began comes back after every add
 * Redis processed before it was published, and applied. Lookups share it: while one is in flight, those that arrive
 * wait together for the next, sent when it returns, so a flood costs one round trip per window rather than one per key.
 *
 * <p>The epoch counts subscriber connections: it moves on whenever the connection drops (messages may have been lost
 * then), and a copy answers only within the epoch it was read whole in ({@link #subscribe}).
 *
 * <p>Usage: {@code long epoch = feed.subscribe(channels, handler, timeout); ... feed.barrier().get(); if (feed.epoch()
 * == epoch) ...}
 */
final class RedisAddFeed implements RedisSubscriber.Listener {

    private static final Log logger = LogFactory.getLog(RedisAddFeed.class);

    private final Supplier<RedisPort> port;
    private final Map<String, Consumer<byte[]>> handlers = new ConcurrentHashMap<>();
    private final AtomicLong epoch = new AtomicLong();
    /** Guards the fields below; never held across a wait. */
    private final ReentrantLock lock = new ReentrantLock();
    /** One opening of a subscriber connection at a time. */
    private final ReentrantLock opening = new ReentrantLock();
    private volatile @Nullable RedisSubscriber subscriber;
    /** Why there is none: this client cannot subscribe. */
    private volatile @Nullable String unsupported;
    private volatile boolean dropped;
    private boolean closed;
    /** The barriers of each subscriber connection ({@link RedisSubscriber#connectionOf}); guarded by the lock. */
    private final Map<String, RedisBarrierRounds> rounds = new java.util.HashMap<>();

    public RedisAddFeed(Supplier<RedisPort> port) {
        this.port = port;
    }

    /** The current subscriber connection's number: a copy read whole in another epoch may lack adds. */
    long epoch() {
        return epoch.get();
    }

    /**
     * Routes {@code channels} to {@code handler} and subscribes to them, opening the subscriber connection (again) if
     * needed, and waits for Redis to confirm.
     *
     * @return the epoch in which every channel is subscribed: adds Redis processes from now on reach the handler
     * @throws IllegalStateException when this client cannot subscribe, or the connection dropped meanwhile
     */
    long subscribe(List<String> channels, Consumer<byte[]> handler, Duration timeout) {
        channels.forEach(channel -> handlers.put(channel, handler));
        RedisSubscriber current = open();
        long at = epoch.get();
        try {
            current.subscribe(channels).get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        }
        catch (ExecutionException | TimeoutException ex) {
            throw new IllegalStateException("subscribing to " + channels + " failed: " + ex.getMessage(), ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while subscribing", ex);
        }
        if (epoch.get() != at || current != subscriber) {
            throw new IllegalStateException("the subscriber connection dropped while subscribing");
        }
        return at;
    }

    /** Why copies cannot read in order here, or {@code null} when they can (or have not tried yet). */
    @Nullable String unsupported() {
        return unsupported;
    }

    /**
     * A barrier sent after this call on the connection that carries {@code channel}: {@code true} once every add Redis
     * processed before it has reached the handlers, {@code false} when the subscriber connection dropped first
     * (messages may have been lost).
     */
    CompletableFuture<Boolean> barrier(String channel) {
        lock.lock();
        try {
            RedisSubscriber current = subscriber;
            if (current == null || dropped) {
                return CompletableFuture.completedFuture(false);
            }
            return rounds.computeIfAbsent(current.connectionOf(channel), connection -> new RedisBarrierRounds(lock, epoch))
                    .barrier(current, channel);
        }
        finally {
            lock.unlock();
        }
    }

    /**
     * {@link #barrier}, sent at once on its own rather than after the one in flight: a lease runs from before its
     * barrier was sent, so a barrier that first waits out another's round trip would grant a lease half spent.
     */
    CompletableFuture<Boolean> barrierNow(String channel) {
        RedisSubscriber current;
        long at;
        lock.lock();
        try {
            current = subscriber;
            at = epoch.get();
            if (current == null || dropped) {
                return CompletableFuture.completedFuture(false);
            }
        }
        finally {
            lock.unlock();
        }
        return current.ping(channel).handle((pong, failure) -> failure == null && epoch.get() == at);
    }

    /** The command the add scripts publish with for the subscriber connection open now. */
    String publishCommand() {
        RedisSubscriber current = subscriber;
        if (current == null) {
            throw new IllegalStateException("no subscriber connection");
        }
        return current.publishCommand();
    }

    @Override
    public void message(String channel, byte[] payload) {
        Consumer<byte[]> handler = handlers.get(channel);
        if (handler != null) {
            handler.accept(payload);
        }
    }

    @Override
    public void disconnected() {
        epoch.incrementAndGet();
        List<CompletableFuture<Boolean>> unanswered = new java.util.ArrayList<>();
        lock.lock();
        try {
            dropped = true;
            rounds.values().forEach(each -> each.drop(unanswered));
            rounds.clear();
        }
        finally {
            lock.unlock();
        }
        unanswered.forEach(barrier -> barrier.complete(false));
    }

    public void close() {
        RedisSubscriber current;
        lock.lock();
        try {
            closed = true;
            current = subscriber;
            subscriber = null;
        }
        finally {
            lock.unlock();
        }
        disconnected();
        if (current != null) {
            current.close();
        }
    }

    /**
     * The subscriber, opened (again, after a drop) now. Connections are opened and closed outside {@link #lock}: the
     * client's threads take it to report a drop or a barrier's reply.
     */
    private RedisSubscriber open() {
        opening.lock();
        try {
            RedisSubscriber stale;
            lock.lock();
            try {
                if (closed) {
                    throw new IllegalStateException("the Redis backend is closed");
                }
                if (unsupported != null) {
                    throw new IllegalStateException(unsupported);
                }
                if (subscriber != null && !dropped) {
                    return subscriber;
                }
                stale = subscriber;
                subscriber = null;
            }
            finally {
                lock.unlock();
            }
            if (stale != null) {
                epoch.incrementAndGet(); // it may reconnect on its own, but what it missed is lost
                stale.close();
            }
            RedisSubscriber fresh = port.get().subscriber(this);
            if (fresh == null) {
                unsupported = "the Redis client cannot open a subscriber connection for ordered reads (it takes"
                        + " Lettuce, on one server or with Sentinel)";
                logger.info("Near copies leave absent keys to Redis: " + unsupported);
                throw new IllegalStateException(unsupported);
            }
            lock.lock();
            try {
                subscriber = fresh;
                dropped = false;
                if (!closed) {
                    return fresh;
                }
            }
            finally {
                lock.unlock();
            }
            fresh.close();
            throw new IllegalStateException("the Redis backend is closed");
        }
        finally {
            opening.unlock();
        }
    }
}
