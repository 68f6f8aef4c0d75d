package io.bloomguard.preload;

import io.bloomguard.registry.BloomFilterRegistry;
import io.bloomguard.registry.FilterState;
import io.bloomguard.registry.NamedBloomFilter;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.task.ThreadPoolTaskSchedulerBuilder;
import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;
import org.springframework.scheduling.support.CronTrigger;

import java.time.ZoneId;
import java.util.TimeZone;

/**
 * Rebuilds the filters that have a {@code rebuild.cron} on their schedule, on a scheduler of its own (one thread,
 * so a long rebuild delays the next one rather than running beside it, and an application need not enable
 * Spring's scheduling). A shared filter is rebuilt by one instance: the others find it being loaded and skip.
 *
 * <p>Usage: the auto-configuration registers it; {@code bloom-guard.filters.users.rebuild.cron: "0 0 4 * * *"}.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public final class ScheduledRebuilds implements SmartLifecycle {

    private static final Log logger = LogFactory.getLog(ScheduledRebuilds.class);

    private final BloomFilterRegistry registry;
    private final ThreadPoolTaskSchedulerBuilder schedulerBuilder;
    private volatile @Nullable ThreadPoolTaskScheduler scheduler;

    /**
     * @param schedulerBuilder makes the scheduler when this starts: one thread, of the kind the application chose
     *                         (virtual or platform)
     */
    public ScheduledRebuilds(BloomFilterRegistry registry, ThreadPoolTaskSchedulerBuilder schedulerBuilder) {
        this.registry = registry;
        this.schedulerBuilder = schedulerBuilder;
    }

    @Override
    public void start() {
        ThreadPoolTaskScheduler tasks = schedulerBuilder.build();
        tasks.initialize();
        for (NamedBloomFilter filter : registry.all()) {
            String cron = filter.spec().lifecycle().rebuildCron();
            if (cron == null || filter.state() == FilterState.DISABLED) {
                continue;
            }
            String zone = filter.spec().lifecycle().rebuildZone();
            CronTrigger trigger = (zone != null) ? new CronTrigger(cron, ZoneId.of(zone)) : new CronTrigger(cron,
                    TimeZone.getDefault());
            tasks.schedule(() -> rebuild(filter), trigger);
            logger.info("Filter '" + filter.name() + "' is rebuilt on the schedule \"" + cron + "\""
                    + (zone != null ? " (" + zone + ")" : ""));
        }
        scheduler = tasks;
    }

    private static void rebuild(NamedBloomFilter filter) {
        try {
            long keys = filter.rebuild();
            logger.info("Scheduled rebuild of filter '" + filter.name() + "': " + keys + " keys");
        }
        catch (IllegalStateException ex) {
            // Another instance is rebuilding a shared filter, or this one has no key source: nothing to do here.
            logger.info("Scheduled rebuild of filter '" + filter.name() + "' skipped: " + ex.getMessage());
        }
        catch (RuntimeException ex) {
            logger.warn("Scheduled rebuild of filter '" + filter.name() + "' failed; the live filter keeps answering",
                    ex);
        }
    }

    @Override
    public void stop() {
        ThreadPoolTaskScheduler tasks = scheduler;
        if (tasks != null) {
            tasks.shutdown();
            scheduler = null;
        }
    }

    @Override
    public boolean isRunning() {
        return scheduler != null;
    }
}
