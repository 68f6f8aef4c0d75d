CREATE VIEW customer_changes AS SELECT id, updated_at FROM customer;
