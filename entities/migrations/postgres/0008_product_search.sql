-- The full-text index of the product search (issue 27): $search over Name, ShortDescription and Sku read every
-- product with LIKE '%term%'. A GIN index on the 'simple' tsvector (lower-cased words, no stemming) of those
-- columns joined by spaces; a query repeats the expression to be answered from the index. The statement is the
-- one odata/schema.Create writes (the engine recognizes the index by it at start-up and otherwise scans).

CREATE INDEX "product_search" ON "product" USING gin (to_tsvector('simple'::regconfig, coalesce("name", '') || ' ' || coalesce("short_description", '') || ' ' || coalesce("sku", '')));
