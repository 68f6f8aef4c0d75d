/**
 * Filling filters and holding readiness for them: key sources ({@code BloomKeySource} and
 * {@code ReactiveBloomKeySource} beans, {@code preload.sql}), the startup preload, scheduled rebuilds, and the
 * readiness a shared filter holds while its store refuses it.
 */
@NullMarked
package io.bloomguard.preload;

import org.jspecify.annotations.NullMarked;
