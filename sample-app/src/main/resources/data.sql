-- 5,000 users with ids 1..5000 (SeedData.USER_COUNT), stamped an hour back: rows written before this start, which
-- the preload reads. The change feed's first poll reads back only its overlap, so it does not add them all again.
INSERT INTO users (id, name, email, created_at)
SELECT X, 'User ' || X, 'user' || X || '@example.com', DATEADD('HOUR', -1, CURRENT_TIMESTAMP)
FROM SYSTEM_RANGE(1, 5000);

-- Ids given explicitly above do not move the identity: new users continue after the seeded ones.
ALTER TABLE users ALTER COLUMN id RESTART WITH 5001;

-- 2,000 products: 500 SKUs (SKU-00001 .. SKU-00500) for each of 4 tenants.
INSERT INTO products (tenant, sku, name)
SELECT t.tenant, 'SKU-' || LPAD(CAST(r.X AS VARCHAR), 5, '0'), 'Product ' || r.X || ' of ' || t.tenant
FROM (VALUES ('acme'), ('globex'), ('initech'), ('umbrella')) AS t(tenant)
CROSS JOIN SYSTEM_RANGE(1, 500) AS r;
