INSERT INTO customer (id, name, tenant, code)
SELECT X, 'customer-' || X, 't' || MOD(X, 3), 'sku-' || X FROM SYSTEM_RANGE(1, 1000);
