/**
 * The {@code bloomfilters} actuator endpoint and the {@code bloomFilters} health contributor: plain classes that read
 * the filter registry; the auto-configuration decides whether they exist.
 */
@NullMarked
package io.bloomguard.actuate;

import org.jspecify.annotations.NullMarked;
