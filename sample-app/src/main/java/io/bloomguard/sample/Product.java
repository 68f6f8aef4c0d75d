package io.bloomguard.sample;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.IdClass;
import jakarta.persistence.Table;

/** A product of one tenant; the {@code products} filter holds every {@code tenant:sku}. */
@Entity
@Table(name = "products")
@IdClass(ProductId.class)
public class Product {

    @Id
    private String tenant;

    @Id
    private String sku;

    private String name;

    protected Product() {
        // for JPA
    }

    public String getTenant() {
        return tenant;
    }

    public String getSku() {
        return sku;
    }

    public String getName() {
        return name;
    }
}
