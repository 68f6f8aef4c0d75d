package io.bloomguard.redis;

import io.bloomguard.registry.NamedBloomFilter;
import io.bloomguard.testapp.Customer;
import io.bloomguard.testapp.CustomerRepository;
import io.bloomguard.testapp.OwnThread;
import io.bloomguard.testsupport.redis.RedisServerExtension;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import jakarta.persistence.EntityManagerFactory;
import org.hibernate.SessionFactory;
import org.hibernate.stat.Statistics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.BeanFactoryAnnotationUtils;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.task.VirtualThreadTaskExecutor;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.PlatformManagedObject;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An application on virtual threads ({@code spring.threads.virtual.enabled}): bloom-guard's background threads are
 * virtual too, and while Redis hangs ({@code DEBUG SLEEP}) many guarded calls at once, each on a virtual thread,
 * still give up on Redis after their {@code check-timeout} and run the query ({@code on-backend-failure: allow}),
 * long before Redis answers again.
 */
@Timeout(120)
@EnabledForJreRange(min = JRE.JAVA_21)
@ExtendWith(RedisServerExtension.class)
class HungRedisOnVirtualThreadsIT {

    private static final int CALLS = 400;

    private static final int REDIS_SLEEP_SECONDS = 10;

    @Test
    void guardedCallsOnVirtualThreadsKeepTheirCheckTimeoutWhileRedisHangs(RedisServerProcess redis) {
        try (GuardedApplications apps = new GuardedApplications("virtual", "it")) {
            ConfigurableApplicationContext context = apps.start(redis, true, Map.of(
                    "spring.threads.virtual.enabled", "true",
                    "bloom-guard.filters.customers.backend", "redis",
                    "bloom-guard.redis.check-timeout", "200ms"));
            CustomerRepository customers = context.getBean(CustomerRepository.class);
            NamedBloomFilter filter = BeanFactoryAnnotationUtils.qualifiedBeanOfType(context.getBeanFactory(),
                    NamedBloomFilter.class, "customers");
            assertThat(filter.trustedToReject()).isTrue();

            assertThat(platformThreadNames()).as("platform threads of bloom-guard").noneMatch(this::isBloomGuards);
            assertThat(virtualThreadNames()).as("virtual threads of bloom-guard")
                    .anyMatch(name -> name.startsWith("bloom-guard-redis-"));

            Statistics statistics = context.getBean(EntityManagerFactory.class).unwrap(SessionFactory.class)
                    .getStatistics();
            CompletableFuture<Void> asleep = OwnThread.run(
                    () -> redis.command("DEBUG", "SLEEP", Integer.toString(REDIS_SLEEP_SECONDS)));
            // Known from outside the application, so that its breaker is still closed: every call below waits for its
            // own check to time out.
            await("Redis hangs").atMost(Duration.ofSeconds(REDIS_SLEEP_SECONDS / 2))
                    .until(() -> !answersPing(redis.port()));

            long queriesBefore = statistics.getPrepareStatementCount();
            List<CompletableFuture<Optional<Customer>>> calls = new ArrayList<>();
            VirtualThreadTaskExecutor requests = new VirtualThreadTaskExecutor("request-");
            for (int i = 0; i < CALLS; i++) {
                long id = (i % 2 == 0) ? 1 + i : 1_000_000 + i; // rows that exist, and keys that do not
                calls.add(requests.submitCompletable(() -> customers.findById(id)));
            }
            // 200 ms each, all at once, on virtual threads: done long before Redis wakes up.
            assertThat(CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)))
                    .succeedsWithin(Duration.ofSeconds(REDIS_SLEEP_SECONDS / 2));
            assertThat(asleep).as("Redis still asleep once every call returned").isNotDone();
            for (int i = 0; i < CALLS; i++) {
                assertThat(calls.get(i).join().isPresent()).as("call %d found its row", i).isEqualTo(i % 2 == 0);
            }
            assertThat(statistics.getPrepareStatementCount() - queriesBefore).as("calls that reached the database")
                    .isGreaterThanOrEqualTo(CALLS);

            asleep.join(); // the instance then closes with Redis awake
        }
    }

    /** Whether Redis answers a PING within a moment, on a connection of its own. */
    private static boolean answersPing(int port) {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(100);
            socket.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            return socket.getInputStream().read() == '+';
        }
        catch (SocketTimeoutException ex) {
            return false;
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private boolean isBloomGuards(String threadName) {
        return threadName.startsWith("bloom-guard");
    }

    private static List<String> platformThreadNames() {
        return Thread.getAllStackTraces().keySet().stream().map(Thread::getName).toList();
    }

    /**
     * The names of the virtual threads alive now, from a thread dump: {@link Thread#getAllStackTraces()} leaves them
     * out. {@code HotSpotDiagnosticMXBean.dumpThreads} is called reflectively: this module is built for Java 17.
     */
    @SuppressWarnings({ "unchecked", "rawtypes" })
    private static List<String> virtualThreadNames() {
        try {
            Path dump = Files.createTempDirectory("threads").resolve("dump.txt");
            Class<? extends PlatformManagedObject> bean = (Class<? extends PlatformManagedObject>) Class
                    .forName("com.sun.management.HotSpotDiagnosticMXBean");
            Class<Enum> format = (Class<Enum>) Class
                    .forName("com.sun.management.HotSpotDiagnosticMXBean$ThreadDumpFormat");
            bean.getMethod("dumpThreads", String.class, format).invoke(ManagementFactory.getPlatformMXBean(bean),
                    dump.toString(), Enum.valueOf(format, "TEXT_PLAIN"));
            Pattern virtualThread = Pattern.compile("^#\\d+ \"(.*)\" virtual\\b");
            List<String> names = new ArrayList<>();
            for (String line : Files.readAllLines(dump)) {
                Matcher matcher = virtualThread.matcher(line);
                if (matcher.find()) {
                    names.add(matcher.group(1));
                }
            }
            Files.delete(dump);
            Files.delete(dump.getParent());
            return names;
        }
        catch (IOException | ReflectiveOperationException ex) {
            throw new IllegalStateException("Could not dump the threads", ex);
        }
    }
}
