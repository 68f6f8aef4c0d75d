/**
 * A real PostgreSQL server for tests of change feeds ({@link io.bloomguard.testsupport.postgres.PostgresServerProcess}):
 * started from the installed binaries in a fresh data directory, on a loopback port, with logical replication on.
 * No Docker, no mocks; the server is a child of the JVM and dies with it.
 */
@NullMarked
package io.bloomguard.testsupport.postgres;

import org.jspecify.annotations.NullMarked;
