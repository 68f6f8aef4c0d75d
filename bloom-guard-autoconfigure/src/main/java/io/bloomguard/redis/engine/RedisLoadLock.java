package io.bloomguard.redis.engine;

import io.bloomguard.redis.kind.RedisFilterKeys;
import io.bloomguard.redis.kind.RedisScripts;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import java.util.List;
import java.util.UUID;

/**
 * The lock that lets one instance at a time load or rebuild a filter, so that it is loaded once across all
 * instances: a Redis key holding the loader's id, with a time to live so that a loader that dies lets another
 * take over. A build renews it every third of that time.
 *
 * <p>Usage: {@code if (lock.tryLock()) { try { ... lock.renew(); ... } finally { lock.release(); } }}
 */
final class RedisLoadLock {

    private static final Log logger = LogFactory.getLog(RedisLoadLock.class);

    private final String filterName;
    private final String key;
    private final RedisCommands commands;
    private final EngineSettings settings;
    private final String owner = UUID.randomUUID().toString();
    private final String fenceKey;
    private final String metaKey;
    private volatile long fence;

    RedisLoadLock(String filterName, RedisFilterKeys keys, RedisCommands commands, EngineSettings settings) {
        this.filterName = filterName;
        this.key = keys.lock();
        this.fenceKey = keys.fence();
        this.metaKey = keys.meta(0);
        this.commands = commands;
        this.settings = settings;
    }

    /** This instance's id in the lock, also in the names of the keys it uploads to. */
    String owner() {
        return owner;
    }

    /**
     * Takes the lock if no instance holds it. Each taking has its own fencing token ({@link #fence()}), which the
     * build's writes carry: a holder whose lock expired swaps nothing in once a later one has begun.
     */
    boolean tryLock() {
        long token = (Long) commands.call(port -> port.eval(RedisScripts.LOCK, List.of(key, fenceKey, metaKey),
                ownerAndTtl()), settings.commandTimeout());
        if (token > 0) {
            fence = token;
        }
        return token > 0;
    }

    /** The fencing token of this instance's last taking of the lock. */
    long fence() {
        return fence;
    }

    /** Extends the lock's time to live; a failure is logged, not thrown (the build goes on). */
    void renew() {
        try {
            Object renewed = commands.call(port -> port.eval(RedisScripts.RENEW, List.of(key), ownerAndTtl()),
                    settings.commandTimeout());
            if (!Long.valueOf(1).equals(renewed)) {
                logger.warn("Filter '" + filterName + "': the load lock expired while loading; another instance may"
                        + " take over");
            }
        }
        catch (RuntimeException ex) {
            logger.warn("Filter '" + filterName + "': could not renew the load lock: " + ex.getMessage());
        }
    }

    /** Releases the lock if this instance still holds it; if Redis cannot be reached, the lock expires on its own. */
    void release() {
        try {
            commands.call(port -> port.eval(RedisScripts.RELEASE, List.of(key), List.of(owner)),
                    settings.commandTimeout());
        }
        catch (RuntimeException ex) {
            logger.debug("Filter '" + filterName + "': could not release the load lock; it expires on its own", ex);
        }
    }

    private List<String> ownerAndTtl() {
        return List.of(owner, Long.toString(settings.lockTtl().toMillis()));
    }
}
