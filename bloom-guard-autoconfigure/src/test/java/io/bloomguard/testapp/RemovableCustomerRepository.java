package io.bloomguard.testapp;

import io.bloomguard.annotation.BloomGuarded;
import io.bloomguard.annotation.BloomPut;
import io.bloomguard.annotation.BloomRemove;
import org.springframework.data.repository.CrudRepository;

import java.util.Optional;

/** Customers behind a counting filter, whose deletes take their keys back out. */
public interface RemovableCustomerRepository extends CrudRepository<Customer, Long> {

    @Override
    @BloomGuarded(filter = "removable")
    Optional<Customer> findById(Long id);

    @Override
    @BloomPut(filter = "removable", key = "#result.id")
    <S extends Customer> S save(S customer);

    @Override
    @BloomRemove(filter = "removable")
    void deleteById(Long id);

    @Override
    @BloomRemove(filter = "removable", key = "#customer.id")
    void delete(Customer customer);

    @Override
    @BloomRemove(filter = "removable", key = "#ids")
    void deleteAllById(Iterable<? extends Long> ids);
}
