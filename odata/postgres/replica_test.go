package postgres_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/postgres"
	"github.com/storekit/store/odata/sqldb"
)

// Note is the entity of the replica tests.
type Note struct {
	ID   int
	Text string
}

// replicaSetup is a database of its own on a primary with a streaming replica (.ci/pg-replica makes them).
type replicaSetup struct {
	primary, replica string // the URLs of the test database on each
	cluster          string // "version name" of the replica's cluster, for pg_ctlcluster; "" when it cannot be stopped
}

// newReplicaSetup creates a fresh database on the primary of STORE_TEST_PG_PRIMARY and waits until the replica of
// STORE_TEST_PG_REPLICA has it; it skips the test when they are not set. The replica applies commits 300 ms late
// (recovery_min_apply_delay) for the test, so that a read that ignores the client's own write would miss it.
func newReplicaSetup(t *testing.T) replicaSetup {
	t.Helper()
	primary, replica := os.Getenv("STORE_TEST_PG_PRIMARY"), os.Getenv("STORE_TEST_PG_REPLICA")
	if primary == "" || replica == "" {
		t.Skip("STORE_TEST_PG_PRIMARY and STORE_TEST_PG_REPLICA are not set (eval $(.ci/pg-replica) sets them)")
	}
	admin, err := sql.Open("pgx", primary)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	name := fmt.Sprintf("replicatest_%d_%d", os.Getpid(), time.Now().UnixNano())
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		t.Skipf("cannot create a database on the primary: %v", err)
	}
	t.Cleanup(func() {
		admin, err := sql.Open("pgx", primary)
		if err == nil {
			_, err = admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)")
			admin.Close()
		}
		if err != nil {
			t.Logf("drop database %s: %v", name, err)
		}
	})
	setDelay(t, replica, "300ms")
	t.Cleanup(func() { setDelay(t, replica, "0") })
	s := replicaSetup{primary: withDB(t, primary, name), replica: withDB(t, replica, name),
		cluster: os.Getenv("STORE_TEST_PG_REPLICA_CLUSTER")}
	// The database reaches the replica as the primary's log does.
	for deadline := time.Now().Add(30 * time.Second); ; {
		db, err := sql.Open("pgx", s.replica)
		if err == nil {
			err = db.Ping()
			db.Close()
		}
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the replica has no database %s: %v", name, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return s
}

// setDelay sets the replica's recovery_min_apply_delay.
func setDelay(t *testing.T, replica, delay string) {
	db, err := sql.Open("pgx", replica)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, stmt := range []string{"ALTER SYSTEM SET recovery_min_apply_delay = '" + delay + "'", "SELECT pg_reload_conf()"} {
		if _, err := db.Exec(stmt); err != nil {
			t.Logf("replica: %s: %v", stmt, err)
		}
	}
}

