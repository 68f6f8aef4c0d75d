package io.bloomguard.guard;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.util.ClassUtils;
import reactor.core.publisher.Mono;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Runs a call of a Kotlin coroutine method through the guard's reactive path, as the Reactor call it is behind the
 * proxy ({@link CoroutineSignature}).
 *
 * <ul>
 * <li>A {@code suspend} function: the proxy hands the call down with its {@code Continuation} as last argument, the
 * chain returns the {@code Mono} (or {@code Flux}, for a {@code Flow} result) of its body, and the proxy awaits
 * what comes back. That is already a Reactor call: only a rejected call of a non-null result is answered with its
 * empty value ({@code false}, {@code 0}) where the reactive path answers an empty {@code Mono}.</li>
 * <li>A function returning a {@code Flow}: the call proceeds to a {@code Flow}, seen by the guard as a {@code Flux}
 * ({@link FlowAsFluxInvocation}), and the guard's {@code Flux} goes back to the caller as a {@code Flow}.</li>
 * </ul>
 */
final class CoroutineCalls {

    /** The body of an interceptor, run with an invocation that answers as a Reactor call. */
    @FunctionalInterface
    interface Intercepted {
        @Nullable Object invoke(MethodInvocation invocation) throws Throwable;
    }

    /** What a called method is, found once per method: the guard's dispatch asks on every call. */
    private enum Kind { PLAIN, SUSPENDING, RETURNS_FLOW }

    private static final Map<Method, Kind> kinds = new ConcurrentHashMap<>();

    private CoroutineCalls() {
    }

    /** Whether a call returns a {@code Flow}, which the reactive path must see as a {@code Flux}. */
    static boolean returnsFlow(MethodInvocation invocation) {
        return kind(invocation) == Kind.RETURNS_FLOW;
    }

    /** Whether a call is of a {@code suspend} function, which the proxy hands down as a Reactor call already. */
    static boolean suspending(MethodInvocation invocation) {
        return kind(invocation) == Kind.SUSPENDING;
    }

    private static Kind kind(MethodInvocation invocation) {
        if (!CoroutineSignature.SUPPORTED) {
            return Kind.PLAIN;
        }
        return kinds.computeIfAbsent(invocation.getMethod(), method -> CoroutineSignature.isSuspending(method)
                ? Kind.SUSPENDING : CoroutineSignature.returnsFlow(method) ? Kind.RETURNS_FLOW : Kind.PLAIN);
    }

    /** Runs {@code intercepted} with the call seen as returning a {@code Flux}, and gives its result back as a Flow. */
    static @Nullable Object asFlow(MethodInvocation invocation, Intercepted intercepted) throws Throwable {
        Object result = intercepted.invoke(new FlowAsFluxInvocation(invocation));
        return (result != null) ? flowAdapter().fromPublisher((Publisher<?>) result) : null;
    }

    /**
     * A guarded {@code suspend} call's {@code Mono}, answering a rejection with the empty value of its non-null result
     * (the proxy would otherwise hand {@code null} to a caller expecting a {@code Boolean}). Only a rejection completes
     * such a call empty: a {@code suspend} function that runs always returns a value.
     */
    @SuppressWarnings("unchecked") // a Mono of Objects to answer from
    static Object withEmptyValue(Object guarded, GuardOperation guard, Object[] args) {
        if (!(guarded instanceof Mono<?>)) {
            return guarded;
        }
        return ((Mono<Object>) guarded).switchIfEmpty(
                Mono.defer(() -> (Mono<Object>) Objects.requireNonNull(guard.emptyValue().apply(args))));
    }

    /** Converts a {@code Flow} to a Reactive Streams publisher and back, through Spring's registry. */
    static ReactiveAdapter flowAdapter() {
        Class<?> flow = ClassUtils.resolveClassName("kotlinx.coroutines.flow.Flow", CoroutineCalls.class.getClassLoader());
        return Objects.requireNonNull(ReactiveAdapterRegistry.getSharedInstance().getAdapter(flow),
                "Spring's adapter for Kotlin Flow (kotlinx-coroutines-reactor)");
    }
}
