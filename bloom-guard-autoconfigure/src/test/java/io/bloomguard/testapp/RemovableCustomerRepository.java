package io.bloomguard.testapp;

import io.bloomguard.annotation.BloomGuarded;
import io.bloomguard.annotation.BloomPut;
import io.bloomguard.annotation.BloomRemove;
import org.springframework.data.jpa.repository.Modifying;
import org.springframework.data.jpa.repository.Query;
import org.springframework.data.repository.CrudRepository;
import org.springframework.transaction.annotation.Transactional;

import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * Customers behind a counting filter, whose deletes take their keys back out: each delete returns what it deleted,
 * which is what tells bloom-guard that the row went.
 */
public interface RemovableCustomerRepository extends CrudRepository<Customer, Long> {

    @Override
    @BloomGuarded(filter = "removable")
    Optional<Customer> findById(Long id);

    @Override
    @BloomPut(filter = "removable", key = "#result.id")
    <S extends Customer> S save(S customer);

    /** 1, or 0 when there is no such customer (any more). */
    @BloomRemove(filter = "removable")
    @Transactional
    @Modifying
    @Query("delete from Customer c where c.id = :id")
    int deleteCustomerById(Long id);

    /** Deletes the customer only if it is the tenant's: another tenant's is left, and 0 returned. */
    @BloomRemove(filter = "removable", key = "#id")
    @Transactional
    @Modifying
    @Query("delete from Customer c where c.id = :id and c.tenant = :tenant")
    int deleteByIdAndTenant(Long id, String tenant);

    /** A derived delete: the customers it deleted. */
    @BloomRemove(filter = "removable", key = "#ids")
    @Transactional
    List<Customer> deleteAllByIdIn(Collection<Long> ids);

    /** A derived delete: how many of the tenant's customers among {@code ids} it deleted. */
    @BloomRemove(filter = "removable", key = "#ids")
    @Transactional
    long deleteByIdInAndTenant(Collection<Long> ids, String tenant);
}
