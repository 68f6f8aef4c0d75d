package io.bloomguard.sample;

import io.bloomguard.annotation.BloomGuarded;
import org.hibernate.jpa.HibernateHints;
import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.data.jpa.repository.Query;
import org.springframework.data.jpa.repository.QueryHints;

import jakarta.persistence.QueryHint;
import java.util.Optional;
import java.util.stream.Stream;

/** Products by their natural key; the filter key joins tenant and SKU the way {@link #streamAllKeys()} does. */
public interface ProductRepository extends JpaRepository<Product, ProductId> {

    @BloomGuarded(filter = "products", key = "#tenant + ':' + #sku")
    Optional<Product> findByTenantAndSku(String tenant, String sku);

    /**
     * Every product's filter key, {@code tenant:sku}, streamed from a cursor for the preload (which reads it in
     * a transaction, as a streaming query needs; not a read-only one, which a routing data source may send to a
     * replica).
     */
    @Query("select p.tenant || ':' || p.sku from Product p")
    @QueryHints(@QueryHint(name = HibernateHints.HINT_FETCH_SIZE, value = "1000"))
    Stream<String> streamAllKeys();
}
