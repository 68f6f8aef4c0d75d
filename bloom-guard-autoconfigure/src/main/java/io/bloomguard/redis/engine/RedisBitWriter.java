package io.bloomguard.redis.engine;

import io.bloomguard.redis.kind.AddReply;
import io.bloomguard.redis.kind.Adds;
import io.bloomguard.redis.kind.BlockAdds;
import io.bloomguard.redis.kind.RedisFilterIdentity;
import io.bloomguard.redis.kind.RedisFilterKeys;
import io.bloomguard.redis.kind.RedisKind;
import io.bloomguard.redis.kind.ScriptCall;
import io.bloomguard.redis.port.RedisUnavailableException;

import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Sets keys' bits in Redis: one add script per shard, as the live generation's kind writes them
 * ({@link RedisKind#adds}: a counting filter's increments counters, a layered one's adds into the newest layer),
 * all sent before any reply is awaited, into the live generation and, while one is
 * being built, into the next one too, so that the swap loses none. A script that
 * finds the generations changed since this instance last looked writes nothing (a shard begun or swapped apart from
 * shard 0 is not such a change: see {@link io.bloomguard.redis.kind.RedisScripts#PLACE}); the writer reads the stored state
 * again and retries those keys, up to {@value #WRITE_ATTEMPTS} attempts. The keys are set in the
 * {@link RedisNearCopy} of the live generation as they are sent, so that this instance answers them at once.
 *
 * <p>Usage: {@code Written written = writer.write(keys); if (!written.unplaced().isEmpty()) ...}
 */
final class RedisBitWriter {

    private static final int WRITE_ATTEMPTS = 3;

    private final RedisFilterKeys keys;
    private final RedisStoredState state;
    private final RedisFilterCommands commands;
    /** {@code null} when the filter keeps no copy. */
    private final @Nullable RedisNearCopy nearCopy;
    private final RedisAcknowledgedAdds acks;
    /** With {@code wait-for-replicas}, has each batch wait for the replicas once the primary took it. */
    private final RedisReplicaWait replicaWait;
    /** With {@code redis.near-copy: leased}: reads the lease states behind the adds, for the commit's wait. */
    private final @Nullable RedisLeases leases;

    public RedisBitWriter(RedisFilterKeys keys, RedisStoredState state, RedisFilterCommands commands,
            @Nullable RedisNearCopy nearCopy, RedisAcknowledgedAdds acks, RedisReplicaWait replicaWait,
            @Nullable RedisLeases leases) {
        this.keys = keys;
        this.state = state;
        this.commands = commands;
        this.nearCopy = nearCopy;
        this.acks = acks;
        this.replicaWait = replicaWait;
        this.leases = leases;
    }

    /**
     * Writes the keys.
     *
     * @throws io.bloomguard.redis.port.RedisUnavailableException when Redis does not take them (some may be written),
     *         or, with {@code wait-for-replicas} and {@code on-add-failure: fail}, fewer replicas confirm them
     */
    Written write(List<Object> toWrite) {
        List<Object> remaining = toWrite;
        long changed = 0;
        List<Object> unwritten = new ArrayList<>();
        long notBefore = 0;
        for (int attempt = 1; ; attempt++) {
            RedisFilterView current = state.view();
            RedisFilterIdentity live = current.liveForAdds;
            if (live == null && current.next == null) {
                // This instance's view may lag a build another instance has begun (or finished) since: only Redis
                // can say that no bitmap takes the keys, in one step with a build's announcement, so it is asked.
                // Kept here while one is announced, the keys would be missing from the generation the other
                // instances trust once it is swapped in, until this instance replays them.
                if (!buildAnnounced()) {
                    unwritten.addAll(remaining);
                    return new Written(changed, unwritten, List.of(), later(notBefore, missingWait()));
                }
                if (attempt == WRITE_ATTEMPTS) {
                    return new Written(changed, unwritten, remaining, later(notBefore, missingWait()));
                }
                state.refresh();
                continue;
            }
            RedisKind kind = (live != null) ? live.kind() : current.next.kind();
            Adds adds = kind.adds(live, current.generation, current.next, keys);
            remaining.forEach(adds::add);
            // Before Redis has them: a local bit only ever lets a call through (see RedisNearCopy), and this
            // instance's next check of the key needs no round trip.
            if (nearCopy != null) {
                nearCopy.learnKeys(current, remaining);
            }
            List<ScriptCall> calls = adds.calls();
            String record = acks.record(); // each add is counted, so that a loss of it can be found
            List<CompletableFuture<Object>> replies = new ArrayList<>(calls.size());
            for (ScriptCall call : calls) {
                List<String> args = RedisAcknowledgedAdds.withRecord(call.args(), record);
                replies.add(commands.send(port -> port.eval(call.script(), call.keys(), args)));
            }
            boolean missing = false;
            long leaseWait = 0; // the longest lease an add found on: 0 when none did
            // A list, not a set: a counting filter counts a key put twice in one batch twice.
            List<Object> retry = new ArrayList<>();
            boolean layerAdded = false;
            for (int i = 0; i < calls.size(); i++) {
                AddReply answer = AddReply.of((Long) commands.await(replies.get(i)));
                layerAdded |= answer.layerAdded();
                if (leases != null && answer.writersWait()) {
                    leaseWait = Math.max(leaseWait, leases.writeWait(answer.lease()).toNanos());
                }
                if (answer.outdated()) {
                    retry.addAll(calls.get(i).carried());
                }
                else if (answer.missing()) {
                    missing = true;
                    unwritten.addAll(calls.get(i).carried());
                    state.bitmapMissing(current);
                }
                else {
                    changed += answer.changed();
                    acks.acknowledged(calls.get(i).keys().get(0), record, calls.get(i).carried());
                }
            }
            if (!calls.isEmpty()) {
                try {
                    replicaWait.afterAdds(); // may throw (on-add-failure: fail): the adds stand on the primary alone
                }
                catch (RedisUnavailableException ex) {
                    acks.withdraw(record); // the put fails: nothing it counted was acknowledged
                    throw ex;
                }
            }
            if (leases != null && (leaseWait > 0 || missing)) {
                notBefore = later(notBefore, System.nanoTime() + Math.max(leaseWait, missing ? missingWaitNanos() : 0));
            }
            if (layerAdded) {
                state.refresh(); // this instance's next put goes into the new layer, and its checks read it
            }
            if (retry.isEmpty()) {
                return new Written(changed, unwritten, List.of(), notBefore);
            }
            if (attempt == WRITE_ATTEMPTS) {
                return new Written(changed, unwritten, retry, notBefore);
            }
            state.refresh(); // a generation started or was swapped since this instance last looked
            remaining = new ArrayList<>(retry);
        }
    }

    /**
     * The wait of a write whose keys Redis may or may not hold (a bitmap gone, as after a {@code FLUSHALL}, or no
     * reply): a leased copy elsewhere may not know yet, so it is waited as in {@code on}. 0 when not leased.
     */
    long missingWait() {
        return (leases != null) ? System.nanoTime() + missingWaitNanos() : 0;
    }

    private long missingWaitNanos() {
        return (leases != null) ? leases.writeWait(null).toNanos() : 0;
    }

    private static long later(long notBefore, long other) {
        return (notBefore == 0 || (other != 0 && other - notBefore > 0)) ? other : notBefore;
    }

    /**
     * Whether shard 0's metadata, which every instance reads, names a live or next generation that this instance's
     * view (which has neither) does not know: the add script, sent with no keys, answers -2 then, -1 when there is none.
     */
    private boolean buildAnnounced() {
        ScriptCall probe = BlockAdds.announcedProbe(keys);
        long answer = (Long) commands.await(commands.send(port -> port.eval(probe.script(), probe.keys(),
                probe.args())));
        return answer == -2;
    }

    /**
     * What a write did.
     *
     * @param changed   keys that changed a bitmap: certainly new
     * @param unwritten keys not written for want of a bitmap to write them to: no instance rejects with the filter then
     * @param unplaced  keys not written because the generations kept changing under every attempt: other instances
     *                  may reject them
     * @param commitNotBefore with {@code redis.near-copy: leased}, the {@code System.nanoTime()} before which the write
     *                  these keys guard must not commit ({@link io.bloomguard.core.CommitWait}); 0 for no wait
     */
    record Written(long changed, List<Object> unwritten, List<Object> unplaced, long commitNotBefore) {

        /** Every key not written, for want of a bitmap or of a place. */
        List<Object> notWritten() {
            if (unplaced.isEmpty()) {
                return unwritten;
            }
            List<Object> all = new ArrayList<>(unwritten);
            all.addAll(unplaced);
            return all;
        }
    }
}
