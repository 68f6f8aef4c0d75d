-- A million users with ids 1..1000000, in one statement (a few seconds), only into an empty table; stamped an hour
-- back, so that the change feed's first poll (which reads back its overlap) does not read them all again.
INSERT INTO users (id, name, email, created_at)
SELECT x, 'User ' || x, 'user' || x || '@example.com', now() - INTERVAL '1 hour' FROM generate_series(1, 1000000) AS x
WHERE NOT EXISTS (SELECT 1 FROM users);

-- Ids given explicitly above do not move the identity: new users continue after the highest one.
SELECT setval(pg_get_serial_sequence('users', 'id'), (SELECT max(id) FROM users));

-- The same 2,000 products as data.sql: 500 SKUs (SKU-00001 .. SKU-00500) for each of 4 tenants.
INSERT INTO products (tenant, sku, name)
SELECT t.tenant, 'SKU-' || LPAD(r.x::text, 5, '0'), 'Product ' || r.x || ' of ' || t.tenant
FROM (VALUES ('acme'), ('globex'), ('initech'), ('umbrella')) AS t(tenant)
CROSS JOIN generate_series(1, 500) AS r(x)
WHERE NOT EXISTS (SELECT 1 FROM products);

-- Planner statistics for the fresh rows, so the first lookups use the primary key.
ANALYZE users;
ANALYZE products;
