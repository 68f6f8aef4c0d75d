package io.bloomguard.redis;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.NearCopyMode;
import io.bloomguard.redis.access.RedisAccessCheck;
import io.bloomguard.redis.access.RedisAccessState;
import io.bloomguard.redis.access.RedisKeyTypes;
import io.bloomguard.redis.client.RedisCommands;
import io.bloomguard.redis.client.RedisFilterCommands;
import io.bloomguard.redis.copy.RedisAddFeed;
import io.bloomguard.redis.copy.RedisCopyInStep;
import io.bloomguard.redis.copy.RedisNearCopy;
import io.bloomguard.redis.layout.BlockKind;
import io.bloomguard.redis.lifecycle.RedisBuildThreads;
import io.bloomguard.redis.lifecycle.RedisFilterLifecycle;
import io.bloomguard.redis.lifecycle.RedisFilterLoader;
import io.bloomguard.redis.port.RedisAcl;
import io.bloomguard.redis.read.RedisBitReader;
import io.bloomguard.redis.state.RedisFillEstimate;
import io.bloomguard.redis.state.RedisFilterIdentity;
import io.bloomguard.redis.state.RedisFilterKeys;
import io.bloomguard.redis.state.RedisLiveSize;
import io.bloomguard.redis.state.RedisStaleMarks;
import io.bloomguard.redis.state.RedisStoredState;
import io.bloomguard.redis.write.PendingAdds;
import io.bloomguard.redis.write.RedisBitWriter;
import io.bloomguard.redis.write.RedisCounterRemoval;
import io.bloomguard.redis.write.RedisOutageBuffer;

import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;

/**
 * One {@link RedisBloomFilter}'s parts, each with its job, wired together: {@link RedisFilterLifecycle} (join,
 * maintenance, close), {@link RedisStoredState} (what Redis holds), {@link RedisBitReader} (checks),
 * {@link RedisNearCopy} (with {@code redis.near-copy}, this instance's copy of the bits, which answers the keys it
 * holds, and with {@code ordered}, kept in step by {@link RedisCopyInStep}, the keys it lacks too),
 * {@link RedisOutageBuffer} (adds, through {@link RedisBitWriter}, and what this instance owes Redis),
 * {@link RedisFilterLoader} (builds under the load lock), {@link RedisFillEstimate} (the fill),
 * {@link RedisFilterCommands} (timeouts, breakers, last attempts), {@link RedisCounterRemoval} (removes from a
 * counting filter), {@link RedisLiveSize} (the size it answers with).
 *
 * <p>Usage: {@code RedisFilterParts parts = new RedisFilterParts(filter, name, sizing, options, settings, shared);}
 */
final class RedisFilterParts {

    final RedisFilterIdentity configured;
    final RedisFilterKeys keys;
    final RedisAccessState access;
    final RedisFilterCommands commands;
    final RedisStoredState state;
    final RedisNearCopy nearCopy;
    final RedisBitReader reader;
    final RedisOutageBuffer outage;
    final RedisFilterLoader loader;
    final RedisFillEstimate fill;
    final RedisFilterLifecycle lifecycle;
    final RedisCounterRemoval removal;
    final RedisLiveSize size;

    /** @param filter the filter these are the parts of, which waits for Redis when it owes it adds or a mark */
    RedisFilterParts(RedisBloomFilter filter, String name, FilterSizing sizing, RedisFilterOptions options,
            RedisBackendSettings settings, Shared backend) {
        NearCopyMode nearCopy = options.nearCopy();
        this.configured = options.layout().identity(sizing, options.seed(), options.shards());
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
        Runnable waitForRedis = () -> backend.recovery().waiting(filter);
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

    /** What a filter shares with the other filters of its {@link RedisFilterBackend}. */
    record Shared(RedisCommands checks, RedisCommands commands, ScheduledExecutorService scheduler,
            ExecutorService builders, RecoveryProbe recovery, Semaphore startupBuilds, RedisAddFeed adds,
            List<BlockKind> kinds) {
    }
}
