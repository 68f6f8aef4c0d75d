package io.bloomguard.testapp;

import io.bloomguard.annotation.BloomGuarded;
import io.bloomguard.annotation.BloomPut;
import org.springframework.cache.annotation.Cacheable;
import org.springframework.data.domain.Page;
import org.springframework.data.domain.Pageable;
import org.springframework.data.domain.Slice;
import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.data.jpa.repository.Query;

import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/** A Spring Data repository guarded the way the README and docs/guard.md tell users to. */
public interface CustomerRepository extends JpaRepository<Customer, Long> {

    @Override
    @BloomGuarded(filter = "customers")
    @Cacheable("customers")
    Optional<Customer> findById(Long id);

    @Override
    @BloomGuarded(filter = "customers")
    boolean existsById(Long id);

    @BloomGuarded(filter = "customers")
    long countById(Long id);

    /** Run with only the ids that might exist: one query, or none. */
    @Override
    @BloomGuarded(filter = "customers")
    List<Customer> findAllById(Iterable<Long> ids);

    @BloomGuarded(filter = "codes", key = "#codes", elementKey = "#tenant + ':' + #e")
    List<Customer> findByTenantAndCodeIn(String tenant, Collection<String> codes);

    @BloomGuarded(filter = "customers", key = "#id")
    @Query("select c from Customer c where c.id = :id")
    List<Customer> listById(Long id);

    @BloomGuarded(filter = "customers", key = "#p0")
    @Query("select c from Customer c where c.id = :id")
    Stream<Customer> streamById(Long id);

    /** The key is text here while the preload read numbers: "42" and 42L are one key. */
    @BloomGuarded(filter = "customers")
    @Query("select c from Customer c where cast(c.id as String) = :idText")
    Optional<Customer> findByIdText(String idText);

    @BloomGuarded(filter = "codes", key = "#tenant + ':' + #code")
    Optional<Customer> findByTenantAndCode(String tenant, String code);

    @BloomGuarded(filter = "codes", key = "#tenant + ':' + #code")
    Page<Customer> findPageByTenantAndCode(String tenant, String code, Pageable pageable);

    @BloomGuarded(filter = "codes", key = "#tenant + ':' + #code")
    Customers findAllByTenantAndCode(String tenant, String code);

    @BloomGuarded(filter = "codes", key = "#tenant + ':' + #code")
    Slice<Customer> findSliceByTenantAndCode(String tenant, String code, Pageable pageable);

    /** Not guarded: what other beans use to reach the database directly. */
    Optional<Customer> findCustomerById(Long id);

    @Query("select concat(c.tenant, ':', c.code) from Customer c")
    Stream<String> streamCodes();

    @Override
    @BloomPut(filter = "codes", key = "#result.tenant + ':' + #result.code")
    <S extends Customer> S save(S customer);
}
