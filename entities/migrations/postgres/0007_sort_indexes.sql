-- Indexes for what clients sort and filter by most (issue: the price a shop sorts by had none, so each page of
-- $orderby=Price or /$count?$filter=Price gt 500 read the whole product table). Each ends with id, the key the
-- engine adds to every $orderby as the tie-breaker and resumes keyset pages ($skiptoken) from, so a page is read
-- straight from the index: price, the sales and stock counters, the update time; name and creation time, whose
-- indexes are replaced by ones ending with id; customers by last activity; orders by creation time.

CREATE INDEX product_price_id_idx ON product (price, id);
CREATE INDEX product_sold_id_idx ON product (sold, id);
CREATE INDEX product_stock_quantity_id_idx ON product (stock_quantity, id);
CREATE INDEX product_updated_on_utc_id_idx ON product (updated_on_utc, id);
DROP INDEX product_name_idx;
CREATE INDEX product_name_id_idx ON product (name, id);
DROP INDEX product_created_on_utc_idx;
CREATE INDEX product_created_on_utc_id_idx ON product (created_on_utc, id);
CREATE INDEX customer_last_activity_date_utc_id_idx ON customer (last_activity_date_utc, id);
CREATE INDEX order_created_on_utc_id_idx ON "order" (created_on_utc, id);
