INSERT INTO customer (id, name, tenant, code, updated_at)
SELECT x, 'customer-' || x, 't' || (x % 3), 'sku-' || x, now() - interval '1 hour' FROM generate_series(1, 1000) AS x;