func withDB(t *testing.T, raw, name string) string {
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// readsOnReplica returns how many scans of the table note the replica has made (pg_stat_user_tables, which
// counts the replica's own reads; the replicas' checks read no table).
func readsOnReplica(t *testing.T, replica string) int64 {
	db, err := sql.Open("pgx", replica)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int64
	if err := db.QueryRow("SELECT COALESCE(seq_scan, 0) + COALESCE(idx_scan, 0) FROM pg_stat_user_tables WHERE relname = 'note'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// serveNotes serves Notes of the database on url with its replica through an odata.Service.
func serveNotes(t *testing.T, s replicaSetup) *httptest.Server {
	db, err := postgres.Open(s.primary, postgres.Pool{MaxOpen: 8,
		Replicas: postgres.Replicas{URLs: []string{s.replica}, MaxLag: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	svc, err := odata.NewService(odata.Config{DB: db, Structs: []any{Note{}}, Migrate: true, Writes: odata.WriteAll})
	if err != nil {
		t.Fatal(err)
	}
	// The table reaches the replica as the primary's log does; until then its reads go to the primary.
	replica, err := sql.Open("pgx", s.replica)
	if err != nil {
		t.Fatal(err)
	}
	defer replica.Close()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		var found bool
		err := replica.QueryRow("SELECT to_regclass('note') IS NOT NULL").Scan(&found)
		if err == nil && found {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the replica has no table note: %v", err)
		}
	}
	srv := httptest.NewServer(svc)
	t.Cleanup(srv.Close)
	return srv
}

// TestReplicas runs against a primary and its streaming replica: the reads of requests that write nothing go to
// the replica; a client reads its own writes at once (the position cookie); a replica that stops costs no
// request.
func TestReplicas(t *testing.T) {
	s := newReplicaSetup(t)
	srv := serveNotes(t, s)
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Jar: jar}

	t.Run("ReadsGoToReplica", func(t *testing.T) {
		before := readsOnReplica(t, s.replica)
		const reads = 40
		for i := 0; i < reads; i++ {
			if code := get(t, http.DefaultClient, srv.URL+"/Notes?$top=5"); code != http.StatusOK {
				t.Fatalf("GET /Notes = %d, want 200", code)
			}
		}
		// The replica's statistics reach pg_stat_user_tables within its idle flush interval (10 s).
		var got int64
		for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(200 * time.Millisecond) {
			if got = readsOnReplica(t, s.replica) - before; got >= reads || time.Now().After(deadline) {
				break
			}
		}
		t.Logf("%d GETs: the replica scanned the table %d times", reads, got)
		if got < reads {
			t.Errorf("the replica scanned the table %d times during %d GETs, want at least %d", got, reads, reads)
		}
	})

	t.Run("ReadYourWrites", func(t *testing.T) {
		var missed []string
		for i := 1; i <= 30; i++ {
			body := fmt.Sprintf(`{"Text":"note %d"}`, i)
			resp, err := client.Post(srv.URL+"/Notes", "application/json", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusCreated {
				t.Fatalf("POST /Notes = %d, want 201", resp.StatusCode)
			}
			// Location is the new note's URL.
			if loc := resp.Header.Get("Location"); get(t, client, loc) != http.StatusOK {
				missed = append(missed, loc)
			}
		}
		if diff := cmp.Diff([]string(nil), missed); diff != "" {
			t.Errorf("the writer's own notes not found right after it created them (-want +got):\n%s", diff)
		}
		// The same without the cookie, for comparison: the replica applies commits 300 ms late.
		cookieless := 0
		for i := 1; i <= 10; i++ {
			resp, err := http.Post(srv.URL+"/Notes", "application/json", strings.NewReader(`{"Text":"no cookie"}`))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if get(t, http.DefaultClient, resp.Header.Get("Location")) != http.StatusOK {
				cookieless++
			}
		}
		t.Logf("own writes missed: %d of 30 with the cookie, %d of 10 without it", len(missed), cookieless)
		u, _ := url.Parse(srv.URL)
		if len(jar.Cookies(u)) == 0 {
			t.Errorf("no %s cookie after the writes", odata.PositionCookie)
		}
	})

	t.Run("LaggingReplicaSkipped", func(t *testing.T) {
		// The replica applies commits 10 s late, and a pool with a bound of 500 ms writes all along: once its
		// writes are older than the bound the replica lags beyond it, and the reads go to the primary.
		setDelay(t, s.replica, "10s")
		defer setDelay(t, s.replica, "300ms")
		db, err := postgres.Open(s.primary, postgres.Pool{MaxOpen: 2,
			Replicas: postgres.Replicas{URLs: []string{s.replica}, MaxLag: 500 * time.Millisecond}})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		onReplica := func() bool {
			var recovery bool
			if err := db.QueryRowContext(sqldb.ForRead(context.Background()), "SELECT pg_is_in_recovery()").Scan(&recovery); err != nil {
				t.Fatal(err)
			}
			return recovery
		}
		if !onReplica() {
			t.Fatal("a read went to the primary before any write")
		}
		var got []bool
		for i := 0; i < 30; i++ {
			if _, err := db.ExecContext(context.Background(), "INSERT INTO note (text) VALUES ('lag')"); err != nil {
				t.Fatal(err)
			}
			time.Sleep(50 * time.Millisecond)
			if i >= 25 { // 1.25 s of writes: past the bound and a check (every 100 ms)
				got = append(got, onReplica())
			}
		}
		if diff := cmp.Diff([]bool{false, false, false, false, false}, got); diff != "" {
			t.Errorf("reads on the replica while it lags beyond the bound (-want +got):\n%s", diff)
		}
	})

	t.Run("ReplicaStops", func(t *testing.T) {
		if s.cluster == "" || os.Geteuid() != 0 {
			t.Skip("STORE_TEST_PG_REPLICA_CLUSTER is not set or the test does not run as root: the replica cannot be stopped")
		}
		version, name, _ := strings.Cut(s.cluster, " ")
		ctl := func(action string) error {
			out, err := exec.Command("pg_ctlcluster", "--skip-systemctl-redirect", version, name, action, "-m", "fast").CombinedOutput()
			if err != nil {
				return fmt.Errorf("pg_ctlcluster %s %s %s: %v: %s", version, name, action, err, out)
			}
			return nil
		}
		t.Cleanup(func() {
			if err := ctl("start"); err != nil && !strings.Contains(err.Error(), "already running") {
				t.Error(err)
			}
		})
		// Four clients read all along: before the replica stops, while it stops, and 50 reads each after.
		const clients, after = 4, 50
		var (
			mu      sync.Mutex
			byCode  = map[int]int{}
			total   int
			started = make(chan struct{})
			stopped = make(chan struct{})
			wg      sync.WaitGroup
		)
		for c := 0; c < clients; c++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for n := 0; n < after; {
					select {
					case <-stopped:
						n++
					default:
					}
					code := get(t, http.DefaultClient, srv.URL+"/Notes?$top=3&$orderby=ID")
					mu.Lock()
					byCode[code]++
					if total++; total == 100 {
						close(started)
					}
					mu.Unlock()
				}
			}()
		}
		<-started
		err := ctl("stop")
		close(stopped)
		wg.Wait()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("answers while the replica stopped: %v", byCode)
		if diff := cmp.Diff(map[int]int{http.StatusOK: total}, byCode); diff != "" {
			t.Errorf("answers by status (-want +got):\n%s", diff)
		}
	})
}

// get sends a GET and returns its status, 0 when it got no answer.
func get(t *testing.T, c *http.Client, u string) int {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Log(err)
		return 0
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Logf("GET %s: %v", u, err)
		return 0
	}
	if resp.StatusCode != http.StatusOK {
		t.Logf("GET %s = %d %s", u, resp.StatusCode, body)
	}
	return resp.StatusCode
}
