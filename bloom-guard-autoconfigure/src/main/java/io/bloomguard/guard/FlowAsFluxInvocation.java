package io.bloomguard.guard;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.ProxyMethodInvocation;

import java.lang.reflect.AccessibleObject;
import java.lang.reflect.Method;

/**
 * A call of a method returning a Kotlin {@code Flow}, proceeding to a {@code Flux} of it: the guard's reactive path
 * ({@link ReactiveGuard}, {@link ReactiveKeyedWrite}) then handles it as it handles a {@code Flux}. Each clone (one per
 * subscription) converts too.
 */
final class FlowAsFluxInvocation implements ProxyMethodInvocation {

    private final MethodInvocation call;

    FlowAsFluxInvocation(MethodInvocation call) {
        this.call = call;
    }

    @Override
    public @Nullable Object proceed() throws Throwable {
        Object flow = call.proceed();
        return (flow != null) ? CoroutineCalls.flowAdapter().toPublisher(flow) : null;
    }

    @Override
    public Method getMethod() {
        return call.getMethod();
    }

    @Override
    public Object[] getArguments() {
        return call.getArguments();
    }

    @Override
    public @Nullable Object getThis() {
        return call.getThis();
    }

    @Override
    public AccessibleObject getStaticPart() {
        return call.getStaticPart();
    }

    @Override
    public Object getProxy() {
        return proxied().getProxy();
    }

    @Override
    public MethodInvocation invocableClone() {
        return new FlowAsFluxInvocation(proxied().invocableClone());
    }

    @Override
    public MethodInvocation invocableClone(@Nullable Object... arguments) {
        return new FlowAsFluxInvocation(proxied().invocableClone(arguments));
    }

    @Override
    public void setArguments(@Nullable Object... arguments) {
        proxied().setArguments(arguments);
    }

    @Override
    public void setUserAttribute(String key, @Nullable Object value) {
        proxied().setUserAttribute(key, value);
    }

    @Override
    public @Nullable Object getUserAttribute(String key) {
        return proxied().getUserAttribute(key);
    }

    private ProxyMethodInvocation proxied() {
        if (call instanceof ProxyMethodInvocation proxied) {
            return proxied;
        }
        throw new UnsupportedOperationException("not a Spring proxy's invocation: " + call);
    }
}
