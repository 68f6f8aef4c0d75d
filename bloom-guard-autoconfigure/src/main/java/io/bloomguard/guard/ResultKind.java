package io.bloomguard.guard;

import org.jspecify.annotations.Nullable;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * What an annotated method returns, as far as the guard goes: the result itself, or a promise of it that the guard
 * watches (a Reactor {@code Mono} or {@code Flux}, checked and keyed when subscribed to; a {@code CompletionStage},
 * keyed when it completes), or one it cannot watch.
 */
enum ResultKind {

    /** The result itself: keys are put as the method returns. */
    NOW,
    /** A Reactor {@code Mono}. */
    MONO,
    /** A Reactor {@code Flux}. */
    FLUX,
    /** A {@code CompletionStage} or {@code CompletableFuture}. */
    COMPLETION_STAGE,
    /** A promise the guard cannot watch: a plain {@code Future}, another library's publisher. */
    UNWATCHABLE;

    // By name, so that Reactor stays optional; a subclass could not hold the Mono or Flux returned instead.
    private static final @Nullable Class<?> MONO_TYPE = EmptyValues.optionalClass("reactor.core.publisher.Mono");
    private static final @Nullable Class<?> FLUX_TYPE = EmptyValues.optionalClass("reactor.core.publisher.Flux");

    /** The kind of a method's declared return type. */
    static ResultKind of(Class<?> returnType) {
        if (MONO_TYPE != null && returnType == MONO_TYPE) {
            return MONO;
        }
        if (FLUX_TYPE != null && returnType == FLUX_TYPE) {
            return FLUX;
        }
        // Only these two: the write interceptor returns a CompletableFuture in place of the method's result.
        if (returnType == CompletionStage.class || returnType == CompletableFuture.class) {
            return COMPLETION_STAGE;
        }
        return EmptyValues.isDeferred(returnType) ? UNWATCHABLE : NOW;
    }

    /** Whether the method's result is only a promise of what it wrote or found. */
    boolean deferred() {
        return this != NOW;
    }

    /** Whether the method returns a Reactor {@code Mono} or {@code Flux}. */
    boolean reactive() {
        return this == MONO || this == FLUX;
    }
}
