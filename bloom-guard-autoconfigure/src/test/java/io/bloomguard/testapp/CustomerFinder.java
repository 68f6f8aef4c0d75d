package io.bloomguard.testapp;

import io.bloomguard.annotation.BloomGuarded;
import org.springframework.stereotype.Component;

import java.util.Optional;

/** Implements a generic interface: the compiler adds a bridge {@code Object find(Long)} beside this method. */
@Component
public class CustomerFinder implements Finder<Optional<Customer>> {

    private final CustomerRepository customers;

    public CustomerFinder(CustomerRepository customers) {
        this.customers = customers;
    }

    @Override
    @BloomGuarded(filter = "customers")
    public Optional<Customer> find(Long id) {
        return customers.findCustomerById(id);
    }
}
