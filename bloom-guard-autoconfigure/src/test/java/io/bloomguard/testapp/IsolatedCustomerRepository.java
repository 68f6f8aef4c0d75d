package io.bloomguard.testapp;

import io.bloomguard.annotation.BloomPut;
import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.transaction.annotation.Isolation;
import org.springframework.transaction.annotation.Transactional;

/** Declares the transaction its {@code save} runs in: an isolation level of its own. */
public interface IsolatedCustomerRepository extends JpaRepository<Customer, Long> {

    @Override
    @Transactional(isolation = Isolation.REPEATABLE_READ)
    @BloomPut(filter = "codes", key = "#result.tenant + ':' + #result.code")
    <S extends Customer> S save(S customer);
}
