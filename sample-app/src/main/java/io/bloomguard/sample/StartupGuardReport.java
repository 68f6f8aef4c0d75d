package io.bloomguard.sample;

import io.bloomguard.registry.BloomFilterRegistry;
import io.bloomguard.registry.FeedStatus;
import io.bloomguard.registry.NamedBloomFilter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Shows the guard at work as soon as the service is up: a batch of absent and existing lookups, how far behind each
 * change feed is, the address of the live page and the curl commands to try. Ordered last, so it runs after
 * bloom-guard's preload runner has filled the filters; it waits for the feeds' first poll, before which a filter
 * with a feed lets lookups through ({@code when-behind: pass}).
 */
@Component
@Order(Ordered.LOWEST_PRECEDENCE)
class StartupGuardReport implements ApplicationRunner {

    private static final Logger logger = LoggerFactory.getLogger(StartupGuardReport.class);

    static final int ABSENT_LOOKUPS = 10_000;

    static final int EXISTING_LOOKUPS = 100;

    /** How long the report waits for the change feeds to catch up before it looks anything up. */
    static final Duration FEED_WAIT = Duration.ofSeconds(15);

    private final UserLookupDemo demo;
    private final BloomFilterRegistry registry;
    private final Environment environment;

    StartupGuardReport(UserLookupDemo demo, BloomFilterRegistry registry, Environment environment) {
        this.demo = demo;
        this.registry = registry;
        this.environment = environment;
    }

    @Override
    public void run(ApplicationArguments args) throws InterruptedException {
        // One line per feed, each after a line break: nothing when no filter has a feed.
        String feeds = feedLines().stream().map(feed -> "\n" + feed).collect(Collectors.joining());
        LookupRun absent = demo.absentIds(ABSENT_LOOKUPS);
        LookupRun existing = demo.existingIds(EXISTING_LOOKUPS);
        // Set once the web server has started, which is before runners run; the random port in tests.
        String base = "localhost:" + environment.getProperty("local.server.port", "8080");
        String line = "-".repeat(100);
        logger.info("""
                bloom-guard sample is ready
                {}
                  {} lookups of absent user ids: {} empty, {} database queries, {} rejected by the guard ({} ms)
                  {} lookups of existing ids: {} found{}
                  Watch it live (flood it with absent ids, see the rejections and the false-positive rate): http://{}/
                  Try:
                    curl {}/users/42
                    curl -i {}/users/987654321
                    curl {}/products/acme/SKU-00042
                    curl -X POST {}/users -H 'Content-Type: application/json' -d '{"name":"Ada","email":"ada@example.com"}'
                    curl -X POST {}/demo/insert-elsewhere    (a row inserted as another program would; then GET /users/<its id>)
                    curl '{}/demo/absent?count=10000'
                    curl {}/actuator/bloomfilters
                {}""", line, absent.lookups(), absent.empty(), absent.databaseStatements(),
                absent.rejectedByGuard(), absent.elapsedMillis(), existing.lookups(), existing.found(), feeds, base,
                base, base, base, base, base, base, base, line);
    }

    /** Waits (up to {@link #FEED_WAIT}) for every change feed to catch up, then says how far behind each is. */
    private List<String> feedLines() throws InterruptedException {
        long deadline = System.nanoTime() + FEED_WAIT.toNanos();
        List<String> lines = new ArrayList<>();
        for (NamedBloomFilter filter : registry.all()) {
            FeedStatus feed = filter.feed().orElse(null);
            if (feed == null) {
                continue;
            }
            while (feed.behind() && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            Duration lag = feed.lag();
            lines.add("  Filter '" + filter.name() + "' follows rows written elsewhere (" + feed.description() + "): "
                    + feed.state() + ", " + ((lag == null) ? "not caught up yet" : lag.toMillis() + " ms behind")
                    + " (max-lag " + feed.maxLag().toSeconds() + " s" + (feed.behind()
                            ? "; behind: lookups of it pass through until it catches up)" : ")"));
        }
        return lines;
    }
}
