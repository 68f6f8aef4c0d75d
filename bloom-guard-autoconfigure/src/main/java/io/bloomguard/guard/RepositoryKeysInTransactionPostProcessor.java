package io.bloomguard.guard;

import io.bloomguard.annotation.BloomPut;
import io.bloomguard.annotation.BloomRemove;
import org.springframework.aop.Advisor;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.Ordered;
import org.springframework.core.PriorityOrdered;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.data.repository.Repository;
import org.springframework.data.repository.core.support.RepositoryFactoryBeanSupport;

import java.lang.reflect.Method;

/**
 * Places {@link KeysInTransactionInterceptor} inside every Spring Data repository that has a {@code @BloomPut} or
 * {@code @BloomRemove} method, so that its keys are put before the repository's own transaction commits (and
 * removed after); and fails startup for a repository whose puts nothing would make.
 *
 * <p>A repository begins its transaction inside its own proxy, which the guard's advisor can only wrap. Spring
 * Data applies a repository factory's customizers after its transaction post-processor, so the interceptor
 * added here sits inside the transaction interceptor (and inside the one that publishes domain events, which
 * then find the key in place). A repository made some other way (built in code from a repository factory) has
 * no such place, and its records would be written without their keys: it is refused.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public final class RepositoryKeysInTransactionPostProcessor implements BeanPostProcessor, PriorityOrdered {

    private final ObjectProvider<BloomOperationSource> source;
    private volatile KeysInTransactionInterceptor interceptor;

    /** The operation source is looked up when the first repository is made: not while post-processors are. */
    public RepositoryKeysInTransactionPostProcessor(ObjectProvider<BloomOperationSource> source) {
        this.source = source;
    }

    /**
     * Among the first post-processors registered: a repository created while later ones are being made (one
     * that some post-processor depends on) still gets the interceptor.
     */
    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }

    @Override
    public Object postProcessBeforeInitialization(Object bean, String beanName) {
        if (bean instanceof RepositoryFactoryBeanSupport<?, ?, ?> repositoryFactory) {
            repositoryFactory.addRepositoryFactoryCustomizer(factory -> factory.addRepositoryProxyPostProcessor(
                    (proxy, repository) -> {
                        if (hasPut(repository.getRepositoryInterface())) {
                            proxy.addAdvice(interceptor());
                        }
                    }));
        }
        return bean;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof Repository<?, ?> && AopUtils.isJdkDynamicProxy(bean) && !(bean instanceof RepositoryFactoryBeanSupport<?, ?, ?>)) {
            for (Class<?> type : bean.getClass().getInterfaces()) {
                if (Repository.class.isAssignableFrom(type) && hasPut(type) && !putInside(bean)) {
                    throw new InvalidBloomAnnotationException("@BloomPut", type.getName() + " (bean '" + beanName
                            + "')", "bloom-guard puts a repository's keys inside the repository's own transaction,"
                            + " which it can do only for repositories that Spring Data creates through its repository"
                            + " factory beans; this one was made some other way, and its records would be written"
                            + " without their keys", "Let Spring Data create the repository (@EnableJpaRepositories"
                            + " and the like, or Spring Boot's repository auto-configuration), or move the @BloomPut"
                            + " to a @Transactional method of a bean that calls it");
                }
            }
        }
        return bean;
    }

    private KeysInTransactionInterceptor interceptor() {
        KeysInTransactionInterceptor current = interceptor;
        if (current == null) {
            synchronized (this) {
                current = interceptor;
                if (current == null) {
                    current = KeysInTransactionInterceptor.forRepositories(source.getObject());
                    interceptor = current;
                }
            }
        }
        return current;
    }

    /** Whether a put interceptor is among the advice of {@code bean}'s proxy or of a proxy it wraps. */
    private static boolean putInside(Object bean) {
        Object current = bean;
        while (current instanceof Advised advised) {
            for (Advisor advisor : advised.getAdvisors()) {
                if (advisor.getAdvice() instanceof KeysInTransactionInterceptor) {
                    return true;
                }
            }
            try {
                current = advised.getTargetSource().getTarget();
            }
            catch (Exception ex) {
                return false;
            }
        }
        return false;
    }

    /**
     * Any {@code @BloomPut} or {@code @BloomRemove} on the interface; {@code saveAll} and {@code saveAndFlush} take
     * {@code save}'s.
     */
    private static boolean hasPut(Class<?> repositoryInterface) {
        for (Method method : repositoryInterface.getMethods()) {
            if (AnnotatedElementUtils.hasAnnotation(method, BloomPut.class)
                    || AnnotatedElementUtils.hasAnnotation(method, BloomRemove.class)) {
                return true;
            }
        }
        return false;
    }
}
