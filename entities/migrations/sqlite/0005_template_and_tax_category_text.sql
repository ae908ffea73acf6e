-- Manufacturer.ManufacturerTemplateId and Product.TaxCategoryId become nullable strings, as in the original
-- system (SPEC 4.1 and 4.4): opaque references to a display template and a tax category, which this store does
-- not hold. A stored 0 was the default, meaning "none", and becomes NULL; any other number keeps its digits as
-- text (7 becomes '7'). Each column is replaced by a new one of the new type, so both databases end with the
-- same columns in the same order (SQLite cannot change a column's type in place).

ALTER TABLE manufacturer ADD COLUMN manufacturer_template_id_text TEXT;
UPDATE manufacturer SET manufacturer_template_id_text = CAST(manufacturer_template_id AS TEXT)
WHERE manufacturer_template_id <> 0;
ALTER TABLE manufacturer DROP COLUMN manufacturer_template_id;
ALTER TABLE manufacturer RENAME COLUMN manufacturer_template_id_text TO manufacturer_template_id;

ALTER TABLE product ADD COLUMN tax_category_id_text TEXT;
UPDATE product SET tax_category_id_text = CAST(tax_category_id AS TEXT) WHERE tax_category_id <> 0;
ALTER TABLE product DROP COLUMN tax_category_id;
ALTER TABLE product RENAME COLUMN tax_category_id_text TO tax_category_id;
