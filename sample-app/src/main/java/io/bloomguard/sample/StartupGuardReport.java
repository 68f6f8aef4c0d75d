package io.bloomguard.sample;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

/**
 * Shows the guard at work as soon as the service is up: a batch of absent and existing lookups, the address of
 * the live page and the curl commands to try. Ordered last, so it runs after bloom-guard's preload runner has
 * filled the filters.
 */
@Component
@Order(Ordered.LOWEST_PRECEDENCE)
class StartupGuardReport implements ApplicationRunner {

    private static final Logger logger = LoggerFactory.getLogger(StartupGuardReport.class);

    static final int ABSENT_LOOKUPS = 10_000;

    static final int EXISTING_LOOKUPS = 100;

    private final UserLookupDemo demo;
    private final Environment environment;

    StartupGuardReport(UserLookupDemo demo, Environment environment) {
        this.demo = demo;
        this.environment = environment;
    }

    @Override
    public void run(ApplicationArguments args) {
        LookupRun absent = demo.absentIds(ABSENT_LOOKUPS);
        LookupRun existing = demo.existingIds(EXISTING_LOOKUPS);
        // Set once the web server has started, which is before runners run; the random port in tests.
        String base = "localhost:" + environment.getProperty("local.server.port", "8080");
        String line = "-".repeat(100);
        logger.info("""
                bloom-guard sample is ready
                {}
                  {} lookups of absent user ids: {} empty, {} database queries, {} rejected by the guard ({} ms)
                  {} lookups of existing ids: {} found
                  Watch it live (flood it with absent ids, see the rejections and the false-positive rate): http://{}/
                  Try:
                    curl {}/users/42
                    curl -i {}/users/987654321
                    curl {}/products/acme/SKU-00042
                    curl -X POST {}/users -H 'Content-Type: application/json' -d '{"name":"Ada","email":"ada@example.com"}'
                    curl '{}/demo/absent?count=10000'
                    curl {}/actuator/bloomfilters
                {}""", line, absent.lookups(), absent.empty(), absent.databaseStatements(),
                absent.rejectedByGuard(), absent.elapsedMillis(), existing.lookups(), existing.found(), base, base,
                base, base, base, base, base, line);
    }
}
