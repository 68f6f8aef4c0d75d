package io.bloomguard.sample;

/** What {@code data.sql} inserts, for the demo that needs ids known to exist or known to be absent. */
final class SeedData {

    /** Users seeded with ids 1..USER_COUNT (the postgres profile seeds more; the demo looks among these). */
    static final long USER_COUNT = 5_000;

    /**
     * Ids from here on are never seeded (not even by the postgres profile's million users), and the identity would
     * need a billion sign-ups to reach them.
     */
    static final long FIRST_ABSENT_USER_ID = 1_000_000_000;

    private SeedData() {
    }
}
