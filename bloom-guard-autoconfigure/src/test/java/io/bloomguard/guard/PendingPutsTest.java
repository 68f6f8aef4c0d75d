package io.bloomguard.guard;

import org.aopalliance.intercept.MethodInterceptor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.framework.ProxyFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which advice makes a result-keyed put, through real Spring AOP proxies: an advice inside the call it was
 * announced for, once per attempt; never an advice around another call.
 */
class PendingPutsTest {

    interface Writes {
        Object save(Object entity);

        Object copy(Object entity);

        long count(Object entity);
    }

    private final PutOperation put = new PutOperation(null, null, "Writes.save", DeferredPuts.Kind.NOW);

    /** What the announcing advice (the guard's role) saw when its call returned. */
    private final List<String> announcerSaw = new ArrayList<>();

    /** One entry per claim attempt of the claiming advice (the role of the advice inside the transaction). */
    private final List<Boolean> claims = new ArrayList<>();

    private final MethodInterceptor announcer = invocation -> {
        PendingPuts.PendingPut pending = PendingPuts.begin(invocation, put);
        try {
            Object result = invocation.proceed();
            announcerSaw.add((pending.everClaimed() && pending.keyed(result) ? "keyed" : "not keyed")
                    + (pending.everClaimed() ? "" : ", never claimed"));
            return result;
        }
        finally {
            PendingPuts.end(pending);
        }
    };

    private final MethodInterceptor claimer = invocation -> {
        PendingPuts.PendingPut pending = PendingPuts.claim(invocation);
        claims.add(pending != null);
        if (pending == null) {
            return invocation.proceed();
        }
        try {
            Object result = invocation.proceed();
            pending.recordKeyed(result); // here the key is the result itself
            return result;
        }
        finally {
            pending.release();
        }
    };

    @AfterEach
    void nothingLeftAnnounced() {
        assertThat(PendingPuts.isEmpty()).isTrue();
    }

    @Test
    void anAdviceInsideTheCallClaimsItAndASecondOneDoesNot() {
        Writes writes = proxy(new Entities(), announcer, claimer, claimer);
        writes.save("a");
        assertThat(claims).containsExactly(true, false);
        assertThat(announcerSaw).containsExactly("keyed");
    }

    @Test
    void withNothingInsideTheCallTheGuardPutsTheKeyItself() {
        proxy(new Entities(), announcer).save("a");
        assertThat(announcerSaw).containsExactly("not keyed, never claimed");
    }

    @Test
    void theSameMethodOfAnotherObjectCalledInsideClaimsNothing() {
        Writes other = proxy(new Entities(), claimer);
        proxy(new Entities(entity -> other.save(entity)), announcer).save("a");
        assertThat(claims).containsExactly(false);
        assertThat(announcerSaw).containsExactly("not keyed, never claimed");
    }

    @Test
    void anotherMethodOfTheSameObjectCalledInsideClaimsNothing() {
        Entities entities = new Entities();
        Writes claiming = proxy(entities, claimer);
        entities.onSave = claiming::copy;
        proxy(entities, announcer).save("a");
        assertThat(claims).containsExactly(false);
        assertThat(announcerSaw).containsExactly("not keyed, never claimed");
    }

    @Test
    void eachAttemptOfARetriedCallClaimsItAnew() {
        Entities entities = new Entities();
        entities.failuresLeft = 1;
        MethodInterceptor retryOnce = invocation -> {
            try {
                return ((ProxyMethodInvocation) invocation).invocableClone().proceed();
            }
            catch (IllegalStateException ex) {
                return ((ProxyMethodInvocation) invocation).invocableClone().proceed();
            }
        };
        proxy(entities, announcer, retryOnce, claimer).save("a");
        assertThat(claims).as("one claim per attempt").containsExactly(true, true);
        assertThat(announcerSaw).containsExactly("keyed");
    }

    /** A retry after the put, when the commit fails (an optimistic-lock conflict, say): the new attempt puts again. */
    @Test
    void anAttemptThatPutThenFailedAtTheCommitIsFollowedByOneThatPutsItsOwnKey() {
        Entities entities = new Entities();
        boolean[] commitFails = {true};
        MethodInterceptor commit = invocation -> {
            Object result = invocation.proceed();
            if (commitFails[0]) {
                commitFails[0] = false;
                throw new IllegalStateException("optimistic lock conflict at commit");
            }
            return result;
        };
        MethodInterceptor retryOnce = invocation -> {
            try {
                return ((ProxyMethodInvocation) invocation).invocableClone().proceed();
            }
            catch (IllegalStateException ex) {
                return ((ProxyMethodInvocation) invocation).invocableClone().proceed();
            }
        };
        Object saved = proxy(entities, announcer, retryOnce, commit, claimer).save("a");
        assertThat(saved).isEqualTo("saved a (2)");
        assertThat(claims).as("one claim per attempt").containsExactly(true, true);
        assertThat(announcerSaw).as("the second attempt's key is the one put").containsExactly("keyed");
    }

    /** A repository: the guard's proxy wraps the repository's own proxy, where the call is claimed. */
    @Test
    void theCallIsClaimedInsideAProxyTheGuardsProxyWraps() {
        Writes repository = proxy(new Entities(), claimer);
        proxy(repository, announcer).save("a");
        assertThat(claims).containsExactly(true);
        assertThat(announcerSaw).containsExactly("keyed");
    }

    /** Out of the inner proxy a {@code long} is boxed anew: another object, the same key. */
    @Test
    void aPrimitiveResultBoxedAgainBetweenTheProxiesIsStillTakenAsKeyed() {
        Writes repository = proxy(new Entities(), claimer);
        assertThat(proxy(repository, announcer).count("a")).isEqualTo(1_000L);
        assertThat(announcerSaw).containsExactly("keyed");
    }

    @Test
    void aResultOtherThanTheOneKeyedInsideIsNotTakenAsKeyed() {
        MethodInterceptor fallback = invocation -> {
            invocation.proceed();
            return "fallback";
        };
        proxy(new Entities(), announcer, fallback, claimer).save("a");
        assertThat(claims).containsExactly(true);
        assertThat(announcerSaw).as("the guard puts the key of what was returned").containsExactly("not keyed");
    }

    private static Writes proxy(Writes target, MethodInterceptor... advices) {
        ProxyFactory factory = new ProxyFactory(target);
        factory.addInterface(Writes.class);
        for (MethodInterceptor advice : advices) {
            factory.addAdvice(advice);
        }
        return (Writes) factory.getProxy();
    }

    static final class Entities implements Writes {

        Function<Object, Object> onSave;
        int failuresLeft;
        int saves;

        Entities() {
            this(entity -> entity);
        }

        Entities(Function<Object, Object> onSave) {
            this.onSave = onSave;
        }

        @Override
        public Object save(Object entity) {
            if (failuresLeft > 0) {
                failuresLeft--;
                throw new IllegalStateException("deadlock, say");
            }
            onSave.apply(entity);
            return "saved " + entity + (++saves > 1 ? " (" + saves + ")" : "");
        }

        @Override
        public long count(Object entity) {
            return 1_000L;
        }

        @Override
        public Object copy(Object entity) {
            return entity;
        }
    }
}
