package io.bloomguard.autoconfigure;

import io.bloomguard.preload.BloomKeySource;
import io.bloomguard.preload.FilterPreloader;
import io.bloomguard.registry.BloomFilterRegistry;
import io.bloomguard.registry.NamedBloomFilter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * bloom-guard's background work runs on the kind of thread {@code spring.threads.virtual.enabled} chooses: a filter's
 * scheduled rebuild and its growth past its capacity both read its key source, which notes the thread reading it.
 */
class BackgroundThreadsTest {

    private final Set<Long> rows = ConcurrentHashMap.newKeySet();
    private final Set<Thread> readers = ConcurrentHashMap.newKeySet();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BloomGuardAutoConfiguration.class))
            .withPropertyValues("bloom-guard.filters.users.expected-size=100",
                    "bloom-guard.filters.users.rebuild.cron=* * * * * *")
            .withBean(BloomKeySource.class, () -> BloomKeySource.of("users", () -> {
                readers.add(Thread.currentThread());
                return List.copyOf(rows).stream();
            }));

    @Test
    void withVirtualThreadsOffBackgroundWorkRunsOnDaemonPlatformThreadsNamedForBloomGuard() {
        runner.withPropertyValues("spring.threads.virtual.enabled=false").run(context -> {
            List<Thread> background = backgroundReaders(context.getBean(FilterPreloader.class),
                    context.getBean(BloomFilterRegistry.class).get("users"));
            assertThat(background).allSatisfy(thread -> {
                assertThat(isVirtual(thread)).as("%s is virtual", thread).isFalse();
                assertThat(thread.isDaemon()).as("%s is a daemon", thread).isTrue();
            });
        });
    }

    @Test
    @EnabledForJreRange(min = JRE.JAVA_21)
    void withVirtualThreadsOnBackgroundWorkRunsOnVirtualThreads() {
        runner.withPropertyValues("spring.threads.virtual.enabled=true").run(context -> {
            List<Thread> background = backgroundReaders(context.getBean(FilterPreloader.class),
                    context.getBean(BloomFilterRegistry.class).get("users"));
            assertThat(background).allSatisfy(thread -> assertThat(isVirtual(thread)).as("%s is virtual", thread)
                    .isTrue());
        });
    }

    /**
     * Preloads the filter here, then has it rebuilt on its schedule and grown in the background; the threads other
     * than this one that read its key source, once both happened.
     */
    private List<Thread> backgroundReaders(FilterPreloader preloader, NamedBloomFilter users) {
        LongStream.rangeClosed(1, 10).forEach(rows::add);
        preloader.preloadAll();
        LongStream.range(1_000, 1_200).forEach(id -> { // past its capacity: it grows in the background
            rows.add(id);
            users.put(id);
        });
        await("a scheduled rebuild and a growth").atMost(Duration.ofSeconds(20)).untilAsserted(() ->
                assertThat(readers).extracting(Thread::getName)
                        .anyMatch(name -> name.startsWith("bloom-guard-rebuild-"))
                        .anyMatch(name -> name.startsWith("bloom-guard-background-rebuild")));
        List<Thread> background = readers.stream().filter(thread -> thread != Thread.currentThread()).toList();
        assertThat(background).extracting(Thread::getName).allMatch(name -> name.startsWith("bloom-guard-"));
        return background;
    }

    /** {@code Thread.isVirtual()}, which a Java 17 build cannot call directly; no thread is virtual before 21. */
    static boolean isVirtual(Thread thread) {
        try {
            return (boolean) Thread.class.getMethod("isVirtual").invoke(thread);
        }
        catch (NoSuchMethodException ex) {
            return false;
        }
        catch (ReflectiveOperationException ex) {
            throw new IllegalStateException(ex);
        }
    }
}
