package io.bloomguard.autoconfigure;

import io.bloomguard.annotation.BloomPut;
import io.bloomguard.guard.PutBeforeCommitInterceptor;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.Ordered;
import org.springframework.core.PriorityOrdered;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.data.repository.core.support.RepositoryFactoryBeanSupport;

import java.lang.reflect.Method;

/**
 * Places {@link PutBeforeCommitInterceptor} inside every Spring Data repository that has a {@code @BloomPut}
 * method, so that a key taken from a {@code save}'s result is put before the repository's own transaction
 * commits.
 *
 * <p>A repository begins its transaction inside its own proxy, which the guard's advisor can only wrap. Spring
 * Data applies a repository factory's customizers after its transaction post-processor, so the interceptor
 * added here sits inside the transaction interceptor (and inside the one that publishes domain events, which
 * then find the key in place).
 */
final class RepositoryPutBeforeCommitPostProcessor implements BeanPostProcessor, PriorityOrdered {

    private final PutBeforeCommitInterceptor interceptor = new PutBeforeCommitInterceptor();

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
                            proxy.addAdvice(interceptor);
                        }
                    }));
        }
        return bean;
    }

    /** Any {@code @BloomPut} on the interface; {@code saveAll} and {@code saveAndFlush} take {@code save}'s. */
    private static boolean hasPut(Class<?> repositoryInterface) {
        for (Method method : repositoryInterface.getMethods()) {
            if (AnnotatedElementUtils.hasAnnotation(method, BloomPut.class)) {
                return true;
            }
        }
        return false;
    }
}
