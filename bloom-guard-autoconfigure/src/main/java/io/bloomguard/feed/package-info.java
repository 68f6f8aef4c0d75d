/**
 * Change feeds: a filter follows its table's changes, so that rows written outside the application (another
 * service, an import, a manual {@code INSERT}) are found without waiting for a rebuild. {@link ChangeFeed} is the
 * one small SPI a kind of feed implements ({@code jdbc} polling is built in; PostgreSQL logical replication comes
 * with the {@code bloom-guard-debezium} module); {@link FilterFeed} runs one for a filter, and says how far behind it
 * is.
 */
@NullMarked
package io.bloomguard.feed;

import org.jspecify.annotations.NullMarked;
