package io.bloomguard.redis.write;

import io.bloomguard.redis.client.RedisFilterCommands;
import io.bloomguard.redis.layout.RedisCounterScripts;
import io.bloomguard.redis.state.RedisFilterIdentity;
import io.bloomguard.redis.state.RedisFilterKeys;
import io.bloomguard.redis.state.RedisFilterView;
import io.bloomguard.redis.state.RedisStoredState;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Takes keys back from a counting filter in Redis: one {@link RedisCounterScripts#REMOVE} per key, on the live
 * generation only. Not on a generation being built: its key source read may or may not hold the key, and a remove
 * of a key it never counted would take counts that belong to other keys; the key stays in the new generation as a
 * false positive until the next rebuild. Nor are removes buffered while Redis does not answer: a remove that is lost
 * only leaves a false positive.
 *
 * <p>Usage: {@code boolean removed = removal.remove(42L);}
 */
public final class RedisCounterRemoval {

    private static final int ATTEMPTS = 3;

    private final RedisFilterKeys keys;
    private final RedisStoredState state;
    private final RedisFilterCommands commands;

    public RedisCounterRemoval(RedisFilterKeys keys, RedisStoredState state, RedisFilterCommands commands) {
        this.keys = keys;
        this.state = state;
        this.commands = commands;
    }

    /**
     * Takes one put of {@code key} back.
     *
     * @return {@code true} when its counts were taken back; {@code false} when one of its counters is zero (it is
     * certainly not in), or there is no live counting generation to take it from (loading, gone, or a plain filter
     * stored under the name), which changes nothing
     * @throws io.bloomguard.redis.port.RedisUnavailableException when Redis does not answer
     */
    public boolean remove(Object key) {
        return remove(key, "");
    }

    /**
     * {@link #remove(Object)} for a row whose delete began at build epoch {@code epoch}: nothing changes once Redis
     * holds another (see {@link RedisCounterScripts#REMOVE}).
     */
    public boolean removeAt(Object key, long epoch) {
        return remove(key, Long.toString(epoch));
    }

    private boolean remove(Object key, String epoch) {
        String id = UUID.randomUUID().toString(); // one per remove, sent again with each attempt
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            RedisFilterView current = state.view();
            RedisFilterIdentity live = current.live;
            if (live == null || !live.counting()) {
                return false;
            }
            RedisFilterIdentity.KeyBits located = live.locate(key);
            List<String> args = new ArrayList<>(2 + located.offsets().length);
            args.add(live.fingerprint());
            args.add(epoch);
            for (long offset : located.offsets()) {
                args.add(Long.toString(offset));
            }
            List<String> names = List.of(keys.meta(located.shard()), current.liveKeys[located.shard()],
                    keys.adds(located.shard()), keys.removal(located.shard(), id));
            long answer = (Long) commands.call(port -> port.eval(RedisCounterScripts.REMOVE, names, args));
            if (answer == -1) {
                state.bitmapMissing(current);
                return false;
            }
            if (answer != -2) {
                return answer == 1;
            }
            state.refresh(); // the live generation was swapped since this instance last looked
        }
        return false;
    }
}
