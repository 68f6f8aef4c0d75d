package io.bloomguard.redis.engine;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.LongSupplier;

/**
 * The leases of one {@link RedisCopiedBuild}, one per shard (each shard's adds come on a channel of their own, and a
 * barrier vouches for one channel), with each shard's lease state as the copy last heard it, in order.
 */
final class RedisCopyLeases {

    private final NearCopyLease[] leases;
    private final AtomicReferenceArray<LeaseState> states;
    private final AtomicBoolean[] renewing;

    RedisCopyLeases(int shards, NearCopyLease.LeaseTimes times, LongSupplier clock) {
        leases = new NearCopyLease[shards];
        states = new AtomicReferenceArray<>(shards);
        renewing = new AtomicBoolean[shards];
        for (int shard = 0; shard < shards; shard++) {
            leases[shard] = new NearCopyLease(times, clock);
            states.set(shard, LeaseState.NONE);
            renewing[shard] = new AtomicBoolean();
        }
    }

    NearCopyLease lease(int shard) {
        return leases[shard];
    }

    LeaseState state(int shard) {
        return states.get(shard);
    }

    /** The shard's state as a whole read or a message on its channel tells it. */
    void state(int shard, LeaseState state) {
        states.set(shard, state);
    }

    /** The shard's state as a read tells it, unless an announcement changed it since {@code before} was taken. */
    void stateUnlessAnnounced(int shard, LeaseState before, LeaseState read) {
        states.compareAndSet(shard, before, read); // by identity: each announcement is a state of its own
    }

    int shards() {
        return leases.length;
    }

    /** Claims the shard's one renewal in flight; {@code false} when one is already. */
    boolean startRenewal(int shard) {
        return renewing[shard].compareAndSet(false, true);
    }

    void renewalEnded(int shard) {
        renewing[shard].set(false);
    }

    /** Whether a lease on some shard holds now: what the endpoint shows. */
    boolean anyHeld() {
        for (NearCopyLease lease : leases) {
            if (lease.stillHeld(lease.hold())) {
                return true;
            }
        }
        return false;
    }

    /** Out of step: every lease ends, and no barrier sent before now grants one. */
    void revokeAll() {
        for (NearCopyLease lease : leases) {
            lease.revoke();
        }
    }
}
