package io.bloomguard.redis.engine;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A deterministic simulation of the leased near copy ({@link NearCopyLease}): Redis's total order of commands, a
 * subscriber connection per instance delivering in that order with a lag of its own (none, half a lease, two leases),
 * two or three instances whose clocks run up to ρ fast or slow, pauses between every step of readers and writers,
 * dropped subscriber connections, swaps to a generation of another layout, and the filter's state switched
 * {@code on → draining → off} while it runs. The property: no lookup that begins after a row's commit answers absent
 * for its key. Each broken variant of the protocol must be caught by some seed, which shows the simulation can see
 * the defect each rule of the protocol prevents (four from the protocol's design, and switching off without draining).
 */
class LeasedNearCopySimulationTest {

    private static final int SEEDS = 2000;

    private static final Duration LEASE = Duration.ofMillis(10);

    private static final double CLOCK_RATE = 0.05;

    @Test
    void noLookupThatBeginsAfterACommitAnswersAbsentForItsKey() {
        long leased = 0;
        for (int seed = 0; seed < SEEDS; seed++) {
            World world = new World(seed, Variant.CORRECT);
            world.run();
            assertThat(world.violations).as("seed %d: %s", seed, world.firstViolation).isZero();
            leased += world.absentFromLease;
        }
        // The guard must guard: the lease answers many absent keys with no command, else nothing was proven.
        assertThat(leased).as("absent keys answered from a lease").isGreaterThan(SEEDS * 100L);
    }

    @ParameterizedTest
    @EnumSource(value = Variant.class, names = "CORRECT", mode = EnumSource.Mode.EXCLUDE)
    void eachBrokenVariantIsCaught(Variant broken) {
        int caughtBy = -1;
        for (int seed = 0; seed < SEEDS && caughtBy < 0; seed++) {
            World world = new World(seed, broken);
            world.run();
            if (world.violations > 0) {
                caughtBy = seed;
            }
        }
        assertThat(caughtBy).as(broken + " caught by a seed").isNotNegative();
    }

    /** The protocol, and four ways of getting it wrong. */
    enum Variant {
        CORRECT,
        /** The lease runs from the barrier's reply, not from before it was sent. */
        LEASE_FROM_REPLY,
        /** The reader reads the bits before it takes the lease. */
        BITS_BEFORE_LEASE,
        /** Neither the grant nor the reader checks that the copy is in step in the lease's epoch. */
        NO_EPOCH_CHECK,
        /** A writer whose add set no new bit does not wait. */
        NO_WAIT_WHEN_NO_BIT_CHANGED,
        /** Switching off goes straight from on to off, without draining for Lw while leases granted in on last. */
        NO_DRAIN
    }

    private enum State { OFF, ON, DRAINING }

    /** One run: Redis, the instances, the database, and the events in time order. */
    private static final class World {

        static final int BITS = 1024;
        static final int HASHES = 2;
        static final long RUN = Duration.ofMillis(80).toNanos();

        final Random random;
        final Variant variant;
        final NearCopyLease.LeaseTimes times = new NearCopyLease.LeaseTimes(LEASE, CLOCK_RATE);
        final long lease = LEASE.toNanos();
        final long write = times.write().toNanos();
        final PriorityQueue<Event> events = new PriorityQueue<>();
        long now;
        long sequence;
        // Redis
        int seed;
        BitSet bits = new BitSet(BITS);
        State state = State.OFF;
        final List<Long> everAdded = new ArrayList<>();
        final List<Subscription> subscriptions = new ArrayList<>();
        // The database: a key's commit time
        final Map<Long, Long> committed = new HashMap<>();
        long nextKey;
        final List<Instance> instances = new ArrayList<>();
        int violations;
        long absentFromLease;
        String firstViolation = "";

        World(long seed, Variant variant) {
            this.random = new Random(seed);
            this.variant = variant;
            int count = 2 + random.nextInt(2);
            long[] lags = {0, lease / 2, 2 * lease};
            for (int i = 0; i < count; i++) {
                double rate = 1 + (random.nextDouble() * 2 - 1) * CLOCK_RATE;
                instances.add(new Instance(this, i, rate, random.nextLong(1_000_000_000L), lags[random.nextInt(3)]));
            }
        }

        void run() {
            instances.forEach(Instance::subscribe);
            for (long t = 0; t < RUN; t += 1 + random.nextInt(400_000)) {
                at(t, this::writer);
            }
            for (long t = 0; t < RUN; t += 1 + random.nextInt(60_000)) {
                Instance reader = instances.get(random.nextInt(instances.size()));
                at(t, () -> reader.lookup(lookupKey()));
            }
            for (long t = random.nextInt(5_000_000); t < RUN; t += 5_000_000 + random.nextInt(40_000_000)) {
                at(t, this::switchState);
            }
            for (long t = random.nextInt(30_000_000); t < RUN; t += 20_000_000 + random.nextInt(60_000_000)) {
                at(t, random.nextBoolean() ? this::swap : this::drop);
            }
            while (!events.isEmpty()) {
                Event next = events.poll();
                now = next.time;
                next.action.run();
            }
        }

        long lookupKey() {
            return (nextKey == 0 || random.nextInt(4) == 0) ? 1_000_000 + random.nextInt(1000)
                    : random.nextLong(nextKey);
        }

        void at(long time, Runnable action) {
            events.add(new Event(Math.max(time, now), sequence++, action));
        }

        long latency() {
            return 50_000 + random.nextInt(1_500_000);
        }

        /** Mostly short, now and then a GC-sized pause of up to two leases. */
        long pause() {
            return (random.nextInt(20) == 0) ? random.nextLong(2 * lease) : random.nextInt(200_000);
        }

        // --- Redis, one command at a time in the order they arrive

        void publish(Message message) {
            for (Subscription subscription : subscriptions) {
                subscription.deliver(message);
            }
        }

        int[] positions(long key, int layoutSeed) {
            Random hash = new Random(key * 31 + layoutSeed);
            int[] positions = new int[HASHES];
            for (int i = 0; i < HASHES; i++) {
                positions[i] = hash.nextInt(BITS);
            }
            return positions;
        }

        /**
         * A transaction of one to three rows: each key's add in turn, then one wait, until the latest moment an add's
         * reply asks for (its reply plus Lw, on the writer's clock, for an add that found the state on or draining),
         * then the commit of every row.
         */
        void writer() {
            int rows = 1 + random.nextInt(3);
            List<Long> keys = new ArrayList<>();
            for (int i = 0; i < rows; i++) {
                keys.add(nextKey++);
            }
            Instance writer = instances.get(random.nextInt(instances.size()));
            at(now + pause(), () -> writer.add(keys, 0, Long.MIN_VALUE));
        }

        /** Redis runs one add: sets its bits, publishes them, and answers with the state it found. */
        void add(long key, java.util.function.BiConsumer<State, Boolean> reply) {
            at(now + latency(), () -> {
                int[] positions = positions(key, seed);
                boolean changed = false;
                for (int position : positions) {
                    changed |= !bits.get(position);
                    bits.set(position);
                }
                everAdded.add(key);
                publish(new Message(Message.Kind.ADD, seed, positions, null, null));
                State seen = state;
                boolean bitChanged = changed;
                at(now + latency(), () -> reply.accept(seen, bitChanged));
            });
        }

        void commit(long key) {
            committed.put(key, now);
        }

        void switchState() {
            Instance switcher = instances.get(random.nextInt(instances.size()));
            at(now + latency(), () -> {
                if (state == State.OFF) {
                    setState(State.ON);
                }
                else if (state == State.ON && variant == Variant.NO_DRAIN) {
                    setState(State.OFF);
                }
                else if (state == State.ON) {
                    setState(State.DRAINING);
                    // The switcher waits Lw on its own clock, then switches off.
                    long until = switcher.local() + write;
                    at(switcher.realAt(until) + latency(), () -> setState(State.OFF));
                }
            });
        }

        void setState(State next) {
            state = next;
            publish(new Message(Message.Kind.STATE, seed, null, next, null));
        }

        /** A rebuild swaps in a generation of another layout holding every key added. */
        void swap() {
            seed++;
            bits = new BitSet(BITS);
            for (long key : everAdded) {
                for (int position : positions(key, seed)) {
                    bits.set(position);
                }
            }
            publish(new Message(Message.Kind.SWAP, seed, null, null, null));
        }

        /** A subscriber connection dropped at Redis: what it had not delivered is lost; its instance learns later. */
        void drop() {
            if (subscriptions.isEmpty()) {
                return;
            }
            Subscription dropped = subscriptions.remove(random.nextInt(subscriptions.size()));
            dropped.alive = false;
            at(now + random.nextLong(lease), () -> dropped.instance.dropped(dropped));
        }

        void violation(String what) {
            violations++;
            if (firstViolation.isEmpty()) {
                firstViolation = what;
            }
        }
    }

    private record Event(long time, long sequence, Runnable action) implements Comparable<Event> {

        @Override
        public int compareTo(Event other) {
            int byTime = Long.compare(time, other.time);
            return (byTime != 0) ? byTime : Long.compare(sequence, other.sequence);
        }
    }

    private record Message(Kind kind, int seed, int[] positions, State state, Barrier barrier) {

        enum Kind { ADD, SWAP, STATE, PONG, SUBSCRIBED }
    }

    /** A barrier sent: the clock read before sending it, and the epoch it was sent in. */
    private record Barrier(long sentAt, long epoch) {
    }

    /** An instance's subscriber connection: messages in the order Redis sent them, each after the instance's lag. */
    private static final class Subscription {

        final Instance instance;
        final long epoch;
        boolean alive = true;
        long lastDelivery;

        Subscription(Instance instance, long epoch) {
            this.instance = instance;
            this.epoch = epoch;
        }

        void deliver(Message message) {
            World world = instance.world;
            long at = Math.max(lastDelivery, world.now + instance.lag + world.random.nextInt(300_000));
            lastDelivery = at;
            world.at(at, () -> {
                if (alive) {
                    instance.received(this, message);
                }
            });
        }
    }

    /** An application instance: its clock, its near copy, its lease, its readers and writers. */
    private static final class Instance {

        final World world;
        final int id;
        final double rate;
        final long offset;
        final long lag;
        final NearCopyLease lease;
        long epoch;
        Subscription subscription;
        boolean inStep;
        long syncedEpoch = -1;
        int copySeed = -1;
        BitSet copy = new BitSet(World.BITS);
        State streamState = State.OFF;
        boolean reading;
        long reads;
        final List<Message> buffered = new ArrayList<>();
        boolean renewing;

        Instance(World world, int id, double rate, long offset, long lag) {
            this.world = world;
            this.id = id;
            this.rate = rate;
            this.offset = offset;
            this.lag = lag;
            this.lease = new NearCopyLease(world.times, this::local);
        }

        /** This instance's monotonic clock: its own origin and rate. */
        long local() {
            return offset + (long) (world.now * rate);
        }

        /** The true time at which this clock reads {@code local}. */
        long realAt(long local) {
            return (long) Math.ceil((local - offset) / rate);
        }

        void subscribe() {
            long mine = ++epoch;
            Subscription next = new Subscription(this, mine);
            subscription = next;
            world.at(world.now + world.latency(), () -> {
                world.subscriptions.add(next);
                next.deliver(new Message(Message.Kind.SUBSCRIBED, world.seed, null, world.state, null));
            });
        }

        void dropped(Subscription dropped) {
            if (dropped != subscription) {
                return;
            }
            lease.revoke();
            inStep = false;
            renewing = false;
            world.at(world.now + world.latency(), this::subscribe);
        }

        void received(Subscription from, Message message) {
            if (from != subscription) {
                return;
            }
            switch (message.kind()) {
                case SUBSCRIBED -> {
                    streamState = message.state();
                    readWhole();
                }
                case STATE -> streamState = message.state();
                case PONG -> pong(message.barrier());
                case SWAP -> {
                    if (message.seed() != copySeed) {
                        lease.revoke();
                        inStep = false;
                        readWhole();
                    }
                }
                case ADD -> {
                    if (reading) {
                        buffered.add(message);
                    }
                    else if (message.seed() == copySeed) {
                        for (int position : message.positions()) {
                            copy.set(position);
                        }
                    }
                }
            }
        }

        /** GET of the live bits over the command connection, while messages after the subscription are kept. */
        void readWhole() {
            reading = true;
            buffered.clear();
            long readIn = epoch;
            long read = ++reads;
            world.at(world.now + world.latency(), () -> {
                BitSet snapshot = (BitSet) world.bits.clone();
                int snapshotSeed = world.seed;
                world.at(world.now + world.latency(), () -> {
                    if (readIn != epoch || read != reads) {
                        return; // dropped meanwhile, or a later read began: that one puts the copy in step
                    }
                    copy = snapshot;
                    copySeed = snapshotSeed;
                    reading = false;
                    for (Message kept : buffered) {
                        if (kept.seed() == copySeed) {
                            for (int position : kept.positions()) {
                                copy.set(position);
                            }
                        }
                    }
                    buffered.clear();
                    inStep = true;
                    syncedEpoch = epoch;
                });
            });
        }

        /** A barrier PING on the subscriber connection, for a lease from before it was sent. */
        void renew() {
            if (renewing || subscription == null || streamState != State.ON) {
                return;
            }
            renewing = true;
            Barrier barrier = new Barrier(lease.beforeBarrier(), epoch);
            Subscription via = subscription;
            world.at(world.now + world.latency(), () -> {
                if (via.alive) {
                    via.deliver(new Message(Message.Kind.PONG, world.seed, null, null, barrier));
                }
            });
        }

        void pong(Barrier barrier) {
            renewing = false;
            boolean checked = world.variant == Variant.NO_EPOCH_CHECK
                    || (barrier.epoch() == epoch && inStep && syncedEpoch == epoch);
            if (!checked || streamState != State.ON) {
                return;
            }
            lease.granted(world.variant == Variant.LEASE_FROM_REPLY ? local() : barrier.sentAt(), barrier.epoch());
        }

        /**
         * Adds {@code keys} from {@code next} on, one at a time; {@code waitUntil} is the latest moment (this clock) an
         * add's reply asked the transaction to wait for. Once all are added: that wait, then the commit.
         */
        void add(List<Long> keys, int next, long waitUntil) {
            if (next == keys.size()) {
                long commitAt = (waitUntil == Long.MIN_VALUE) ? world.now : Math.max(world.now, realAt(waitUntil));
                world.at(commitAt + world.pause(), () -> keys.forEach(world::commit));
                return;
            }
            world.add(keys.get(next), (seen, changed) -> {
                boolean waits = seen != State.OFF
                        && (changed || world.variant != Variant.NO_WAIT_WHEN_NO_BIT_CHANGED);
                long until = waits ? Math.max(waitUntil, local() + world.write) : waitUntil;
                world.at(world.now + world.pause(), () -> add(keys, next + 1, until));
            });
        }

        /** The reader, step by step, with a pause between each. */
        void lookup(long key) {
            long began = world.now;
            NearCopyLease.Held current = lease.hold();
            // Renewed on demand, about every half lease while lookups come.
            if (!current.granted() || current.until() - local() < world.lease / 2) {
                renew();
            }
            if (world.variant == Variant.BITS_BEFORE_LEASE) {
                boolean present = holds(key);
                world.at(world.now + world.pause(), () -> {
                    NearCopyLease.Held held = lease.hold();
                    world.at(world.now + world.pause(), () -> inStep(held, () -> {
                        if (!present) {
                            answerAbsent(key, began, held);
                        }
                    }));
                });
                return;
            }
            NearCopyLease.Held held = current;
            world.at(world.now + world.pause(), () -> inStep(held, () -> {
                boolean present = holds(key);
                if (!present) {
                    world.at(world.now + world.pause(), () -> answerAbsent(key, began, held));
                }
            }));
        }

        private void inStep(NearCopyLease.Held held, Runnable next) {
            if (world.variant == Variant.NO_EPOCH_CHECK
                    || (inStep && syncedEpoch == held.epoch() && epoch == held.epoch())) {
                world.at(world.now + world.pause(), next);
            }
        }

        private boolean holds(long key) {
            for (int position : world.positions(key, copySeed)) {
                if (!copy.get(position)) {
                    return false;
                }
            }
            return true;
        }

        /** The last step: a fresh clock read; absent only while the lease still holds. */
        private void answerAbsent(long key, long began, NearCopyLease.Held held) {
            if (!lease.stillHeld(held)) {
                return; // lapsed: the key goes to Redis
            }
            world.absentFromLease++;
            Long committedAt = world.committed.get(key);
            if (committedAt != null && committedAt < began) {
                world.violation("instance " + id + " answered absent for key " + key + " committed at " + committedAt
                        + ", lookup began at " + began);
            }
        }
    }
}
