package io.bloomguard.redis.engine;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.NearCopyMode;
import io.bloomguard.redis.kind.BlockKind;
import io.bloomguard.redis.kind.RedisFilterIdentity;
import io.bloomguard.redis.kind.RedisFilterKeys;
import io.bloomguard.redis.port.RedisAcl;

import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;

/**
 * One {@link io.bloomguard.redis.RedisBloomFilter}'s parts, each with its job, wired together: {@link RedisFilterLifecycle} (join,
 * maintenance, close), {@link RedisStoredState} (what Redis holds), {@link RedisBitReader} (checks),
 * {@link RedisNearCopy} (with {@code redis.near-copy}, this instance's copy of the bits, which answers the keys it
 * holds, and with {@code ordered}, kept in step by {@link RedisCopyInStep}, the keys it lacks too),
 * {@link RedisOutageBuffer} (adds, through {@link RedisBitWriter}, and what this instance owes Redis),
 * {@link RedisFilterLoader} (builds under the load lock), {@link RedisFillEstimate} (the fill),
 * {@link RedisFilterCommands} (timeouts, breakers, last attempts), {@link RedisCounterRemoval} (removes from a
 * counting filter), {@link RedisLiveSize} (the size it answers with).
 *
 * <p>Usage: {@code RedisFilterParts parts = new RedisFilterParts(name, sizing, options, settings, shared);}
 */
public final class RedisFilterParts {

    public final RedisFilterIdentity configured;
    public final RedisFilterKeys keys;
    public final RedisAccessState access;
    public final RedisFilterCommands commands;
    public final RedisStoredState state;
    public final RedisNearCopy nearCopy;
    public final RedisBitReader reader;
    public final RedisOutageBuffer outage;
    public final RedisFilterLoader loader;
    public final RedisFillEstimate fill;
    public final RedisFilterLifecycle lifecycle;
    public final RedisCounterRemoval removal;
    public final RedisLiveSize size;

    public RedisFilterParts(String name, FilterSizing sizing, FilterOptions options,
            EngineSettings settings, Shared backend) {
        NearCopyMode nearCopy = options.nearCopy();
        this.configured = options.kind().identity(sizing, options.seed(), options.shards());
        this.keys = new RedisFilterKeys(settings.keyPrefix(), name);
        this.access = new RedisAccessState(name, new RedisAcl(settings.keyPrefix()));
        RedisCommands others = backend.commands().reportingTo(access);
        this.commands = new RedisFilterCommands(backend.checks().reportingTo(access), others, settings);
        PendingAdds pending = new PendingAdds(settings.pendingAddsLimit());
        RedisStaleMarks marks = new RedisStaleMarks(keys, commands, pending);
        this.state = new RedisStoredState(name, sizing, configured, backend.kinds(), keys, commands, marks);
        RedisCopyInStep inStep = (nearCopy == NearCopyMode.ORDERED) ? new RedisCopyInStep(name, backend.adds(), keys,
                commands, settings.commandTimeout(), settings.refreshInterval()) : null;
        this.nearCopy = new RedisNearCopy(nearCopy.keepsCopy(), inStep, name, configured, commands, backend.builders(),
                settings.refreshInterval());
        this.reader = new RedisBitReader(state, commands, this.nearCopy, backend.scheduler());
        this.removal = new RedisCounterRemoval(state, commands);
        Runnable waitForRedis = () -> backend.recovery().waiting(this); // when it owes Redis adds or a mark
        this.outage = new RedisOutageBuffer(name, options.onAddFailure(), pending, marks, state,
                new RedisBitWriter(keys, state, commands, this.nearCopy), commands, access, waitForRedis);
        this.loader = new RedisFilterLoader(name, sizing, configured, keys, others, settings, state, pending, marks,
                new RedisBuildThreads(backend.builders(), backend.scheduler(), backend.startupBuilds()));
        this.fill = new RedisFillEstimate(settings.refreshInterval(), sizing, state, commands);
        this.lifecycle = new RedisFilterLifecycle(name, settings.refreshInterval(), access,
                new RedisAccessCheck(keys, settings.commandTimeout(), access, configured.type(),
                        new RedisKeyTypes(keys, configured, settings.commandTimeout())), commands, state,
                this.nearCopy, outage, loader, fill, backend.scheduler(), waitForRedis);
        this.size = new RedisLiveSize(sizing, configured, state);
    }

    /** What a filter shares with the other filters of its {@link io.bloomguard.redis.RedisFilterBackend}. */
    public record Shared(RedisCommands checks, RedisCommands commands, ScheduledExecutorService scheduler,
            ExecutorService builders, RecoveryProbe recovery, Semaphore startupBuilds, RedisAddFeed adds,
            List<BlockKind> kinds) {
    }
}
