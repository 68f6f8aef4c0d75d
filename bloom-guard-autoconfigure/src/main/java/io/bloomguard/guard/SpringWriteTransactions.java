package io.bloomguard.guard;

import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.annotation.AnnotationTransactionAttributeSource;
import org.springframework.transaction.interceptor.DefaultTransactionAttribute;
import org.springframework.transaction.interceptor.TransactionAttribute;
import org.springframework.transaction.interceptor.TransactionAttributeSource;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.StringUtils;

import java.lang.reflect.Method;

/**
 * {@link WriteTransactions} with Spring's transaction manager: a method that would run in a transaction of its
 * own ({@code @Transactional} with the default propagation, or a Spring Data repository method) is run in that
 * same transaction, begun here, so that its put lands before the commit. Called inside a caller's transaction,
 * or when the method names a transaction manager or another propagation, it runs as it is.
 */
public final class SpringWriteTransactions implements WriteTransactions {

    private final ObjectProvider<PlatformTransactionManager> managers;
    private final TransactionAttributeSource attributes = new AnnotationTransactionAttributeSource(false);

    public SpringWriteTransactions(ObjectProvider<PlatformTransactionManager> managers) {
        this.managers = managers;
    }

    @Override
    public @Nullable WriteScope scopeFor(Method method, @Nullable Class<?> targetClass, boolean repositoryMethod) {
        // A repository's own @Transactional sits on its implementation class, not on the user's interface;
        // Spring Data's write methods use the default attribute.
        TransactionAttribute attribute = repositoryMethod ? new DefaultTransactionAttribute()
                : attributes.getTransactionAttribute(method, targetClass);
        if (attribute == null || attribute.getPropagationBehavior() != TransactionDefinition.PROPAGATION_REQUIRED
                || StringUtils.hasText(attribute.getQualifier())) {
            return null;
        }
        return write -> run(attribute, write);
    }

    private @Nullable Object run(TransactionAttribute attribute, Write write) throws Throwable {
        PlatformTransactionManager manager = managers.getIfUnique();
        if (manager == null || TransactionSynchronizationManager.isActualTransactionActive()) {
            return write.run(); // in a caller's transaction the put already lands before its commit
        }
        TransactionStatus status = manager.getTransaction(attribute);
        Object result;
        try {
            result = write.run();
        }
        catch (Throwable ex) {
            // As the method's own transaction would have ended: rolled back or committed by its rules.
            if (attribute.rollbackOn(ex)) {
                manager.rollback(status);
            }
            else {
                manager.commit(status);
            }
            throw ex;
        }
        manager.commit(status);
        return result;
    }
}
