package io.bloomguard.testapp;

import io.bloomguard.annotation.BloomPut;
import org.springframework.data.repository.Repository;

/** A repository that exposes only the methods it declares, as Spring Data allows: no CrudRepository. */
public interface PlainCustomerRepository extends Repository<Customer, Long> {

    @BloomPut(filter = "customers", key = "#result.id")
    Customer save(Customer customer);
}
