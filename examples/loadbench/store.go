package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/storekit/store/odata/postgres"
	"github.com/storekit/store/odata/sqldb"
	"github.com/storekit/store/odata/sqlite"
	"github.com/storekit/store/server"
)

// storeServer is the store server run in this process by server.Run, on a free port of 127.0.0.1.
type storeServer struct {
	// URL is the server's root URL, "http://127.0.0.1:PORT".
	URL    string
	cancel context.CancelFunc
	done   chan error
}

// startStore starts the store server on the database dsn and returns once it listens. On a new database its
// start runs the store's migrations and first-start seed (the admin with the given e-mail and password, no demo
// catalog), as every start of the program does. Its request log goes to logs.
func startStore(ctx context.Context, dsn, adminEmail, adminPassword string, maxOpen int, logs io.Writer) (*storeServer, error) {
	args := []string{"storeserver", "-addr", "127.0.0.1:0", "-db", dsn, "-admin-email", adminEmail,
		"-admin-password", adminPassword, "-demo=false", "-db-max-open", strconv.Itoa(maxOpen),
		"-shutdown-timeout", "5s"}
	ctx, cancel := context.WithCancel(ctx)
	out, in := io.Pipe()
	s := &storeServer{cancel: cancel, done: make(chan error, 1)}
	go func() {
		err := server.Run(ctx, args, func(string) string { return "" }, in, logs)
		in.Close()
		s.done <- err
	}()
	listening := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if url, ok := strings.CutPrefix(sc.Text(), "listening on "); ok {
				listening <- url
			}
		}
		close(listening)
	}()
	select {
	case url, ok := <-listening:
		if ok {
			s.URL = url
			return s, nil
		}
		err := <-s.done
		cancel()
		if err == nil {
			err = errors.New("the store server stopped before it listened")
		}
		return nil, fmt.Errorf("start the store server: %w", err)
	case <-time.After(5 * time.Minute):
		cancel()
		return nil, errors.New("start the store server: not listening after 5 minutes")
	}
}

// stop drains the server and waits for it to end.
func (s *storeServer) stop() error {
	s.cancel()
	return <-s.done
}

// isPostgres reports whether dsn is a PostgreSQL URL rather than a SQLite file path, as the store server tells
// them apart.
func isPostgres(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// openDB opens the database dsn names with the project's adapter.
func openDB(dsn string, maxOpen int) (*sqldb.DB, error) {
	if isPostgres(dsn) {
		return postgres.Open(dsn, postgres.Pool{MaxOpen: maxOpen})
	}
	db, err := sqlite.Open(dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(maxOpen)
	db.SetMaxIdleConns(maxOpen)
	return db, nil
}
