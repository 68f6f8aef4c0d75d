package io.bloomguard.testapp;

import io.bloomguard.annotation.BloomGuarded;
import io.bloomguard.annotation.BloomPut;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

import java.util.Optional;

/** Guarded methods on a class (a CGLIB proxy, unlike the repository's JDK proxy). */
@Component
public class Lookups {

    private final CustomerRepository customers;
    private final JdbcTemplate jdbc;
    private volatile Runnable afterInsert = () -> { };

    public Lookups(CustomerRepository customers, JdbcTemplate jdbc) {
        this.customers = customers;
        this.jdbc = jdbc;
    }

    /** Guarded by a filter in shadow mode whose key source leaves out the customers with even ids. */
    @BloomGuarded(filter = "shadowed")
    public Optional<Customer> shadowed(Long id) {
        return customers.findCustomerById(id);
    }

    /** Guarded by a filter sized for 1,000 keys at a 50% error rate: plenty of false positives to count. */
    @BloomGuarded(filter = "tiny")
    public Optional<Customer> tiny(Long id) {
        return customers.findCustomerById(id);
    }

    /**
     * Inserts a row in its own auto-committed statement, outside any transaction, and only then knows the key:
     * the commit happens before the put. {@link #afterInsert} runs between the two.
     */
    @BloomPut(filter = "customers", key = "#result")
    public long insertCommittedBeforeKeyIsKnown(String name) {
        jdbc.update("insert into customer (name, tenant, code) values (?, 't9', ?)", name, "raw-" + name);
        long id = jdbc.queryForObject("select id from customer where name = ?", Long.class, name);
        afterInsert.run();
        return id;
    }

    public void setAfterInsert(Runnable afterInsert) {
        this.afterInsert = afterInsert;
    }
}
