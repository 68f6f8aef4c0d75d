package io.bloomguard.guard;

import org.aopalliance.aop.Advice;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;

import java.lang.reflect.Method;

/**
 * Applies {@link KeysInTransactionInterceptor} to {@code @BloomPut} and {@code @BloomRemove} methods of classes, inside their
 * {@code @Transactional}.
 *
 * <p>It has the lowest precedence, as Spring's transaction advisor does by default, and the auto-configuration
 * is ordered after Spring Boot's transaction auto-configuration, so this advisor is declared after the
 * transaction advisor and, at equal precedence, runs inside it. Spring Data repositories are left out: their
 * transaction is begun inside the repository's own proxy, where a repository proxy post-processor places the
 * same interceptor.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public final class KeysInTransactionAdvisor extends AbstractPointcutAdvisor {

    private final Pointcut pointcut;
    private final KeysInTransactionInterceptor interceptor;

    public KeysInTransactionAdvisor(BloomOperationSource source) {
        this.interceptor = KeysInTransactionInterceptor.forClasses(source);
        this.pointcut = new StaticMethodMatcherPointcut() {
            @Override
            public boolean matches(Method method, @Nullable Class<?> targetClass) {
                return source.hasWriteOnClass(method, targetClass);
            }
        };
        setOrder(LOWEST_PRECEDENCE);
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
