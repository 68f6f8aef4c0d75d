package io.bloomguard.preload;

import org.jspecify.annotations.Nullable;

import java.time.Duration;

/**
 * How a filter's last preload went.
 *
 * @param keys     keys read from its sources (duplicates included)
 * @param duration how long it took
 * @param failure  why it failed (a {@link KeySourceFailedException} naming the source, when a key source failed),
 *                 or {@code null} when it completed
 *
 * @since 0.1.0
 */
public record PreloadResult(long keys, Duration duration, @Nullable Throwable failure) {

    static PreloadResult completed(long keys, long nanos) {
        return new PreloadResult(keys, Duration.ofNanos(nanos), null);
    }

    static PreloadResult failed(long keys, long nanos, Throwable failure) {
        return new PreloadResult(keys, Duration.ofNanos(nanos), failure);
    }

    public boolean succeeded() {
        return failure == null;
    }
}
