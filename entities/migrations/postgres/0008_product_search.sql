-- The full-text index of the product search (issue 27): $search over Name, ShortDescription and Sku read every
-- product with LIKE '%term%'. A stored generated column, search_vector, holds the 'simple' tsvector (lower-cased
-- words, no stemming) of those columns joined by spaces, with a GIN index on it; PostgreSQL keeps both in step on
-- every write. A stored column rather than an index on the expression: a page of a frequent word walks the key's
-- index and tests each row's stored vector, where the expression index made it parse each row's text again. The
-- model declares no property of the column, so the engine never reads or writes it. The statements are those
-- odata/schema.Create writes (the engine recognizes the index by them at start-up and otherwise scans).

ALTER TABLE "product" ADD COLUMN "search_vector" tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, coalesce("name", '') || ' ' || coalesce("short_description", '') || ' ' || coalesce("sku", ''))) STORED;
CREATE INDEX "product_search" ON "product" USING gin ("search_vector");
