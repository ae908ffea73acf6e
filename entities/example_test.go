package entities_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/storekit/store/entities"
	"github.com/storekit/store/odata/migrate"
	"github.com/storekit/store/odata/sqlite"
)

// Example shows a server's first start: create the schema, seed the database, then sign the administrator in
// and check the token as the authentication middleware does on every request.
//
// SQLite only: an Example is documentation that runs with nothing beside it (no database server) and prints
// fixed output; the tests of the package run the same code on both databases.
func Example() {
	dir, err := os.MkdirTemp("", "store")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	db, err := sqlite.Open(filepath.Join(dir, "store.db"))
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()

	if _, err := migrate.Up(ctx, db, entities.Migrations); err != nil {
		log.Fatal(err)
	}
	res, err := entities.Seed(ctx, db, entities.SeedOptions{AdminEmail: "admin@example.com", Demo: true})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("seeded:", res.Seeded)

	auth := &entities.Auth{DB: db}
	tok, err := auth.Login(ctx, entities.Credentials{Email: "Admin@Example.com", Password: res.GeneratedAdminPassword})
	if err != nil {
		log.Fatal(err)
	}
	p, err := auth.Authenticate(ctx, tok.AccessToken)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(p.Email, "admin:", p.Admin, "expires in:", tok.ExpiresIn)

	again, err := entities.Seed(ctx, db, entities.SeedOptions{AdminEmail: "admin@example.com"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("seeded again:", again.Seeded)
	// Output:
	// seeded: true
	// admin@example.com admin: true expires in: 24h0m0s
	// seeded again: false
}
