package io.bloomguard.sample;

import io.bloomguard.annotation.BloomGuarded;
import io.bloomguard.annotation.BloomRemove;
import jakarta.persistence.QueryHint;
import org.hibernate.jpa.HibernateHints;
import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.data.jpa.repository.Modifying;
import org.springframework.data.jpa.repository.Query;
import org.springframework.data.jpa.repository.QueryHints;
import org.springframework.transaction.annotation.Transactional;

import java.util.Optional;
import java.util.stream.Stream;

/** Products by their natural key; the filter key joins tenant and SKU the way {@link #streamAllKeys()} does. */
public interface ProductRepository extends JpaRepository<Product, ProductId> {

    @BloomGuarded(filter = "products", key = "#tenant + ':' + #sku")
    Optional<Product> findByTenantAndSku(String tenant, String sku);

    /**
     * Deletes a product: 1, or 0 when there was none. The count proves the row went, so its key leaves the filter
     * (a counting one) once the delete commits, and lookups of it are rejected again; a delete of no row removes
     * nothing, since its key's counters may be other keys' too.
     */
    @BloomRemove(filter = "products", key = "#tenant + ':' + #sku")
    @Transactional
    @Modifying
    @Query("delete from Product p where p.tenant = :tenant and p.sku = :sku")
    int deleteByKey(String tenant, String sku);

    /**
     * Every product's filter key, {@code tenant:sku}, streamed from a cursor for the preload (which reads it in
     * a transaction, as a streaming query needs; not a read-only one, which a routing data source may send to a
     * replica).
     */
    @Query("select p.tenant || ':' || p.sku from Product p")
    @QueryHints(@QueryHint(name = HibernateHints.HINT_FETCH_SIZE, value = "1000"))
    Stream<String> streamAllKeys();
}
