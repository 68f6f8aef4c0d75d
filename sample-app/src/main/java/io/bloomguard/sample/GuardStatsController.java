package io.bloomguard.sample;

import io.bloomguard.registry.BloomFilterRegistry;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

import java.util.List;

/**
 * What the guard saves: {@code GET /stats} (statements run so far, and every filter), and
 * {@code GET /demo/absent} / {@code GET /demo/existing} (a batch of lookups and what they cost).
 */
@RestController
class GuardStatsController {

    /** Keeps one demo request from tying up the service. */
    static final int MAX_DEMO_LOOKUPS = 1_000_000;

    private final BloomFilterRegistry filters;
    private final DatabaseStatementCounter statements;
    private final UserLookupDemo demo;

    GuardStatsController(BloomFilterRegistry filters, DatabaseStatementCounter statements, UserLookupDemo demo) {
        this.filters = filters;
        this.statements = statements;
        this.demo = demo;
    }

    @GetMapping("/stats")
    Stats stats() {
        return new Stats(statements.statementsSoFar(), filters.all().stream().map(FilterView::of).toList());
    }

    @GetMapping("/demo/absent")
    LookupRun absent(@RequestParam(defaultValue = "10000") int count) {
        return demo.absentIds(checked(count));
    }

    @GetMapping("/demo/existing")
    LookupRun existing(@RequestParam(defaultValue = "100") int count) {
        return demo.existingIds(checked(count));
    }

    private static int checked(int count) {
        if (count < 1 || count > MAX_DEMO_LOOKUPS) {
            throw new ResponseStatusException(HttpStatus.BAD_REQUEST,
                    "count must be between 1 and " + MAX_DEMO_LOOKUPS);
        }
        return count;
    }

    /**
     * @param databaseStatements JDBC statements Hibernate prepared since startup
     * @param filters            every configured filter
     */
    record Stats(long databaseStatements, List<FilterView> filters) {
    }
}
