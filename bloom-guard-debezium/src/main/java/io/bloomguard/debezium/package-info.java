/**
 * The PostgreSQL change feed ({@code bloom-guard.filters.NAME.feed.type: postgres}): logical replication through
 * Debezium's embedded engine ({@link io.bloomguard.debezium.PostgresChangeFeed}), created for each filter by
 * {@link io.bloomguard.debezium.PostgresChangeFeedFactory}, which this module's auto-configuration declares. Adding the
 * module to an application is enough; {@code docs/change-feeds-postgres.md} says what the database needs.
 */
@NullMarked
package io.bloomguard.debezium;

import org.jspecify.annotations.NullMarked;
