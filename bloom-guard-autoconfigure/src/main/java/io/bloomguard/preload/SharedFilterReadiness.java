package io.bloomguard.preload;

import io.bloomguard.registry.BloomFilterRegistry;
import io.bloomguard.registry.FilterState;
import io.bloomguard.registry.NamedBloomFilter;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.task.ThreadPoolTaskSchedulerBuilder;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationEventPublisherAware;
import org.springframework.context.ApplicationListener;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Keeps the application's readiness at {@code REFUSING_TRAFFIC} while a shared filter is {@code ACCESS_DENIED}
 * (its store refuses this instance: it would take writes the other instances never learn of) or
 * {@code UNREACHABLE} (it has not reached its store since startup). The preload holds readiness until it is done
 * by running before Spring Boot declares the application ready; this extends that hold past the preload: when the
 * application turns {@code ACCEPTING_TRAFFIC} while such a filter exists, or a filter turns so later, it publishes
 * {@code REFUSING_TRAFFIC}, and {@code ACCEPTING_TRAFFIC} again once no filter holds it. It looks every
 * {@code bloom-guard.redis.refresh-interval}. An outage after a filter has joined its store does not hold readiness:
 * calls pass through meanwhile, and every instance would otherwise leave the load balancer at once.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public final class SharedFilterReadiness implements ApplicationListener<AvailabilityChangeEvent<ReadinessState>>,
        ApplicationEventPublisherAware, DisposableBean {

    private static final Log logger = LogFactory.getLog(SharedFilterReadiness.class);

    private final ObjectProvider<BloomFilterRegistry> registry;
    private final ObjectProvider<ApplicationAvailability> availability;
    private final Duration interval;
    private @Nullable ApplicationEventPublisher publisher;
    /** Whether the application itself last declared that it accepts traffic. */
    private volatile boolean applicationReady;
    /** Whether this holds readiness now: it published {@code REFUSING_TRAFFIC} and has not released it. */
    private volatile boolean holding;
    private final ThreadPoolTaskSchedulerBuilder pollerBuilder;
    private @Nullable ThreadPoolTaskScheduler poller;

    public SharedFilterReadiness(ObjectProvider<BloomFilterRegistry> registry,
            ObjectProvider<ApplicationAvailability> availability, Duration interval,
            ThreadPoolTaskSchedulerBuilder pollerBuilder) {
        this.registry = registry;
        this.availability = availability;
        this.interval = interval;
        this.pollerBuilder = pollerBuilder;
    }

    @Override
    public void setApplicationEventPublisher(ApplicationEventPublisher publisher) {
        this.publisher = publisher;
    }

    @Override
    public void onApplicationEvent(AvailabilityChangeEvent<ReadinessState> event) {
        if (event.getSource() == this) {
            return;
        }
        applicationReady = event.getState() == ReadinessState.ACCEPTING_TRAFFIC;
        if (applicationReady) {
            holding = false;
            check();
            startLooking();
        }
    }

    /** Publishes a readiness change if the filters call for one. */
    synchronized void check() {
        if (!applicationReady || publisher == null) {
            return;
        }
        List<NamedBloomFilter> held = holdingFilters();
        if (!held.isEmpty()) {
            // Published again if the application's readiness shows accepting: it may have been told of the
            // application's own change after this one's answer to it.
            if (!holding || readiness() == ReadinessState.ACCEPTING_TRAFFIC) {
                if (!holding) {
                    logger.warn("Readiness held at REFUSING_TRAFFIC: " + held.stream()
                            .map(filter -> "filter '" + filter.name() + "' is " + filter.state())
                            .collect(Collectors.joining(", ")) + " (see its ERROR above)");
                }
                holding = true;
                AvailabilityChangeEvent.publish(publisher, this, ReadinessState.REFUSING_TRAFFIC);
            }
        }
        else if (holding) {
            holding = false;
            logger.info("Readiness released: every shared filter has joined its store");
            AvailabilityChangeEvent.publish(publisher, this, ReadinessState.ACCEPTING_TRAFFIC);
        }
    }

    private List<NamedBloomFilter> holdingFilters() {
        BloomFilterRegistry filters = registry.getIfAvailable();
        if (filters == null) {
            return List.of();
        }
        return filters.all().stream().filter(filter -> filter.state() == FilterState.ACCESS_DENIED
                || filter.state() == FilterState.UNREACHABLE).toList();
    }

    private @Nullable ReadinessState readiness() {
        ApplicationAvailability current = availability.getIfAvailable();
        return (current != null) ? current.getReadinessState() : null;
    }

    private synchronized void startLooking() {
        BloomFilterRegistry filters = registry.getIfAvailable();
        if (poller != null || filters == null
                || filters.all().stream().noneMatch(filter -> filter.shared().isPresent())) {
            return;
        }
        ThreadPoolTaskScheduler looking = pollerBuilder.build();
        looking.initialize();
        looking.scheduleWithFixedDelay(this::checkQuietly, Instant.now().plus(interval), interval);
        poller = looking;
    }

    private void checkQuietly() {
        try {
            check();
        }
        catch (RuntimeException ex) {
            logger.debug("Could not look at the shared filters' readiness", ex);
        }
    }

    @Override
    public synchronized void destroy() {
        applicationReady = false;
        if (poller != null) {
            poller.shutdown();
            poller = null;
        }
    }
}
