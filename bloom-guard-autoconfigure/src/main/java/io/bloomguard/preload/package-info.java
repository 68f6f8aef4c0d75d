/**
 * Filling filters: key sources ({@code BloomKeySource} beans and {@code preload.sql}) and the startup preload.
 */
@NullMarked
package io.bloomguard.preload;

import org.jspecify.annotations.NullMarked;
