package io.bloomguard.guard;

import org.springframework.transaction.NoTransactionException;
import org.springframework.transaction.reactive.TransactionSynchronization;
import org.springframework.transaction.reactive.TransactionSynchronizationManager;
import reactor.core.publisher.Mono;

import java.util.function.Consumer;

/**
 * Whether a reactive pipeline runs in a Spring-managed reactive transaction, found in the subscriber's context, and
 * how that transaction ends. Loaded only where Reactor is present; works without spring-tx (there is then no
 * transaction).
 */
final class ReactiveTransactions {

    private ReactiveTransactions() {
    }

    /**
     * Emits whether a transaction is active where this is subscribed to; if one is, {@code ended} is told how it
     * ends ({@code true}: committed, or may have; {@code false}: rolled back).
     */
    static Mono<Boolean> whenEnds(Consumer<Boolean> ended) {
        return ActiveTransactions.springTxPresent() ? SpringTx.whenEnds(ended) : Mono.just(false);
    }

    /** Loaded only once spring-tx is known to be there. */
    private static final class SpringTx {

        static Mono<Boolean> whenEnds(Consumer<Boolean> ended) {
            return TransactionSynchronizationManager.forCurrentTransaction()
                    .map(transaction -> {
                        if (!transaction.isSynchronizationActive()) {
                            return false;
                        }
                        transaction.registerSynchronization(new TransactionSynchronization() {
                            @Override
                            public Mono<Void> afterCompletion(int status) {
                                // An unknown outcome (a commit whose result was lost) may have committed.
                                return Mono.fromRunnable(() -> ended.accept(status != STATUS_ROLLED_BACK));
                            }
                        });
                        return true;
                    })
                    .onErrorResume(NoTransactionException.class, none -> Mono.just(false));
        }
    }
}
