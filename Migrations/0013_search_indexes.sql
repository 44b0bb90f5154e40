-- The back-office search matches ids by prefix whatever their letter case:
-- `lower(id) LIKE 'prefix%'`. A text_pattern_ops index answers such a prefix in any database
-- collation (a default btree index does only under the C collation), and lists matches in
-- order, so a short prefix stops after the first page of hits instead of sorting them all.
CREATE INDEX records_record_id_search ON records (lower(record_id) text_pattern_ops);
CREATE INDEX devices_device_id_search ON devices (lower(device_id) text_pattern_ops);
-- Orders are also found by their customer's id.
CREATE INDEX records_order_customer_search ON records (lower(payload->>'customerId') text_pattern_ops) WHERE collection = 'orders';
