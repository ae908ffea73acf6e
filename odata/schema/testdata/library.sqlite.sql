CREATE TABLE "publisher" (
	"id" TEXT NOT NULL,
	"name" TEXT NOT NULL,
	"address_street" TEXT,
	"address_city" TEXT,
	"address_geo_lat" REAL,
	"address_geo_lon" REAL,
	"founded" TEXT,
	"created_on_utc" TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f', 'now') || '000Z'),
	"row_version" INTEGER NOT NULL DEFAULT (random() & 281474976710655),
	PRIMARY KEY ("id")
) STRICT;
CREATE TRIGGER "publisher_row_version" AFTER UPDATE ON "publisher" FOR EACH ROW WHEN NEW."row_version" IS OLD."row_version" BEGIN UPDATE "publisher" SET "row_version" = OLD."row_version" + 1 WHERE "id" = NEW."id"; END;
CREATE TABLE "author" (
	"id" TEXT NOT NULL,
	"name" TEXT NOT NULL,
	"photo" BLOB,
	"row_version" INTEGER NOT NULL DEFAULT (random() & 281474976710655),
	PRIMARY KEY ("id")
) STRICT;
CREATE TRIGGER "author_row_version" AFTER UPDATE ON "author" FOR EACH ROW WHEN NEW."row_version" IS OLD."row_version" BEGIN UPDATE "author" SET "row_version" = OLD."row_version" + 1 WHERE "id" = NEW."id"; END;
CREATE TABLE "book" (
	"id" TEXT NOT NULL,
	"title" TEXT NOT NULL,
	"isbn" TEXT,
	"price" INTEGER NOT NULL DEFAULT 99900,
	"pages" INTEGER NOT NULL,
	"edition" INTEGER NOT NULL DEFAULT 1,
	"flag" INTEGER NOT NULL,
	"level" INTEGER NOT NULL,
	"sold" INTEGER NOT NULL DEFAULT 0,
	"rating" REAL,
	"weight" REAL,
	"in_print" INTEGER NOT NULL DEFAULT 1,
	"genre" INTEGER NOT NULL DEFAULT 1,
	"formats" INTEGER NOT NULL DEFAULT 2,
	"published" TEXT,
	"reading_time" INTEGER,
	"release_time" TEXT,
	"updated_on_utc" TEXT,
	"catalog_guid" TEXT,
	"stamp" BLOB,
	"size_width" INTEGER NOT NULL DEFAULT 0,
	"size_height" INTEGER NOT NULL DEFAULT 0,
	"publisher_id" TEXT,
	"row_version" INTEGER NOT NULL DEFAULT (random() & 281474976710655),
	PRIMARY KEY ("id"),
	CONSTRAINT "book_publisher_id_fkey" FOREIGN KEY ("publisher_id") REFERENCES "publisher" ("id") ON DELETE SET NULL
) STRICT;
CREATE TRIGGER "book_row_version" AFTER UPDATE ON "book" FOR EACH ROW WHEN NEW."row_version" IS OLD."row_version" BEGIN UPDATE "book" SET "row_version" = OLD."row_version" + 1 WHERE "id" = NEW."id"; END;
CREATE TABLE "chapter" (
	"number" INTEGER NOT NULL,
	"title" TEXT,
	"book_id" TEXT NOT NULL,
	"row_version" INTEGER NOT NULL DEFAULT (random() & 281474976710655),
	PRIMARY KEY ("book_id", "number"),
	CONSTRAINT "chapter_book_id_fkey" FOREIGN KEY ("book_id") REFERENCES "book" ("id") ON DELETE CASCADE
) STRICT;
CREATE TRIGGER "chapter_row_version" AFTER UPDATE ON "chapter" FOR EACH ROW WHEN NEW."row_version" IS OLD."row_version" BEGIN UPDATE "chapter" SET "row_version" = OLD."row_version" + 1 WHERE "book_id" = NEW."book_id" AND "number" = NEW."number"; END;
CREATE TABLE "loan" (
	"book_id" TEXT NOT NULL,
	"member_no" INTEGER NOT NULL,
	"due" TEXT,
	"row_version" INTEGER NOT NULL DEFAULT (random() & 281474976710655),
	PRIMARY KEY ("book_id", "member_no"),
	CONSTRAINT "loan_book_id_fkey" FOREIGN KEY ("book_id") REFERENCES "book" ("id") ON DELETE CASCADE
) STRICT;
CREATE TRIGGER "loan_row_version" AFTER UPDATE ON "loan" FOR EACH ROW WHEN NEW."row_version" IS OLD."row_version" BEGIN UPDATE "loan" SET "row_version" = OLD."row_version" + 1 WHERE "book_id" = NEW."book_id" AND "member_no" = NEW."member_no"; END;
CREATE TABLE "member" (
	"id" TEXT NOT NULL,
	"email" TEXT NOT NULL,
	"row_version" INTEGER NOT NULL DEFAULT (random() & 281474976710655),
	PRIMARY KEY ("email")
) STRICT;
CREATE TRIGGER "member_row_version" AFTER UPDATE ON "member" FOR EACH ROW WHEN NEW."row_version" IS OLD."row_version" BEGIN UPDATE "member" SET "row_version" = OLD."row_version" + 1 WHERE "email" = NEW."email"; END;
CREATE TABLE "shelf" (
	"id" TEXT NOT NULL,
	"label" TEXT NOT NULL,
	"row_version" INTEGER NOT NULL DEFAULT (random() & 281474976710655),
	PRIMARY KEY ("id")
) STRICT;
CREATE TRIGGER "shelf_row_version" AFTER UPDATE ON "shelf" FOR EACH ROW WHEN NEW."row_version" IS OLD."row_version" BEGIN UPDATE "shelf" SET "row_version" = OLD."row_version" + 1 WHERE "id" = NEW."id"; END;
CREATE TABLE "shelf_book" (
	"shelf_id" TEXT NOT NULL,
	"book_id" TEXT NOT NULL,
	"position" INTEGER NOT NULL,
	"row_version" INTEGER NOT NULL DEFAULT (random() & 281474976710655),
	PRIMARY KEY ("shelf_id", "book_id"),
	CONSTRAINT "shelf_book_shelf_id_fkey" FOREIGN KEY ("shelf_id") REFERENCES "shelf" ("id") ON DELETE CASCADE,
	CONSTRAINT "shelf_book_book_id_fkey" FOREIGN KEY ("book_id") REFERENCES "book" ("id") ON DELETE CASCADE
) STRICT;
CREATE TRIGGER "shelf_book_row_version" AFTER UPDATE ON "shelf_book" FOR EACH ROW WHEN NEW."row_version" IS OLD."row_version" BEGIN UPDATE "shelf_book" SET "row_version" = OLD."row_version" + 1 WHERE "shelf_id" = NEW."shelf_id" AND "book_id" = NEW."book_id"; END;
CREATE TABLE "book_tags" (
	"book_id" TEXT NOT NULL,
	"value" TEXT NOT NULL,
	"ordinal" INTEGER NOT NULL,
	PRIMARY KEY ("book_id", "ordinal"),
	CONSTRAINT "book_tags_book_id_fkey" FOREIGN KEY ("book_id") REFERENCES "book" ("id") ON DELETE CASCADE
) STRICT;
CREATE TABLE "book_genres" (
	"book_id" TEXT NOT NULL,
	"value" INTEGER NOT NULL,
	"ordinal" INTEGER NOT NULL,
	PRIMARY KEY ("book_id", "ordinal"),
	CONSTRAINT "book_genres_book_id_fkey" FOREIGN KEY ("book_id") REFERENCES "book" ("id") ON DELETE CASCADE
) STRICT;
CREATE TABLE "member_role" (
	"member_id" TEXT NOT NULL,
	"value" TEXT,
	"ordinal" INTEGER NOT NULL,
	PRIMARY KEY ("member_id", "ordinal"),
	CONSTRAINT "member_role_member_id_fkey" FOREIGN KEY ("member_id") REFERENCES "member" ("id") ON DELETE CASCADE
) STRICT;
CREATE TABLE "book_author" (
	"author_id" TEXT NOT NULL,
	"book_id" TEXT NOT NULL,
	PRIMARY KEY ("author_id", "book_id"),
	CONSTRAINT "book_author_author_id_fkey" FOREIGN KEY ("author_id") REFERENCES "author" ("id") ON DELETE CASCADE,
	CONSTRAINT "book_author_book_id_fkey" FOREIGN KEY ("book_id") REFERENCES "book" ("id") ON DELETE CASCADE
) STRICT;
CREATE TABLE "book_related" (
	"book_id" TEXT NOT NULL,
	"related_book_id" TEXT NOT NULL,
	PRIMARY KEY ("book_id", "related_book_id"),
	CONSTRAINT "book_related_book_id_fkey" FOREIGN KEY ("book_id") REFERENCES "book" ("id") ON DELETE CASCADE,
	CONSTRAINT "book_related_related_book_id_fkey" FOREIGN KEY ("related_book_id") REFERENCES "book" ("id") ON DELETE CASCADE
) STRICT;
CREATE INDEX "book_publisher_id_idx" ON "book" ("publisher_id");
CREATE UNIQUE INDEX "member_id_key" ON "member" ("id");
CREATE INDEX "shelf_book_book_id_idx" ON "shelf_book" ("book_id");
CREATE INDEX "book_author_book_id_idx" ON "book_author" ("book_id");
CREATE INDEX "book_related_related_book_id_idx" ON "book_related" ("related_book_id");
