package io.bloomguard.redis.kind;

import io.bloomguard.redis.port.RedisPort;

import java.util.concurrent.CompletableFuture;

/**
 * One key's check in Redis, as its generation reads it: the command to send, and the answer its reply gives. A reply
 * that finds a bitmap gone answers "might contain", never "absent".
 *
 * <p>Usage: {@code KeyCheck<?> check = view.generation.check(key, events);}
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 *
 * @param <R> the reply
 * @hidden
 */
public interface KeyCheck<R> {

    CompletableFuture<R> send(RedisPort port);

    boolean answer(R reply);

    /** What a check tells its filter besides the answer. */
    interface Events {

        /** A bitmap of {@code seen} is gone: the filter is not ready until rebuilt. */
        void bitmapMissing(Generation seen);

        /** Redis has a layer the check's generation lacks: the view is read again soon. */
        void layerAdded();

        /** Block {@code block} of {@code seen} was read whole, for the near copy. */
        void blockRead(Generation seen, long block, byte[] bytes);

        /** Redis holds every position of {@code key} in {@code seen}, for the near copy. */
        void keyHeld(Generation seen, Object key);
    }
}
