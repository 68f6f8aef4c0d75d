package io.bloomguard.guard;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.data.repository.Repository;

/**
 * Checks the annotations of every Spring Data repository interface at startup, whether or not the repository
 * itself is created then.
 *
 * <p>A repository is the object of a factory bean, and Spring creates (and so proxies, which is where the other
 * beans' annotations are checked) a factory bean's object only when something first asks for it. A repository
 * that nothing injects at startup, or one of Spring Data's lazy bootstrap mode, would otherwise start with a
 * misspelled filter name and fail on its first call, and the preload's "no key source" warning would not know
 * the methods it guards. The interface is read from the bean definition; the repository is not created.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public final class RepositoryAnnotationValidator implements SmartInitializingSingleton {

    private final BloomOperationSource operationSource;
    private final ListableBeanFactory beanFactory;

    public RepositoryAnnotationValidator(BloomOperationSource operationSource, ListableBeanFactory beanFactory) {
        this.operationSource = operationSource;
        this.beanFactory = beanFactory;
    }

    @Override
    public void afterSingletonsInstantiated() {
        // allowEagerInit false: a lazy repository's type comes from its definition, without creating anything.
        for (String name : beanFactory.getBeanNamesForType(Repository.class, true, false)) {
            Class<?> type = beanFactory.getType(name, false);
            if (type != null && type.isInterface()) {
                operationSource.validate(type);
            }
        }
    }
}
