package io.bloomguard.testapp;

import org.aopalliance.aop.Advice;
import org.aopalliance.intercept.MethodInterceptor;
import org.springframework.aop.Pointcut;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;

/**
 * Retries {@link RetryOnce} methods once, from where Spring Retry's {@code @EnableRetry} and most hand-written
 * retry aspects sit: just outside the transaction (one step above the lowest precedence), inside bloom-guard's
 * guard. Each attempt runs the rest of the chain again, transaction included.
 */
public class RetryOnceAdvisor extends AbstractPointcutAdvisor {

    private final Pointcut pointcut = AnnotationMatchingPointcut.forMethodAnnotation(RetryOnce.class);

    private final MethodInterceptor retry = invocation -> {
        ProxyMethodInvocation attempt = (ProxyMethodInvocation) invocation;
        try {
            return attempt.invocableClone().proceed();
        }
        catch (RuntimeException ex) {
            return attempt.invocableClone().proceed();
        }
    };

    public RetryOnceAdvisor() {
        setOrder(LOWEST_PRECEDENCE - 1);
    }

    @Override
    public Pointcut getPointcut() {
        return pointcut;
    }

    @Override
    public Advice getAdvice() {
        return retry;
    }
}
