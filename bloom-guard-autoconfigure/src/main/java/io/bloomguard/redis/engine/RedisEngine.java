package io.bloomguard.redis.engine;

import io.bloomguard.core.AddFailurePolicy;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.redis.kind.BlockKind;
import io.bloomguard.redis.kind.ServerKind;
import io.bloomguard.redis.port.RedisPort;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * What the Redis filters of one backend share: one connection (opened on first use, replaced at once when it drops),
 * two circuit breakers (a dead server is one outage, not one per filter: one for checks, one for adds and other
 * commands), the maintenance thread, the build threads, one {@link RecoveryProbe}, the add feed of ordered near copies,
 * and the kinds a stored generation may be of. Their startup builds wait out their rebuild grace together, then build
 * one at a time.
 *
 * <p>Usage: {@code RedisEngine engine = new RedisEngine(connector, settings, maintenance, builders, kinds);
 * FilterEngine users = engine.filter("users", sizing, options); ... engine.close();}
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public final class RedisEngine {

    private final EngineSettings settings;
    private final SharedConnection connection;
    private final CircuitBreaker checkBreaker;
    private final CircuitBreaker commandBreaker;
    private final RedisCommands checks;
    private final RedisCommands commands;
    private final ScheduledExecutorService scheduler;
    private final ExecutorService builders;
    private final RecoveryProbe recovery;
    /** The adds near copies that read in order follow; its subscriber connection is opened by the first of them. */
    private final RedisAddFeed adds;
    /** One startup build at a time holds its bits in the heap, as the startup heap check assumes. */
    private final Semaphore startupBuilds = new Semaphore(1);
    private final List<BlockKind> kinds;
    private final List<FilterEngine> filters = new CopyOnWriteArrayList<>();
    private final List<ForeignFilter> foreign = new CopyOnWriteArrayList<>();

    /**
     * @param maintenance one thread (periodic work runs one task at a time): refreshes, the recovery probe, replays
     *                    and lock renewals; owned from now on
     * @param builders    a thread for each build or reconnect under way (never a queue: a build must not wait for
     *                    another to finish); owned from now on
     * @param kinds       every kind a stored generation may be of: what an instance recognises in Redis, whatever it
     *                    is configured as
     */
    public RedisEngine(Supplier<RedisPort> connector, EngineSettings settings, ScheduledExecutorService maintenance,
            ExecutorService builders, List<BlockKind> kinds) {
        this.settings = settings;
        this.kinds = List.copyOf(kinds);
        Supplier<RedisPort> opening = (settings.waitForReplicas() > 0)
                ? () -> RedisReplicaWait.refuseUnlessSupported(connector.get(), settings.waitForReplicas())
                : connector;
        this.connection = new SharedConnection(opening, settings.reconnectDelay());
        // Two breakers: checks that miss their short timeout (a GC pause will do) must not hold back adds, whose
        // keys the other instances would lack meanwhile; adds have their own, longer timeout and breaker.
        this.checkBreaker = new CircuitBreaker("checks", settings.breaker(), settings.checkTimeout());
        this.commandBreaker = new CircuitBreaker("adds and other commands", settings.breaker(),
                settings.commandTimeout());
        this.checks = new RedisCommands(connection::get, checkBreaker);
        this.commands = new RedisCommands(connection::get, commandBreaker);
        this.scheduler = maintenance;
        this.builders = builders;
        this.recovery = new RecoveryProbe(connection, commands, scheduler, builders, settings.commandTimeout());
        this.adds = new RedisAddFeed(connection::get);
        recovery.start(settings.probeInterval());
    }

    /** The parts of one filter, sharing this engine's connection, breakers and threads. */
    public FilterEngine filter(String name, FilterSizing sizing, FilterOptions options) {
        FilterEngine parts = new FilterEngine(name, sizing, options, settings,
                new FilterEngine.Shared(checks, commands, scheduler, builders, recovery, startupBuilds, adds,
                        kinds));
        filters.add(parts);
        return parts;
    }

    /**
     * A filter another program created and fills under {@code key}, sharing this engine's connection, breakers and
     * maintenance thread (see {@link ForeignFilter}).
     */
    public ForeignFilter foreign(String name, String key, ServerKind kind, FilterSizing declared,
            AddFailurePolicy onAddFailure) {
        ForeignFilter filter = new ForeignFilter(name, key, kind, declared, onAddFailure, settings, checks, commands,
                scheduler);
        foreign.add(filter);
        return filter;
    }

    /**
     * For {@code redis.kind: auto}: whether filter {@code name} is to be {@code server}'s, or bloom-guard's bitmap
     * (see {@link RedisServerKindChoice}).
     *
     * @throws io.bloomguard.redis.port.RedisUnavailableException when Redis did not answer
     */
    public KindDecision chooseKind(String name, ServerKind server) {
        return new RedisServerKindChoice(settings.keyPrefix(), commands, kinds, settings.commandTimeout(),
                settings.reconnectDelay()).decide(name, server);
    }

    /** Whether a circuit breaker is open: Redis failed recently and calls (checks, or other commands) fail fast. */
    public boolean unavailable() {
        return checkBreaker.isOpen() || commandBreaker.isOpen();
    }

    /**
     * Stops the background work, then gives each filter one last attempt to write the adds it still holds, or else
     * to mark itself stale in Redis, all of them together within {@link EngineSettings#lastAttemptTimeout()}, and
     * only then releases the connection.
     */
    public void close() {
        RedisCommands lastAttempt = commands.lastAttempt(settings.lastAttemptTimeout());
        // Maintenance first: a replay under way holds the keys it drained until its reply (or interruption).
        recovery.stop();
        scheduler.shutdownNow();
        boolean interrupted = false;
        try {
            scheduler.awaitTermination(settings.commandTimeout().toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (InterruptedException ex) {
            interrupted = true; // restored once the last attempt, which waits for replies, is done
        }
        filters.forEach(filter -> filter.lifecycle.close(lastAttempt));
        foreign.forEach(ForeignFilter::close);
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        builders.shutdownNow();
        adds.close();
        connection.release();
    }

    /**
     * What {@link #chooseKind} decided.
     *
     * @param server whether the filter is the server's own
     * @param reason why, for the startup log
     */
    public record KindDecision(boolean server, String reason) {
    }
}
