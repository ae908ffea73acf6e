-- The full-text index of the product search (issue 27): $search over Name, ShortDescription and Sku read every
-- product with LIKE '%term%'. An FTS4 external-content table over those columns (the rowid of product is its
-- docid), tokenized by unicode61 without folding diacritics, kept in step by triggers on product (an update
-- only when it changes the rowid or a searched column, so stock and price updates leave the index alone) and
-- filled once with the products the table holds. FTS4 rather than FTS5: github.com/mattn/go-sqlite3 compiles
-- FTS5 only under a build tag, and a database whose triggers name fts5 refuses every product write from a
-- program built without it. The statements are those odata/schema.Create writes (the engine recognizes the
-- index by them at start-up and otherwise scans): change them only with the engine.

CREATE VIRTUAL TABLE "product_search" USING fts4(content="product", "name", "short_description", "sku", tokenize=unicode61 "remove_diacritics=0");
CREATE TRIGGER "product_search_bu" BEFORE UPDATE ON "product" WHEN old.rowid IS NOT new.rowid OR old."name" IS NOT new."name" OR old."short_description" IS NOT new."short_description" OR old."sku" IS NOT new."sku" BEGIN DELETE FROM "product_search" WHERE docid = old.rowid; END;
CREATE TRIGGER "product_search_bd" BEFORE DELETE ON "product" BEGIN DELETE FROM "product_search" WHERE docid = old.rowid; END;
CREATE TRIGGER "product_search_au" AFTER UPDATE ON "product" WHEN old.rowid IS NOT new.rowid OR old."name" IS NOT new."name" OR old."short_description" IS NOT new."short_description" OR old."sku" IS NOT new."sku" BEGIN INSERT INTO "product_search"(docid, "name", "short_description", "sku") VALUES (new.rowid, new."name", new."short_description", new."sku"); END;
CREATE TRIGGER "product_search_ai" AFTER INSERT ON "product" BEGIN INSERT INTO "product_search"(docid, "name", "short_description", "sku") VALUES (new.rowid, new."name", new."short_description", new."sku"); END;
INSERT INTO "product_search"("product_search") VALUES ('rebuild');
