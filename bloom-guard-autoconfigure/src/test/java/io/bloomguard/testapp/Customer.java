package io.bloomguard.testapp;

import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.PostPersist;
import jakarta.persistence.Transient;

import java.util.function.Consumer;

@Entity
public class Customer {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;

    private String name;

    private String tenant;

    private String code;

    /**
     * What tests want done the moment a customer is inserted, inside the transaction that inserts it (to
     * register an after-commit action there).
     */
    @Transient
    public static volatile Consumer<Customer> onInsert = customer -> { };

    protected Customer() {
    }

    @PostPersist
    void inserted() {
        onInsert.accept(this);
    }

    public Customer(String name, String tenant, String code) {
        this.name = name;
        this.tenant = tenant;
        this.code = code;
    }

    public Long getId() {
        return id;
    }

    public String getName() {
        return name;
    }

    public String getTenant() {
        return tenant;
    }

    public String getCode() {
        return code;
    }
}
