package io.bloomguard.redis;

import io.bloomguard.registry.BloomFilterRegistry;
import io.bloomguard.registry.NamedBloomFilter;
import io.bloomguard.testsupport.redis.RedisServerExtension;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.context.ConfigurableApplicationContext;

import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * bloom-guard's threads belong to the application context: once an instance that used every kind of them (a redis
 * filter's maintenance and builds, a local filter growing in the background, a rebuild schedule, readiness) is closed,
 * none of them is left running.
 */
@Timeout(120)
@ExtendWith(RedisServerExtension.class)
class ClosedApplicationThreadsIT {

    @Test
    void aClosedApplicationLeavesNoBloomGuardThreadRunning(RedisServerProcess redis) {
        Set<Thread> before = bloomGuardThreads();
        try (GuardedApplications apps = new GuardedApplications("threads", "it")) {
            ConfigurableApplicationContext context = apps.start(redis, true, Map.of(
                    "bloom-guard.filters.customers.backend", "redis",
                    "bloom-guard.filters.customers.rebuild.cron", "0 0 4 * * *",
                    "bloom-guard.filters.grown.expected-size", "100",
                    "bloom-guard.filters.grown.preload.sql", "SELECT id FROM customer"));
            NamedBloomFilter grown = context.getBean(BloomFilterRegistry.class).get("grown");
            LongStream.range(1_000_000, 1_000_100).forEach(grown::put); // past its capacity: it grows in the background
            Set<Thread> started = bloomGuardThreads();
            started.removeAll(before);
            assertThat(started).extracting(Thread::getName).as("threads the instance started")
                    .anyMatch(name -> name.startsWith("bloom-guard-redis"))
                    .anyMatch(name -> name.startsWith("bloom-guard-background-rebuild"));

            context.close();

            await("no bloom-guard thread left").atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                Set<Thread> left = bloomGuardThreads();
                left.removeAll(before);
                assertThat(left).extracting(Thread::getName).isEmpty();
            });
        }
    }

    private static Set<Thread> bloomGuardThreads() {
        Set<Thread> threads = new HashSet<>();
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            if (thread.isAlive() && thread.getName().startsWith("bloom-guard")) {
                threads.add(thread);
            }
        }
        return threads;
    }
}
