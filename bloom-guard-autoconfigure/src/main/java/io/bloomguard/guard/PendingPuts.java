package io.bloomguard.guard;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.ProxyMethodInvocation;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Objects;

/**
 * The calls on this thread whose {@code @BloomPut} key is known only once they return, innermost last.
 *
 * <p>The guard's advisor runs outside a method's transaction (so that a rejected call costs none), so a key
 * it takes from the result would reach the filter after the commit, and another instance reading the row at
 * that moment would be rejected. The guard therefore announces such a call here, and
 * {@link PutBeforeCommitInterceptor}, which sits inside the transaction interceptors (Spring Data's own in a
 * repository, Spring's {@code @Transactional} on a class), claims it and puts the key as the method returns,
 * before the commit. When no attempt of the call has put the key by the time it returns to the guard, or the
 * keys it put are not those the returned result gives, the guard puts them itself.
 *
 * <p>An advice between the two may run the rest of the chain more than once (a retry on a deadlock or an
 * optimistic-lock failure, which may come at the commit, after a put). Each attempt claims the call anew and
 * puts its own result's key, so the key of the attempt that committed is always put.
 */
final class PendingPuts {

    private static final ThreadLocal<@Nullable PendingPut> innermost = new ThreadLocal<>();

    private PendingPuts() {
    }

    /** Announces the call {@code invocation}; {@link #end} it when the call is over, however it ends. */
    static PendingPut begin(MethodInvocation invocation, PutOperation put) {
        PendingPut pending = new PendingPut(invocation.getMethod(), invocation.getThis(), put, innermost.get());
        innermost.set(pending);
        return pending;
    }

    /**
     * A call announced not on this thread but along a reactive pipeline (see {@link DeferredPuts}): the advice
     * inside the call finds it in the subscriber's context, and checks {@link PendingPut#isFor} itself.
     */
    static PendingPut detached(MethodInvocation invocation, PutOperation put) {
        return new PendingPut(invocation.getMethod(), invocation.getThis(), put, null);
    }

    static void end(PendingPut pending) {
        if (pending.outer == null) {
            innermost.remove();
        }
        else {
            innermost.set(pending.outer);
        }
    }

    /**
     * The innermost announced call, if {@code invocation} is an attempt of it and no other attempt is under
     * way; it is then claimed until {@link PendingPut#release}. A call of another method, or of the same method
     * on another object (a repository called from inside an announced service method), claims nothing.
     */
    static @Nullable PendingPut claim(MethodInvocation invocation) {
        PendingPut pending = innermost.get();
        if (pending == null || pending.claimed || !sameCall(pending, invocation)) {
            return null;
        }
        pending.claimed = true;
        pending.everClaimed = true;
        pending.keyed = false;
        pending.keys = null;
        return pending;
    }

    /** Whether no call is announced on this thread: for tests. */
    static boolean isEmpty() {
        return innermost.get() == null;
    }

    /**
     * The announced object is the guard's target: in a class's proxy the same object the inner advice sees;
     * in front of a Spring Data repository, the repository's own proxy, inside which the inner advice runs.
     * Methods are compared by name and parameter types, not by declaring type: in a repository the call arrives
     * through that second JDK proxy, whose {@code Method} for an interface method inherited along two paths (a
     * {@code saveAll} of both {@code CrudRepository} and {@code ListCrudRepository}) may be the other one.
     */
    private static boolean sameCall(PendingPut pending, MethodInvocation invocation) {
        Object target = pending.target;
        boolean sameObject = target != null && (target == invocation.getThis()
                || invocation instanceof ProxyMethodInvocation proxied && proxied.getProxy() == target);
        Method announced = pending.method;
        Method invoked = invocation.getMethod();
        return sameObject && (announced == invoked || announced.getName().equals(invoked.getName())
                && Arrays.equals(announced.getParameterTypes(), invoked.getParameterTypes()));
    }

    /** One announced call. */
    static final class PendingPut {

        private final Method method;
        private final @Nullable Object target;
        private final PutOperation operation;
        private final @Nullable PendingPut outer;
        private boolean claimed;
        private boolean everClaimed;
        private boolean keyed;
        private @Nullable Object keys;

        private PendingPut(Method method, @Nullable Object target, PutOperation operation,
                @Nullable PendingPut outer) {
            this.method = method;
            this.target = target;
            this.operation = operation;
            this.outer = outer;
        }

        PutOperation operation() {
            return operation;
        }

        /** Whether {@code invocation} is an attempt of this {@link #detached} call, which it then has claimed. */
        boolean claimedBy(MethodInvocation invocation) {
            if (!sameCall(this, invocation)) {
                return false;
            }
            everClaimed = true;
            keyed = false; // a new attempt (a retry resubscribes): only its own put counts
            keys = null;
            return true;
        }

        /** Records that the attempt under way has put {@code keys} (or had none to put: {@code null}). */
        void recordKeyed(@Nullable Object keys) {
            this.keyed = true;
            this.keys = keys;
        }

        /** Ends the attempt under way, so that another attempt of the call can claim it. */
        void release() {
            claimed = false;
        }

        /**
         * Whether the last attempt that claimed the call put exactly {@code keys}: those the guard computes
         * from what the call returned. They differ when an advice returns something else (a retry's fallback
         * value), and then the guard puts its own. Compared by value: a {@code long} result is boxed anew on its
         * way out of a repository's proxy.
         */
        boolean keyed(@Nullable Object keys) {
            return keyed && Objects.deepEquals(this.keys, keys);
        }

        /** Whether any advice inside the call claimed it: if none did, it was not placed around the call. */
        boolean everClaimed() {
            return everClaimed;
        }
    }
}
