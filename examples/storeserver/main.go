// Command storeserver runs the store service: the OData v4 administration API under /odata/ and the storefront
// JSON endpoints, on an embedded SQLite database (the default, store.db) or on PostgreSQL.
//
//	go run ./examples/storeserver -help
//	go run ./examples/storeserver -addr 127.0.0.1:8080 -db store.db
//	STORE_DB=postgres://user@host/store go run ./examples/storeserver
//
// SIGINT or SIGTERM drains in-flight requests and exits with status 0; a second signal exits at once.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/storekit/store/server"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	context.AfterFunc(ctx, stop) // after the first signal, a second one ends the program at once
	if err := run(ctx, os.Args, os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintf(os.Stderr, "storeserver: %v\n", err)
		os.Exit(1)
	}
}

// run runs the program with its arguments, environment and output, until ctx is cancelled.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	return server.Run(ctx, args, getenv, stdout, stderr)
}
