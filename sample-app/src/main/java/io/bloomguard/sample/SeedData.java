package io.bloomguard.sample;

/** What {@code data.sql} inserts, for the demo that needs ids known to exist or known to be absent. */
final class SeedData {

    /** Users seeded with ids 1..USER_COUNT. */
    static final long USER_COUNT = 5_000;

    /** Ids from here on are never seeded, and the identity would need a million sign-ups to reach them. */
    static final long FIRST_ABSENT_USER_ID = 1_000_000;

    private SeedData() {
    }
}
