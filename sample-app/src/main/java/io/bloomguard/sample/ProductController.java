package io.bloomguard.sample;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/** {@code GET /products/{tenant}/{sku}} (404 when absent) and {@code DELETE /products/{tenant}/{sku}}. */
@RestController
class ProductController {

    private final ProductRepository products;

    ProductController(ProductRepository products) {
        this.products = products;
    }

    @GetMapping("/products/{tenant}/{sku}")
    ResponseEntity<ProductView> find(@PathVariable String tenant, @PathVariable String sku) {
        return ResponseEntity.of(products.findByTenantAndSku(tenant, sku).map(ProductView::of));
    }

    @DeleteMapping("/products/{tenant}/{sku}")
    ResponseEntity<Void> delete(@PathVariable String tenant, @PathVariable String sku) {
        return (products.deleteByKey(tenant, sku) > 0) ? ResponseEntity.noContent().build()
                : ResponseEntity.notFound().build();
    }

    /** A product as the API shows it. */
    record ProductView(String tenant, String sku, String name) {

        static ProductView of(Product product) {
            return new ProductView(product.getTenant(), product.getSku(), product.getName());
        }
    }
}
