package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/postgres"
	"github.com/storekit/store/odata/sqlite"
)

// The fault tests: writers under load while the database fails as infrastructure does (docs/store.md, "Database
// faults"). Each prints the answers by status and checks that no answer was a 500 and that every write the
// service acknowledged (201) is in the database afterwards.
//
//	go test ./examples/storeserver -run TestStore_Faults -v
//
// TestStore_Faults_PostgresRestart needs STORE_TEST_POSTGRES (it is a PostgreSQL test) and root with Debian's
// pg_createcluster: it never touches the server of STORE_TEST_POSTGRES, but makes a cluster of its own on port
// faultPort, which it restarts and removes at the end. TestStore_Faults_SQLiteFull needs root to mount a tmpfs
// of 3 MB. Each skips, saying why, when it cannot.

// The health checks (docs/store.md).
const (
	livePath  = "/healthz/live"
	readyPath = "/healthz/ready"
)

// faultPort is the port of the throwaway PostgreSQL cluster of the restart test.
const faultPort = "5499"

// faultCluster is the name of that cluster (pg_createcluster VERSION faultCluster).
const faultCluster = "faulttest"

// faultWriters is the number of concurrent clients creating products.
const faultWriters = 4

// answer is one answer of a writer.
type answer struct {
	phase  string
	status int // 0: the request failed without an answer
	code   string
	end    time.Time
}

// faultLoad is what the writers saw.
type faultLoad struct {
	mu      sync.Mutex
	answers []answer
	acked   []string // the ids of the products created (201)
	phase   string
}

func (l *faultLoad) setPhase(p string) {
	l.mu.Lock()
	l.phase = p
	l.mu.Unlock()
}

// write runs writers that create products (with a description of descBytes) until stop is closed.
func (l *faultLoad) write(t testing.TB, admin *client, descBytes int, stop <-chan struct{}) {
	var wg sync.WaitGroup
	desc := strings.Repeat("x", descBytes)
	for w := range faultWriters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				r, err := admin.try(request{method: "POST", path: "/odata/Product",
					body: map[string]any{"Name": fmt.Sprintf("Fault %d-%d", w, i), "Price": 1, "FullDescription": desc}})
				a := answer{end: time.Now()}
				if err == nil {
					a.status = r.status
					if r.status >= 400 {
						var e struct{ Error errorBody }
						_ = json.Unmarshal(r.body, &e)
						a.code = e.Error.Code
						if r.header.Get("Retry-After") == "" && r.status != http.StatusInternalServerError {
							a.code += " (no Retry-After)"
						}
					}
				}
				l.mu.Lock()
				a.phase = l.phase
				l.answers = append(l.answers, a)
				if a.status == http.StatusCreated {
					var p struct{ Id string }
					if json.Unmarshal(r.body, &p) == nil && p.Id != "" {
						l.acked = append(l.acked, p.Id)
					}
				}
				l.mu.Unlock()
				if a.status != http.StatusCreated {
					time.Sleep(20 * time.Millisecond) // a failing client does not spin
				}
			}
		}()
	}
	wg.Wait()
}

