CREATE TABLE "publisher" (
	"id" TEXT COLLATE "C" NOT NULL,
	"name" TEXT COLLATE "C" NOT NULL,
	"address_street" TEXT COLLATE "C",
	"address_city" TEXT COLLATE "C",
	"address_geo_lat" DOUBLE PRECISION,
	"address_geo_lon" DOUBLE PRECISION,
	"founded" DATE,
	"created_on_utc" TIMESTAMPTZ NOT NULL DEFAULT CURRENT_TIMESTAMP,
	"row_version" BIGINT NOT NULL DEFAULT floor(random() * 281474976710655)::bigint,
	PRIMARY KEY ("id")
);
CREATE OR REPLACE FUNCTION "publisher_row_version"() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN IF NEW."row_version" IS NOT DISTINCT FROM OLD."row_version" THEN NEW."row_version" := OLD."row_version" + 1; END IF; RETURN NEW; END$$;
CREATE TRIGGER "publisher_row_version" BEFORE UPDATE ON "publisher" FOR EACH ROW EXECUTE FUNCTION "publisher_row_version"();
CREATE TABLE "author" (
	"id" TEXT COLLATE "C" NOT NULL,
	"name" TEXT COLLATE "C" NOT NULL,
	"photo" BYTEA,
	"row_version" BIGINT NOT NULL DEFAULT floor(random() * 281474976710655)::bigint,
	PRIMARY KEY ("id")
);
CREATE OR REPLACE FUNCTION "author_row_version"() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN IF NEW."row_version" IS NOT DISTINCT FROM OLD."row_version" THEN NEW."row_version" := OLD."row_version" + 1; END IF; RETURN NEW; END$$;
CREATE TRIGGER "author_row_version" BEFORE UPDATE ON "author" FOR EACH ROW EXECUTE FUNCTION "author_row_version"();
CREATE TABLE "book" (
	"id" TEXT COLLATE "C" NOT NULL,
	"title" TEXT COLLATE "C" NOT NULL,
	"isbn" TEXT COLLATE "C",
	"price" NUMERIC(19,4) NOT NULL DEFAULT '9.9900',
	"pages" INTEGER NOT NULL,
	"edition" SMALLINT NOT NULL DEFAULT 1,
	"flag" SMALLINT NOT NULL,
	"level" SMALLINT NOT NULL,
	"sold" BIGINT NOT NULL DEFAULT 0,
	"rating" DOUBLE PRECISION,
	"weight" REAL,
	"in_print" BOOLEAN NOT NULL DEFAULT TRUE,
	"genre" SMALLINT NOT NULL DEFAULT 1,
	"formats" INTEGER NOT NULL DEFAULT 2,
	"published" DATE,
	"reading_time" BIGINT,
	"release_time" TIME,
	"updated_on_utc" TIMESTAMPTZ,
	"catalog_guid" UUID,
	"stamp" BYTEA,
	"size_width" INTEGER NOT NULL DEFAULT 0,
	"size_height" INTEGER NOT NULL DEFAULT 0,
	"publisher_id" TEXT COLLATE "C",
	"row_version" BIGINT NOT NULL DEFAULT floor(random() * 281474976710655)::bigint,
	PRIMARY KEY ("id")
);
CREATE OR REPLACE FUNCTION "book_row_version"() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN IF NEW."row_version" IS NOT DISTINCT FROM OLD."row_version" THEN NEW."row_version" := OLD."row_version" + 1; END IF; RETURN NEW; END$$;
CREATE TRIGGER "book_row_version" BEFORE UPDATE ON "book" FOR EACH ROW EXECUTE FUNCTION "book_row_version"();
CREATE TABLE "chapter" (
	"number" INTEGER NOT NULL,
	"title" TEXT COLLATE "C",
	"book_id" TEXT COLLATE "C" NOT NULL,
	"row_version" BIGINT NOT NULL DEFAULT floor(random() * 281474976710655)::bigint,
	PRIMARY KEY ("book_id", "number")
);
CREATE OR REPLACE FUNCTION "chapter_row_version"() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN IF NEW."row_version" IS NOT DISTINCT FROM OLD."row_version" THEN NEW."row_version" := OLD."row_version" + 1; END IF; RETURN NEW; END$$;
CREATE TRIGGER "chapter_row_version" BEFORE UPDATE ON "chapter" FOR EACH ROW EXECUTE FUNCTION "chapter_row_version"();
CREATE TABLE "loan" (
	"book_id" TEXT COLLATE "C" NOT NULL,
	"member_no" INTEGER NOT NULL,
	"due" DATE,
	"row_version" BIGINT NOT NULL DEFAULT floor(random() * 281474976710655)::bigint,
	PRIMARY KEY ("book_id", "member_no")
);
CREATE OR REPLACE FUNCTION "loan_row_version"() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN IF NEW."row_version" IS NOT DISTINCT FROM OLD."row_version" THEN NEW."row_version" := OLD."row_version" + 1; END IF; RETURN NEW; END$$;
CREATE TRIGGER "loan_row_version" BEFORE UPDATE ON "loan" FOR EACH ROW EXECUTE FUNCTION "loan_row_version"();
CREATE TABLE "member" (
	"id" TEXT COLLATE "C" NOT NULL,
	"email" TEXT COLLATE "C" NOT NULL,
	"row_version" BIGINT NOT NULL DEFAULT floor(random() * 281474976710655)::bigint,
	PRIMARY KEY ("email")
);
CREATE OR REPLACE FUNCTION "member_row_version"() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN IF NEW."row_version" IS NOT DISTINCT FROM OLD."row_version" THEN NEW."row_version" := OLD."row_version" + 1; END IF; RETURN NEW; END$$;
CREATE TRIGGER "member_row_version" BEFORE UPDATE ON "member" FOR EACH ROW EXECUTE FUNCTION "member_row_version"();
CREATE TABLE "shelf" (
	"id" TEXT COLLATE "C" NOT NULL,
	"label" TEXT COLLATE "C" NOT NULL,
	"row_version" BIGINT NOT NULL DEFAULT floor(random() * 281474976710655)::bigint,
	PRIMARY KEY ("id")
);
CREATE OR REPLACE FUNCTION "shelf_row_version"() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN IF NEW."row_version" IS NOT DISTINCT FROM OLD."row_version" THEN NEW."row_version" := OLD."row_version" + 1; END IF; RETURN NEW; END$$;
CREATE TRIGGER "shelf_row_version" BEFORE UPDATE ON "shelf" FOR EACH ROW EXECUTE FUNCTION "shelf_row_version"();
CREATE TABLE "shelf_book" (
	"shelf_id" TEXT COLLATE "C" NOT NULL,
	"book_id" TEXT COLLATE "C" NOT NULL,
	"position" INTEGER NOT NULL,
	"row_version" BIGINT NOT NULL DEFAULT floor(random() * 281474976710655)::bigint,
	PRIMARY KEY ("shelf_id", "book_id")
);
CREATE OR REPLACE FUNCTION "shelf_book_row_version"() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN IF NEW."row_version" IS NOT DISTINCT FROM OLD."row_version" THEN NEW."row_version" := OLD."row_version" + 1; END IF; RETURN NEW; END$$;
CREATE TRIGGER "shelf_book_row_version" BEFORE UPDATE ON "shelf_book" FOR EACH ROW EXECUTE FUNCTION "shelf_book_row_version"();
CREATE TABLE "book_tags" (
	"book_id" TEXT COLLATE "C" NOT NULL,
	"value" TEXT COLLATE "C" NOT NULL,
	"ordinal" INTEGER NOT NULL,
	PRIMARY KEY ("book_id", "ordinal")
);
CREATE TABLE "book_genres" (
	"book_id" TEXT COLLATE "C" NOT NULL,
	"value" SMALLINT NOT NULL,
	"ordinal" INTEGER NOT NULL,
	PRIMARY KEY ("book_id", "ordinal")
);
CREATE TABLE "member_role" (
	"member_id" TEXT COLLATE "C" NOT NULL,
	"value" TEXT COLLATE "C",
	"ordinal" INTEGER NOT NULL,
	PRIMARY KEY ("member_id", "ordinal")
);
CREATE TABLE "book_author" (
	"author_id" TEXT COLLATE "C" NOT NULL,
	"book_id" TEXT COLLATE "C" NOT NULL,
	PRIMARY KEY ("author_id", "book_id")
);
CREATE TABLE "book_related" (
	"book_id" TEXT COLLATE "C" NOT NULL,
	"related_book_id" TEXT COLLATE "C" NOT NULL,
	PRIMARY KEY ("book_id", "related_book_id")
);
CREATE INDEX "book_publisher_id_idx" ON "book" ("publisher_id");
CREATE UNIQUE INDEX "member_id_key" ON "member" ("id");
CREATE INDEX "shelf_book_book_id_idx" ON "shelf_book" ("book_id");
CREATE INDEX "book_author_book_id_idx" ON "book_author" ("book_id");
CREATE INDEX "book_related_related_book_id_idx" ON "book_related" ("related_book_id");
ALTER TABLE "book" ADD CONSTRAINT "book_publisher_id_fkey" FOREIGN KEY ("publisher_id") REFERENCES "publisher" ("id") ON DELETE SET NULL;
ALTER TABLE "chapter" ADD CONSTRAINT "chapter_book_id_fkey" FOREIGN KEY ("book_id") REFERENCES "book" ("id") ON DELETE CASCADE;
ALTER TABLE "loan" ADD CONSTRAINT "loan_book_id_fkey" FOREIGN KEY ("book_id") REFERENCES "book" ("id") ON DELETE CASCADE;
ALTER TABLE "shelf_book" ADD CONSTRAINT "shelf_book_shelf_id_fkey" FOREIGN KEY ("shelf_id") REFERENCES "shelf" ("id") ON DELETE CASCADE;
ALTER TABLE "shelf_book" ADD CONSTRAINT "shelf_book_book_id_fkey" FOREIGN KEY ("book_id") REFERENCES "book" ("id") ON DELETE CASCADE;
ALTER TABLE "book_tags" ADD CONSTRAINT "book_tags_book_id_fkey" FOREIGN KEY ("book_id") REFERENCES "book" ("id") ON DELETE CASCADE;
ALTER TABLE "book_genres" ADD CONSTRAINT "book_genres_book_id_fkey" FOREIGN KEY ("book_id") REFERENCES "book" ("id") ON DELETE CASCADE;
ALTER TABLE "member_role" ADD CONSTRAINT "member_role_member_id_fkey" FOREIGN KEY ("member_id") REFERENCES "member" ("id") ON DELETE CASCADE;
ALTER TABLE "book_author" ADD CONSTRAINT "book_author_author_id_fkey" FOREIGN KEY ("author_id") REFERENCES "author" ("id") ON DELETE CASCADE;
ALTER TABLE "book_author" ADD CONSTRAINT "book_author_book_id_fkey" FOREIGN KEY ("book_id") REFERENCES "book" ("id") ON DELETE CASCADE;
ALTER TABLE "book_related" ADD CONSTRAINT "book_related_book_id_fkey" FOREIGN KEY ("book_id") REFERENCES "book" ("id") ON DELETE CASCADE;
ALTER TABLE "book_related" ADD CONSTRAINT "book_related_related_book_id_fkey" FOREIGN KEY ("related_book_id") REFERENCES "book" ("id") ON DELETE CASCADE;
