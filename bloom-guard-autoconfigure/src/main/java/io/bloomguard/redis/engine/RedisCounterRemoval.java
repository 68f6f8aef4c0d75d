package io.bloomguard.redis.engine;

import io.bloomguard.redis.kind.Generation;
import io.bloomguard.redis.kind.ScriptCall;

import java.util.UUID;

/**
 * Takes keys back from a counting filter in Redis: one remove script per key ({@link Generation#removal}), on the
 * live generation only. Not on a generation being built: its key source read may or may not hold the key, and a remove
 * of a key it never counted would take counts that belong to other keys; the key stays in the new generation as a
 * false positive until the next rebuild. Nor are removes buffered while Redis does not answer: a remove that is lost
 * only leaves a false positive.
 *
 * <p>Usage: {@code boolean removed = removal.remove(42L);}
 */
final class RedisCounterRemoval {

    private static final int ATTEMPTS = 3;

    private final RedisStoredState state;
    private final RedisFilterCommands commands;

    public RedisCounterRemoval(RedisStoredState state, RedisFilterCommands commands) {
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
     * holds another (see {@link Generation#removal}).
     */
    public boolean removeAt(Object key, long epoch) {
        return remove(key, Long.toString(epoch));
    }

    private boolean remove(Object key, String epoch) {
        String id = UUID.randomUUID().toString(); // one per remove, sent again with each attempt
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            RedisFilterView current = state.view();
            Generation live = current.generation;
            ScriptCall removal = (live != null) ? live.removal(key, epoch, id) : null;
            if (removal == null) {
                return false; // nothing live, or a generation that keeps no counts
            }
            long answer = (Long) commands.call(port -> port.eval(removal.script(), removal.keys(), removal.args()));
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
