package io.bloomguard.guard;

import org.jspecify.annotations.Nullable;

import java.lang.reflect.Method;
import java.util.Arrays;

/**
 * The calls on this thread whose {@code @BloomPut} key is known only once they return, innermost last.
 *
 * <p>The guard's advisor runs outside a method's transaction (so that a rejected call costs none), so a key
 * it takes from the result would reach the filter after the commit, and another instance reading the row at
 * that moment would be rejected. The guard therefore announces such a call here, and
 * {@link PutBeforeCommitInterceptor}, which sits inside the transaction interceptors (Spring Data's own in a
 * repository, Spring's {@code @Transactional} on a class), claims it and puts the key as the method returns,
 * before the commit. When nothing claims the call (no such interceptor around the method), the guard puts the
 * key itself once the call returns.
 */
final class PendingPuts {

    private static final ThreadLocal<@Nullable PendingPut> innermost = new ThreadLocal<>();

    private PendingPuts() {
    }

    /** Announces a call of {@code method}; {@link #end} it when the call is over, however it ends. */
    static PendingPut begin(Method method, PutOperation put) {
        PendingPut pending = new PendingPut(method, put, innermost.get());
        innermost.set(pending);
        return pending;
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
     * The innermost announced call, if it is a call of {@code method} that nothing has claimed yet; it is then
     * claimed. Another method's call (a repository called from inside an announced service method) finds
     * nothing to claim.
     */
    static @Nullable PendingPut claim(Method method) {
        PendingPut pending = innermost.get();
        if (pending == null || pending.claimed || !sameSignature(pending.method, method)) {
            return null;
        }
        pending.claimed = true;
        return pending;
    }

    /**
     * By name and parameter types, not by declaring type: in a Spring Data repository the call arrives through a
     * second JDK proxy, whose {@code Method} for an interface method inherited along two paths (a
     * {@code saveAll} of both {@code CrudRepository} and {@code ListCrudRepository}) may be the other one.
     */
    private static boolean sameSignature(Method announced, Method invoked) {
        return announced == invoked || announced.getName().equals(invoked.getName())
                && Arrays.equals(announced.getParameterTypes(), invoked.getParameterTypes());
    }

    /** One announced call. */
    static final class PendingPut {

        private final Method method;
        private final PutOperation put;
        private final @Nullable PendingPut outer;
        private boolean claimed;

        private PendingPut(Method method, PutOperation put, @Nullable PendingPut outer) {
            this.method = method;
            this.put = put;
            this.outer = outer;
        }

        PutOperation put() {
            return put;
        }

        /** Whether an advice inside the call took over its put. */
        boolean claimed() {
            return claimed;
        }
    }
}
