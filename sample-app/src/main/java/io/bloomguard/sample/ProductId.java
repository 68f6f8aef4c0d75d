package io.bloomguard.sample;

import org.jspecify.annotations.Nullable;

import java.io.Serializable;
import java.util.Objects;

/** The natural key of a {@link Product}: SKUs are unique per tenant only. */
public class ProductId implements Serializable {

    private String tenant;

    private String sku;

    protected ProductId() {
        // for JPA
    }

    public ProductId(String tenant, String sku) {
        this.tenant = tenant;
        this.sku = sku;
    }

    @Override
    public boolean equals(@Nullable Object other) {
        return other instanceof ProductId that && tenant.equals(that.tenant) && sku.equals(that.sku);
    }

    @Override
    public int hashCode() {
        return Objects.hash(tenant, sku);
    }
}
