package io.bloomguard.guard;

import org.aopalliance.aop.Advice;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;

/**
 * Advisor that applies {@link BloomGuardInterceptor} to annotated methods. Ordered ahead of Spring's caching
 * and transaction advisors (which default to the lowest precedence), so a rejected key costs neither a cache
 * lookup nor a transaction.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public final class BloomGuardAdvisor extends AbstractPointcutAdvisor {

    /** Default order: outside {@code @Cacheable} and {@code @Transactional}. */
    public static final int DEFAULT_ORDER = HIGHEST_PRECEDENCE + 1000;

    private final BloomGuardPointcut pointcut;
    private final BloomGuardInterceptor interceptor;

    public BloomGuardAdvisor(BloomOperationSource source, BloomGuardInterceptor interceptor) {
        this.pointcut = new BloomGuardPointcut(source);
        this.interceptor = interceptor;
        setOrder(DEFAULT_ORDER);
    }

    @Override
    public Pointcut getPointcut() {
        return pointcut;
    }

    @Override
    public Advice getAdvice() {
        return interceptor;
    }
}
