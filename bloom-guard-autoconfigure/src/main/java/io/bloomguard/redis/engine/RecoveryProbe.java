package io.bloomguard.redis.engine;

import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Notices at once that Redis answers again, for the filters waiting for it to take adds they buffered or a stale
 * mark they owe: every probe interval, while one waits, it keeps one probe ({@code EXISTS} of a filter's metadata)
 * in flight, past the circuit breaker. The probe's reply closes the commands' breaker and runs the waiting filters'
 * maintenance straight away, which delivers what they hold: a frozen Redis (a long command, {@code DEBUG SLEEP}, a
 * fork) answers the probe the moment it wakes, and a restarted one as soon as the {@link SharedConnection} is back,
 * which the probe also has replaced every tick while it is down. The other instances may reject the records of
 * the buffered adds until then, so the wait is the probe interval or less, not the next refresh or trial call.
 *
 * <p>Usage: {@code probe.start(settings.probeInterval()); ... probe.waiting(filter);} (by a filter whose delivery failed)
 */
final class RecoveryProbe {

    private final SharedConnection connection;
    private final RedisCommands commands;
    private final ScheduledExecutorService scheduler;
    private final Executor connector;
    private final Duration timeout;
    private final Set<FilterEngine> waiting = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean probing = new AtomicBoolean();
    private volatile @Nullable ScheduledFuture<?> ticks;

    /**
     * @param commands  the commands' breaker and timeouts; the probe goes past the breaker and closes it
     * @param scheduler the backend's maintenance thread, on which filters deliver what they hold
     * @param connector where a new connection is opened, which may wait for the connect timeout
     * @param timeout   longest a probe is waited for before another is sent
     */
    RecoveryProbe(SharedConnection connection, RedisCommands commands, ScheduledExecutorService scheduler,
            Executor connector, Duration timeout) {
        this.connection = connection;
        this.commands = commands;
        this.scheduler = scheduler;
        this.connector = connector;
        this.timeout = timeout;
    }

    void start(Duration interval) {
        long every = Math.max(1, interval.toMillis());
        ticks = scheduler.scheduleWithFixedDelay(this::tick, every, every, TimeUnit.MILLISECONDS);
    }

    /** {@code filter} holds adds or a stale mark it could not deliver because Redis did not answer. */
    void waiting(FilterEngine filter) {
        waiting.add(filter);
    }

    /** Whether a filter waits for Redis to answer: for tests, and for what the backend reports. */
    void stop() {
        ScheduledFuture<?> task = ticks;
        if (task != null) {
            task.cancel(false);
        }
        waiting.clear();
    }

    private void tick() {
        connection.reconnectIfDown(connector);
        if (waiting.isEmpty() || !probing.compareAndSet(false, true)) {
            return;
        }
        String metaKey = waiting.stream().findAny().map(filter -> filter.keys.meta(0)).orElse(null);
        if (metaKey == null) {
            probing.set(false);
            return;
        }
        commands.probe(port -> port.exists(metaKey), timeout).whenComplete((answered, failure) -> {
            probing.set(false);
            if (failure == null) {
                deliverSoon();
            }
        });
    }

    private void deliverSoon() {
        try {
            scheduler.execute(this::deliver);
        }
        catch (RejectedExecutionException ex) {
            // The backend is closing: its close makes the last attempt to deliver.
        }
    }

    private void deliver() {
        for (FilterEngine filter : List.copyOf(waiting)) {
            waiting.remove(filter);
            filter.lifecycle.maintain(); // which has it wait again if Redis fails it once more
        }
    }
}
