package io.bloomguard.testapp;

import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Deletes inside transactions of the caller's, which commit or roll back after the repository's delete returned. */
@Service
public class CustomerDeletions {

    private final RemovableCustomerRepository customers;

    public CustomerDeletions(RemovableCustomerRepository customers) {
        this.customers = customers;
    }

    /** Deletes, then fails: the transaction rolls back, and the row is still there. */
    @Transactional
    public void deleteThenFail(Long id) {
        customers.deleteById(id);
        throw new IllegalStateException("rolled back after deleting customer " + id);
    }

    /** Deletes, then runs {@code beforeCommit} while the transaction is still open. */
    @Transactional
    public void delete(Long id, Runnable beforeCommit) {
        customers.deleteById(id);
        beforeCommit.run();
    }
}
