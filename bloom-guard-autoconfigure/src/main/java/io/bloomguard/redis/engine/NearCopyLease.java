package io.bloomguard.redis.engine;

import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * The lease of a near copy that answers absent keys with no command to Redis ({@code redis.near-copy: leased}): while
 * it holds, every add whose write committed before a lookup began is in the copy. Only durations on this JVM's
 * monotonic clock are used; no two machines' clocks are compared.
 *
 * <p>Why it holds. A lease is granted by a barrier {@code PING} on the subscriber connection whose reply came back in
 * the epoch it was sent in, and runs from {@code t0}, read <em>before</em> the {@code PING} was sent, for
 * {@link LeaseTimes#read()}. An add Redis processed before that {@code PING} was published before the {@code PING}'s
 * reply, so the copy holds it; an add processed after it was processed after {@code t0}, and its writer waits
 * {@link LeaseTimes#write()} from its reply before committing: past the lease's end on any clock whose rate is within
 * {@link LeaseTimes#clockRate()} of true time. So a lookup that began after the commit finds the key in the copy, or
 * finds the lease lapsed.
 *
 * <p>A drop, a swap, a layer, a gone bitmap {@linkplain #revoke() revoke} it: a barrier sent before the revoke grants
 * nothing, however late its reply comes back. A reader takes the lease first, then checks the copy is in step in the
 * lease's epoch, then reads the bits, then reads the clock afresh: a lease renewed after the bits were read would
 * vouch for bits that lack a committed add.
 *
 * <p>Usage: {@code long sentAt = lease.beforeBarrier(); ...send the barrier...; on its reply, in the epoch it was sent
 * in, with the copy in step: lease.granted(sentAt, epoch);} and a reader: {@code Held held = lease.hold(); ...in step in
 * held.epoch()?...; ...bits...; if (lease.stillHeld(held)) ...absent...}
 */
final class NearCopyLease {

    /** No lease: never held. */
    private static final Held NONE = new Held(Long.MIN_VALUE, -1, false);

    private final LeaseTimes times;
    private final LongSupplier clock;
    /** The clock at the last revoke: a barrier sent before it grants nothing. */
    private long revokedAt;
    private boolean revoked;
    /** Volatile: readers take it with no lock, once per lookup; grants and revokes are serialized. */
    private volatile Held held = NONE;

    /**
     * @param clock monotonic nanoseconds ({@code System::nanoTime})
     */
    NearCopyLease(LeaseTimes times, LongSupplier clock) {
        this.times = times;
        this.clock = clock;
    }

    /**
     * What a reader holds: until when (this JVM's clock), in which subscriber epoch, and whether it was ever granted.
     *
     * @param until   the clock reading past which it is lapsed
     * @param epoch   the subscriber epoch its barrier came back in: the copy must be in step in it
     * @param granted {@code false} for no lease
     */
    record Held(long until, long epoch, boolean granted) {
    }

    /** The clock, read before a barrier is sent: where the lease its reply grants begins. */
    long beforeBarrier() {
        return clock.getAsLong();
    }

    /**
     * A barrier sent at {@code sentAt} ({@link #beforeBarrier()}) came back in {@code epoch}, the one it was sent in,
     * with the copy in step and the filter's state {@code on} as the copy last read it: the lease runs to
     * {@code sentAt + read()}, unless it was revoked since the barrier was sent.
     *
     * @return whether the lease was granted or already lasts longer
     */
    synchronized boolean granted(long sentAt, long epoch) {
        if (revoked && sentAt - revokedAt <= 0) {
            return false;
        }
        long until = sentAt + times.read().toNanos();
        if (held.granted() && held.epoch() == epoch && until - held.until() <= 0) {
            return true;
        }
        held = new Held(until, epoch, true);
        return true;
    }

    /** Ends the lease at once, and refuses what a barrier sent before now would grant. */
    synchronized void revoke() {
        revokedAt = clock.getAsLong();
        revoked = true;
        held = NONE;
    }

    /** The reader's first step: the lease as it stands, to be checked with {@link #stillHeld} after the bits. */
    Held hold() {
        return held;
    }

    /** The reader's last step: a fresh clock read, before the lease {@code held} lapses. */
    boolean stillHeld(Held held) {
        return left(held) > 0;
    }

    /** {@link #stillHeld} with what is left of it: nanoseconds, from a fresh clock read; 0 or less when lapsed. */
    long left(Held held) {
        return held.granted() ? held.until() - clock.getAsLong() : 0;
    }

    /**
     * The lease's durations: readers hold one for {@link #read()}, writers wait {@link #write()} after each add, and
     * {@code write ≥ read · (1 + ρ) / (1 − ρ)} for the clock-rate bound ρ.
     *
     * @param read      how long a lease runs, on the reader's clock
     * @param clockRate ρ, how far any instance's clock may run fast or slow against true time (0.01: 1%)
     */
    record LeaseTimes(Duration read, double clockRate) {

        LeaseTimes {
            if (!(clockRate >= 0 && clockRate < 1)) {
                throw new IllegalArgumentException("a clock-rate bound from 0 to below 1, not " + clockRate);
            }
        }

        /** How long a writer waits after an add's reply: a lease on a slow clock lapses first on a fast one. */
        Duration write() {
            return write(read);
        }

        /** {@link #write()} for a lease of {@code other} or of {@link #read()}, whichever is longer. */
        Duration write(@Nullable Duration other) {
            Duration longer = (other != null && other.compareTo(read) > 0) ? other : read;
            return Duration.ofNanos((long) Math.ceil(longer.toNanos() * (1 + clockRate) / (1 - clockRate)));
        }
    }
}
