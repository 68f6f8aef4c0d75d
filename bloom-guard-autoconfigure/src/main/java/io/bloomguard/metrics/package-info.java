/**
 * Micrometer meters for the configured filters: a {@link io.bloomguard.metrics.BloomFilterMetrics} binder that reads
 * the filter registry. Only the auto-configuration decides whether it exists.
 */
@NullMarked
package io.bloomguard.metrics;

import org.jspecify.annotations.NullMarked;
