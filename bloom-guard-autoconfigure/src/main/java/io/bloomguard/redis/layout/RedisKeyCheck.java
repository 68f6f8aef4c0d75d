package io.bloomguard.redis.layout;

import io.bloomguard.redis.port.RedisPort;
import io.bloomguard.redis.state.RedisFilterView;

import java.util.concurrent.CompletableFuture;

/**
 * One key's check in Redis, as its layout reads it: the command to send, and the answer its reply gives. A reply
 * that finds a bitmap gone answers "might contain", never "absent".
 *
 * <p>Usage: {@code RedisKeyCheck<?> check = live.layout().check(view, key, events);}
 *
 * @param <R> the reply
 */
public interface RedisKeyCheck<R> {

    CompletableFuture<R> send(RedisPort port);

    boolean answer(R reply);

    /** What a check tells its filter besides the answer. */
    interface Events {

        /** A bitmap of {@code view} is gone: the filter is not ready until rebuilt. */
        void bitmapMissing(RedisFilterView view);

        /** Redis has a layer the check's view lacks: the view is read again soon. */
        void layerAdded();

        /** Block {@code block} of {@code view}'s live generation was read whole, for the near copy. */
        void blockRead(RedisFilterView view, long block, byte[] bytes);
    }
}
