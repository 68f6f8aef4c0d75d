package io.bloomguard.guard;

import io.bloomguard.registry.UnkeyedWrites;
import org.jspecify.annotations.Nullable;
import org.springframework.util.ClassUtils;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * What a {@code @BloomPut} method returns, as far as putting its keys goes, and the puts of a method that returns
 * a {@code CompletionStage}: its keys are known only when the stage completes.
 *
 * <p>A Reactor {@code Mono} or {@code Flux} writes nothing until it is subscribed to; its keys are put as it
 * delivers, inside its transaction ({@link ReactivePuts}). A {@code CompletionStage}'s work runs elsewhere, in a
 * transaction of its own if any, which has committed by the time the stage completes: its row may be visible
 * before its key, so the write counts as {@linkplain UnkeyedWrites unkeyed} from the call until the put, and the
 * put interceptor returns a stage that completes after the put: whatever waits on the result finds the key in.
 *
 * <p>A plain {@code Future}, or another library's publisher, cannot be watched: {@code #result} on one is refused at
 * startup, and a key from the arguments that is still unknown when the method returns is reported as lost.
 */
final class DeferredPuts {

    private static final boolean REACTOR = ClassUtils.isPresent("reactor.core.publisher.Flux",
            DeferredPuts.class.getClassLoader());

    /** What a {@code @BloomPut} method returns, as far as putting its keys goes. */
    enum Kind {
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

        /** Whether the method's result is only a promise of what it wrote. */
        boolean deferred() {
            return this != NOW;
        }
    }

    private DeferredPuts() {
    }

    /** The kind of a method's declared return type. */
    static Kind kindOf(Class<?> returnType) {
        if (REACTOR && ReactivePuts.isMono(returnType)) {
            return Kind.MONO;
        }
        if (REACTOR && ReactivePuts.isFlux(returnType)) {
            return Kind.FLUX;
        }
        // Only these two: the put interceptor returns a CompletableFuture in place of the method's result.
        if (returnType == CompletionStage.class || returnType == CompletableFuture.class) {
            return Kind.COMPLETION_STAGE;
        }
        return EmptyValues.isDeferred(returnType) ? Kind.UNWATCHABLE : Kind.NOW;
    }

    /**
     * A stage that completes as {@code stage} does, once its keys are put. A new one rather than
     * {@code stage.whenComplete(...)}, whose failures would reach callers wrapped in a {@code CompletionException}.
     * Cancelling it is not passed on to the method's own: a {@code CompletableFuture}'s work goes on when it is
     * cancelled (it cannot be interrupted), and would then no longer deliver its key.
     */
    static CompletableFuture<Object> putWhenComplete(CompletionStage<?> stage, PutOperation put, Object[] args,
            UnkeyedWrites.Write write) {
        CompletableFuture<Object> watched = new CompletableFuture<>();
        stage.whenComplete((value, failure) -> {
            Throwable outcome = failure;
            try {
                if (failure == null) {
                    put.putFromResult(args, value);
                }
                else {
                    InterruptedWrites.putKeyFromArguments(put, args);
                }
            }
            catch (Throwable ex) { // a failed put under on-add-failure: fail or on-backend-failure: throw
                outcome = ex;
            }
            finally {
                write.end(); // before completing: whoever waits on the stage finds the key in
            }
            if (outcome != null) {
                watched.completeExceptionally(outcome);
            }
            else {
                watched.complete(value);
            }
        });
        return watched;
    }

    /** Whether {@code result} is a Reactor publisher still to deliver (not a {@code Mono.just} of a value). */
    static boolean isPendingPublisher(@Nullable Object result) {
        return REACTOR && ReactivePuts.isPendingPublisher(result);
    }
}
