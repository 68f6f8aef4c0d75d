package io.bloomguard.testapp;

import org.springframework.data.util.Streamable;

import java.util.Iterator;

/** A Streamable wrapper type, as Spring Data lets repository methods return: built from a {@code Streamable}. */
public final class Customers implements Streamable<Customer> {

    private final Streamable<Customer> customers;

    public Customers(Streamable<Customer> customers) {
        this.customers = customers;
    }

    @Override
    public Iterator<Customer> iterator() {
        return customers.iterator();
    }
}
