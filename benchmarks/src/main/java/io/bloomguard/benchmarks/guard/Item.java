package io.bloomguard.benchmarks.guard;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** A row of the benchmark's table; the table stays empty, since no measured call reaches the database. */
@Entity
public class Item {

    @Id
    private long id;

    private String tenant;

    private String sku;

    protected Item() {
        // for JPA
    }

    Item(long id, String tenant, String sku) {
        this.id = id;
        this.tenant = tenant;
        this.sku = sku;
    }

    public long getId() {
        return id;
    }

    public String getTenant() {
        return tenant;
    }

    public String getSku() {
        return sku;
    }
}
