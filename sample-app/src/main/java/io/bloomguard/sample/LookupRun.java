package io.bloomguard.sample;

/**
 * The outcome of a batch of user lookups, and what it cost.
 *
 * @param lookups            ids looked up
 * @param found              lookups that returned a user
 * @param empty              lookups that returned nothing
 * @param databaseStatements statements Hibernate ran meanwhile
 * @param rejectedByGuard    lookups the users filter answered without calling the repository
 * @param passedByGuard      lookups the filter let through (the key might exist)
 * @param falsePositives     of those, lookups that came back empty: each cost a query for nothing
 * @param elapsedMillis      wall-clock time of the run
 */
public record LookupRun(int lookups, long found, long empty, long databaseStatements, long rejectedByGuard,
        long passedByGuard, long falsePositives, long elapsedMillis) {
}
