package io.bloomguard.redis.engine;

import io.bloomguard.redis.port.RedisSubscriber;
import org.jspecify.annotations.Nullable;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The barriers of one subscriber connection of a {@link RedisAddFeed}: one in flight, and the next, for the lookups
 * that came after it, so that a flood of lookups costs one round trip per window rather than one per key.
 *
 * <p>Usage (under the feed's lock): {@code CompletableFuture<Boolean> passed = rounds.barrier(subscriber, channel);}
 */
final class RedisBarrierRounds {

    /** The feed's lock, which every method but the constructor runs under or takes. */
    private final ReentrantLock lock;
    /** The feed's subscriber connections, counted: a barrier answered in another epoch did not pass. */
    private final AtomicLong epoch;
    private @Nullable CompletableFuture<Boolean> inFlight;
    private @Nullable CompletableFuture<Boolean> waiting;

    RedisBarrierRounds(ReentrantLock lock, AtomicLong epoch) {
        this.lock = lock;
        this.epoch = epoch;
    }

    /** Under the lock. */
    CompletableFuture<Boolean> barrier(RedisSubscriber current, String channel) {
        if (inFlight == null) {
            return send(current, channel);
        }
        if (waiting == null) {
            waiting = new CompletableFuture<>();
        }
        return waiting;
    }

    /** Under the lock: hands over what is unanswered, to be told {@code false}. */
    void drop(List<CompletableFuture<Boolean>> unanswered) {
        if (inFlight != null) {
            unanswered.add(inFlight);
        }
        if (waiting != null) {
            unanswered.add(waiting);
        }
        inFlight = null;
        waiting = null;
    }

    /** Sends a barrier as the one in flight. Under the lock. */
    private CompletableFuture<Boolean> send(RedisSubscriber current, String channel) {
        CompletableFuture<Boolean> round = new CompletableFuture<>();
        inFlight = round;
        long at = epoch.get();
        CompletableFuture<Void> pong;
        try {
            pong = current.ping(channel);
        }
        catch (RuntimeException ex) {
            inFlight = null;
            round.completeExceptionally(ex);
            return round;
        }
        pong.whenComplete((ok, failure) -> answered(round, at, failure, current, channel));
        return round;
    }

    /** A barrier came back (or failed): the next goes out for the lookups waiting, then this one's are told. */
    private void answered(CompletableFuture<Boolean> round, long sentAt, @Nullable Throwable failure,
            RedisSubscriber current, String channel) {
        lock.lock();
        try {
            if (inFlight == round) {
                inFlight = null;
                CompletableFuture<Boolean> next = waiting;
                waiting = null;
                if (next != null) {
                    send(current, channel).whenComplete((passed, error) -> {
                        if (error != null) {
                            next.completeExceptionally(error);
                        }
                        else {
                            next.complete(passed);
                        }
                    });
                }
            }
        }
        finally {
            lock.unlock();
        }
        if (failure != null) {
            round.completeExceptionally(failure);
        }
        else {
            round.complete(epoch.get() == sentAt);
        }
    }
}
