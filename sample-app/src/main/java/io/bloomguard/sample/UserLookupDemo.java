package io.bloomguard.sample;

import io.bloomguard.registry.FilterStats;
import io.bloomguard.registry.NamedBloomFilter;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.stereotype.Component;

import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;

/**
 * Looks up many user ids through {@link UserRepository#findById} and measures what reached the database,
 * for {@code /demo/*} and the startup report.
 *
 * <p>The costs are differences of global counters, so requests served during a run are counted in it too.
 */
@Component
public class UserLookupDemo {

    private final UserRepository users;
    private final NamedBloomFilter usersFilter;
    private final DatabaseStatementCounter statements;

    public UserLookupDemo(UserRepository users, @Qualifier("users") NamedBloomFilter usersFilter,
            DatabaseStatementCounter statements) {
        this.users = users;
        this.usersFilter = usersFilter;
        this.statements = statements;
    }

    /** Looks up {@code count} random ids that were never seeded (a billion and above). */
    public LookupRun absentIds(int count) {
        return run(count, () -> ThreadLocalRandom.current().nextLong(SeedData.FIRST_ABSENT_USER_ID, Long.MAX_VALUE));
    }

    /** Looks up {@code count} random seeded ids; the guard must let every one through. */
    public LookupRun existingIds(int count) {
        return run(count, () -> ThreadLocalRandom.current().nextLong(1, SeedData.USER_COUNT + 1));
    }

    private LookupRun run(int count, LongSupplier ids) {
        FilterStats before = usersFilter.stats();
        long statementsBefore = statements.statementsSoFar();
        long start = System.nanoTime();
        long found = 0;
        for (int i = 0; i < count; i++) {
            if (users.findById(ids.getAsLong()).isPresent()) {
                found++;
            }
        }
        long elapsedMillis = (System.nanoTime() - start) / 1_000_000;
        FilterStats after = usersFilter.stats();
        return new LookupRun(count, found, count - found, statements.statementsSoFar() - statementsBefore,
                after.rejected() - before.rejected(), after.passed() - before.passed(),
                after.falsePositives() - before.falsePositives(), elapsedMillis);
    }
}