// report logs the answers by phase and status (and error code), and fails the test for every answer that is a
// 500 or has a status outside allowed; it returns the count of answers by "status code".
func (l *faultLoad) report(t *testing.T, allowed ...int) map[string]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	byPhase := map[string]map[string]int{}
	total := map[string]int{}
	bad := map[string]int{}
	var phases []string
	for _, a := range l.answers {
		if byPhase[a.phase] == nil {
			byPhase[a.phase] = map[string]int{}
			phases = append(phases, a.phase)
		}
		key := fmt.Sprint(a.status)
		if a.code != "" {
			key += " " + a.code
		}
		byPhase[a.phase][key]++
		total[key]++
		if a.status == http.StatusInternalServerError || !slices.Contains(allowed, a.status) || strings.Contains(a.code, "no Retry-After") {
			bad[a.phase+": "+key]++
		}
	}
	for k, n := range bad {
		t.Errorf("%s answered %d times, want one of %v (with Retry-After when not 201)", k, n, allowed)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "answers of %d writers by phase and status:\n", faultWriters)
	for _, p := range phases {
		keys := make([]string, 0, len(byPhase[p]))
		for k := range byPhase[p] {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		fmt.Fprintf(&b, "  %-12s", p)
		for _, k := range keys {
			fmt.Fprintf(&b, "  %s: %d", k, byPhase[p][k])
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "  acknowledged writes: %d", len(l.acked))
	t.Log(b.String())
	return total
}

// checkAcked fails the test for every acknowledged product that ids (the ids the database holds) lacks.
func (l *faultLoad) checkAcked(t *testing.T, ids map[string]bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	missing := 0
	for _, id := range l.acked {
		if !ids[id] {
			missing++
		}
	}
	if missing > 0 {
		t.Errorf("%d of %d acknowledged products are not in the database", missing, len(l.acked))
	} else {
		t.Logf("all %d acknowledged products are in the database", len(l.acked))
	}
}

// recovery returns how long after up the last answer of the phase other than 201 came (0 when none came after
// it), and the first 201 of the phase after up.
func (l *faultLoad) recovery(phase string, up time.Time) (lastFailure, firstSuccess time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	firstSuccess = -1
	for _, a := range l.answers {
		d := a.end.Sub(up)
		if d < 0 || a.phase != phase {
			continue
		}
		if a.status != http.StatusCreated && d > lastFailure {
			lastFailure = d
		}
		if a.status == http.StatusCreated && (firstSuccess < 0 || d < firstSuccess) {
			firstSuccess = d
		}
	}
	return lastFailure, firstSuccess
}

// productIDs reads the ids of every product of db.
func productIDs(t *testing.T, db *dbtest.DB) map[string]bool {
	t.Helper()
	rows, err := db.Query(`SELECT id FROM product`)
	if err != nil {
		t.Fatalf("read the products: %v", err)
	}
	defer rows.Close()
	ids := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids[id] = true
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return ids
}

// throwawayCluster creates the PostgreSQL cluster faultCluster on faultPort (trust authentication) and removes
// it when the test ends; it skips the test when it cannot. It returns the cluster's version and the URL of its
// database "postgres".
func throwawayCluster(t *testing.T) (version, url string) {
	t.Helper()
	if dbtest.PostgresURL() == "" {
		t.Skip(dbtest.EnvPostgres + " is not set")
	}
	if os.Geteuid() != 0 {
		t.Skip("making a throwaway PostgreSQL cluster needs root")
	}
	if _, err := exec.LookPath("pg_createcluster"); err != nil {
		t.Skip("pg_createcluster (Debian's postgresql-common) is not installed")
	}
	versions, _ := filepath.Glob("/usr/lib/postgresql/*/bin/postgres")
	if len(versions) == 0 {
		t.Skip("no PostgreSQL server under /usr/lib/postgresql")
	}
	sort.Strings(versions)
	version = filepath.Base(filepath.Dir(filepath.Dir(versions[len(versions)-1])))
	drop := func() {
		_ = exec.Command("pg_dropcluster", "--stop", version, faultCluster).Run()
	}
	drop() // a cluster a killed run left behind
	out, err := exec.Command("pg_createcluster", version, faultCluster, "-p", faultPort, "--start",
		"--", "--auth=trust").CombinedOutput()
	if err != nil {
		drop()
		t.Skipf("cannot make a throwaway PostgreSQL cluster on port %s: %v\n%s", faultPort, err, out)
	}
	t.Cleanup(drop)
	return version, "postgres://postgres@127.0.0.1:" + faultPort + "/postgres?sslmode=disable"
}

// TestStore_Faults_PostgresRestart runs 4 writers through the store server while PostgreSQL restarts
// (pg_ctlcluster restart -m fast) and while every session of the server is killed (pg_terminate_backend). No
// answer may be a 500; while the database is away they are 503 DatabaseUnavailable with Retry-After; every
// acknowledged write is there afterwards. It logs how soon after the database was back the service was.
func TestStore_Faults_PostgresRestart(t *testing.T) {
	version, url := throwawayCluster(t)
	pool, err := postgres.Open(url, postgres.Pool{MaxOpen: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	db := &dbtest.DB{DB: pool, URL: url}
	s := start(t, db, nil, "-demo=false")
	admin := s.admin(t)

	load := &faultLoad{phase: "before"}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		load.write(t, admin, 200, stop)
		close(done)
	}()
	// The health checks, polled meanwhile: liveness must hold throughout; readiness follows the database.
	health := map[string]map[int]int{livePath: {}, readyPath: {}}
	probed := make(chan struct{})
	go func() {
		defer close(probed)
		anonymous := s.client("")
		for {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
			for path, seen := range health {
				status := 0
				if r, err := anonymous.try(request{method: "GET", path: path}); err == nil {
					status = r.status
				}
				seen[status]++
			}
		}
	}()
	var up time.Time
	var killed int
	func() {
		defer close(stop)
		time.Sleep(time.Second)
		load.setPhase("restart")
		started := time.Now()
		if out, err := exec.Command("pg_ctlcluster", version, faultCluster, "restart", "-m", "fast").CombinedOutput(); err != nil {
			t.Errorf("pg_ctlcluster restart: %v\n%s", err, out)
			return
		}
		up = time.Now() // pg_ctlcluster returns once the server accepts connections
		t.Logf("PostgreSQL restarted in %v", up.Sub(started).Round(time.Millisecond))
		time.Sleep(2 * time.Second)
		load.setPhase("terminate")
		// Every session of the store server's pool, killed as an operator (or a fail-over) would. The test's
		// own pool may meet its session broken by the restart first (a fault), and takes a new one then.
		var err error
		for range 2 {
			err = pool.QueryRow(`SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
				WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'`).Scan(&killed)
			if err == nil {
				break
			}
		}
		if err != nil {
			t.Errorf("pg_terminate_backend: %v", err)
		}
		t.Logf("terminated %d sessions of the store server", killed)
		time.Sleep(1500 * time.Millisecond)
		load.setPhase("after")
		time.Sleep(500 * time.Millisecond)
	}()
	<-done
	<-probed
	load.report(t, http.StatusCreated, http.StatusServiceUnavailable)
	t.Logf("health checks by status: %s %v, %s %v", livePath, health[livePath], readyPath, health[readyPath])
	for status, n := range health[livePath] {
		if status != http.StatusOK {
			t.Errorf("GET %s answered %d %d times while the database failed, want 200 throughout", livePath, status, n)
		}
	}
	s.client("").must(t, http.StatusOK, "GET", readyPath, nil)
	if !up.IsZero() {
		last, first := load.recovery("restart", up)
		t.Logf("after the database was back: last failed answer at +%v, first acknowledged write at +%v",
			last.Round(time.Millisecond), first.Round(time.Millisecond))
	}
	check, err := postgres.Open(url, postgres.Pool{MaxOpen: 1}) // a pool that met no fault
	if err != nil {
		t.Fatal(err)
	}
	defer check.Close()
	load.checkAcked(t, productIDs(t, &dbtest.DB{DB: check, URL: url}))
	s.stop()
}

// TestStore_Faults_SQLiteFull runs 4 writers through the store server on a SQLite file in a tmpfs of 3 MB until
// it is full: the writes that do not fit are 507 InsufficientStorage with Retry-After, never 500; every
// acknowledged write is in the file; once the file system grows (space returns), writes succeed again.
func TestStore_Faults_SQLiteFull(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a small file system needs root")
	}
	dir := filepath.Join(t.TempDir(), "small")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs of 3 MB: %v\n%s", err, out)
	}
	// Registered first, so it runs last: after the server and the pools closed their files.
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v\n%s", dir, err, out)
		}
	})
	path := filepath.Join(dir, "store.db")
	s := start(t, &dbtest.DB{URL: path}, nil, "-demo=false")
	admin := s.admin(t)

	load := &faultLoad{phase: "filling"}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		load.write(t, admin, 8000, stop)
		close(done)
	}()
	// Until 20 writes did not fit (or a minute passed, which the checks below then report).
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		load.mu.Lock()
		full := 0
		for _, a := range load.answers {
			if a.status == http.StatusInsufficientStorage {
				full++
			}
		}
		load.mu.Unlock()
		if full >= 20 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	load.setPhase("full")
	time.Sleep(500 * time.Millisecond)
	close(stop)
	<-done
	total := load.report(t, http.StatusCreated, http.StatusInsufficientStorage)
	if total["507 InsufficientStorage"] == 0 {
		t.Errorf("no write answered 507 InsufficientStorage on the full file system")
	}

	// Space returns: the file system grows, and a write succeeds again.
	if out, err := exec.Command("mount", "-o", "remount,size=64m", dir).CombinedOutput(); err != nil {
		t.Fatalf("grow the tmpfs: %v\n%s", err, out)
	}
	var last *response
	var err error
	for range 10 {
		if last, err = admin.try(request{method: "POST", path: "/odata/Product", body: map[string]any{"Name": "After", "Price": 1}}); err != nil {
			t.Fatal(err)
		}
		if last.status == http.StatusCreated {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if last.status != http.StatusCreated {
		t.Errorf("POST /odata/Product once space returned = %s, want 201", last)
	} else {
		var p struct{ Id string }
		_ = json.Unmarshal(last.body, &p)
		load.acked = append(load.acked, p.Id)
	}
	s.stop()
	check, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer check.Close()
	load.checkAcked(t, productIDs(t, &dbtest.DB{DB: check, URL: path}))
}
