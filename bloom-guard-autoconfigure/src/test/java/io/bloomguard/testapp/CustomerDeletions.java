package io.bloomguard.testapp;

import io.bloomguard.annotation.BloomRemove;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Deletes inside transactions of the caller's, which commit or roll back after the repository's delete returned, and
 * deletes of its own through JDBC.
 */
@Service
public class CustomerDeletions {

    private final RemovableCustomerRepository customers;
    private final JdbcTemplate jdbc;

    public CustomerDeletions(RemovableCustomerRepository customers, JdbcTemplate jdbc) {
        this.customers = customers;
        this.jdbc = jdbc;
    }

    /** Deletes, then fails: the transaction rolls back, and the row is still there. */
    @Transactional
    public void deleteThenFail(Long id) {
        customers.deleteCustomerById(id);
        throw new IllegalStateException("rolled back after deleting customer " + id);
    }

    /** Deletes, then runs {@code beforeCommit} while the transaction is still open. */
    @Transactional
    public void delete(Long id, Runnable beforeCommit) {
        customers.deleteCustomerById(id);
        beforeCommit.run();
    }

    /** A JDBC delete in whatever transaction the caller has, if any: the count of rows it deleted. */
    @BloomRemove(filter = "removable")
    public int deleteRow(Long id) {
        return jdbc.update("delete from customer where id = ?", id);
    }

    /** Deletes the customer if it is the tenant's: a result that proves nothing by itself, read by the condition. */
    @BloomRemove(filter = "removable", key = "#id", condition = "#result.deleted()")
    public Removal remove(Long id, String tenant) {
        return new Removal(jdbc.update("delete from customer where id = ? and tenant = ?", id, tenant) == 1);
    }

    /** What {@link #remove} did. */
    public record Removal(boolean deleted) {
    }
}
