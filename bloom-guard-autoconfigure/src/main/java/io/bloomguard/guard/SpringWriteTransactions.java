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
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.StringUtils;
import org.springframework.util.function.SingletonSupplier;

import java.lang.reflect.Method;

/**
 * {@link WriteTransactions} with Spring's transaction manager: a method that would run in a transaction of its
 * own ({@code @Transactional} with the default propagation, or a Spring Data repository method) is run in that
 * same transaction, begun here, so that its put lands before the commit. Called inside a caller's transaction
 * it runs as it is, and joins that one. A method that names a transaction manager or another propagation
 * ({@code REQUIRES_NEW} commits before it returns) gets no scope. If the method sets its transaction aside for
 * another one (its row may then be committed by that one), the hold on rejections starts before that one begins.
 */
public final class SpringWriteTransactions implements WriteTransactions {

    private final SingletonSupplier<PlatformTransactionManager> manager;
    private final TransactionAttributeSource attributes = new AnnotationTransactionAttributeSource(false);

    public SpringWriteTransactions(ObjectProvider<PlatformTransactionManager> managers) {
        // Looked up on first use, when every bean exists; none, or several without a primary, means no scope.
        this.manager = SingletonSupplier.of(managers::getIfUnique);
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
        return new MethodTransaction(attribute);
    }

    /** The transaction of one method, begun here unless the caller has one. */
    private final class MethodTransaction implements WriteScope {

        private final TransactionAttribute attribute;

        MethodTransaction(TransactionAttribute attribute) {
            this.attribute = attribute;
        }

        @Override
        public @Nullable Object run(Write write, Runnable holdRejections) throws Throwable {
            PlatformTransactionManager transactions = manager.get();
            if (transactions == null) {
                holdRejections.run();
                return write.run();
            }
            if (TransactionSynchronizationManager.isActualTransactionActive()) {
                // The method joins the caller's transaction: the put lands before its commit.
                return runWatched(write, holdRejections);
            }
            TransactionStatus status = transactions.getTransaction(attribute);
            Object result;
            try {
                result = runWatched(write, holdRejections);
            }
            catch (Throwable ex) {
                // As the method's own transaction would have ended: rolled back or committed by its rules.
                if (attribute.rollbackOn(ex)) {
                    transactions.rollback(status);
                }
                else {
                    transactions.commit(status);
                }
                throw ex;
            }
            transactions.commit(status);
            return result;
        }

        /**
         * Runs the write, calling {@code holdRejections} if the method sets the current transaction aside: Spring
         * tells a transaction's synchronizations before it begins another one in its place, so the hold starts
         * before that one can commit.
         */
        private @Nullable Object runWatched(Write write, Runnable holdRejections) throws Throwable {
            if (!TransactionSynchronizationManager.isSynchronizationActive()) {
                holdRejections.run(); // nothing would tell us: hold for the whole write
                return write.run();
            }
            HoldWhenSuspended watch = new HoldWhenSuspended(holdRejections);
            TransactionSynchronizationManager.registerSynchronization(watch);
            try {
                return write.run();
            }
            finally {
                watch.writeDone = true; // stays registered until the transaction ends, but no longer acts
            }
        }
    }

    /** Starts the hold the first time the transaction is suspended during the write. */
    private static final class HoldWhenSuspended implements TransactionSynchronization {

        private final Runnable holdRejections;
        // Synchronizations run on the writer's thread, so plain fields do.
        boolean writeDone;
        private boolean held;

        HoldWhenSuspended(Runnable holdRejections) {
            this.holdRejections = holdRejections;
        }

        @Override
        public void suspend() {
            if (!writeDone && !held) {
                held = true;
                holdRejections.run();
            }
        }
    }
}
