package odata

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sq "github.com/Masterminds/squirrel"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/sqldb"
)

// AsyncOptions configures asynchronous requests (OData 4.01 part 1, 11.6): with Enabled, a request that
// prefers respond-async is answered 202 Accepted at once, with the URL of its status monitor in Location, and
// runs on in the background; the status monitor answers 202 while it runs and then 200 with the request's
// answer as application/http (and, in 4.01, AsyncResult with its status); DELETE on it cancels the request.
//
// The state of each request is kept in a table of the service's database (created when the service starts if it
// does not exist), so that every node of a deployment on one PostgreSQL database answers the status monitor of
// a request that another node runs, and a DELETE on any node cancels it (the node running it looks at its row
// every AsyncPoll). The monitor's URL holds 128 random bits: whoever knows it may read the answer, as whoever
// sent the request may; a server that needs more binds its own authorization to the request's.
type AsyncOptions struct {
	// Enabled turns asynchronous processing on; without it respond-async is ignored and requests are answered
	// as they come.
	Enabled bool
	// Table names the table of the requests' state: DefaultAsyncTable when empty.
	Table string
	// TimeBudget is how long an asynchronous request may run (DefaultAsyncTimeBudget, 5 minutes, when zero);
	// past it, it is cancelled and its answer is the 503 of Config.TimeBudget.
	TimeBudget time.Duration
	// Keep is how long a finished request's answer stays readable (an hour when zero).
	Keep time.Duration
	// AnswerBytes is the largest answer kept (16 MiB when zero); a larger one is replaced by a 500 error naming
	// the limit.
	AnswerBytes int64
}

// Defaults of AsyncOptions.
const (
	DefaultAsyncTable       = "odata_async"
	DefaultAsyncTimeBudget  = 5 * time.Minute
	defaultAsyncKeep        = time.Hour
	defaultAsyncAnswerBytes = 16 << 20
)

// asyncPoll is how often the node running an asynchronous request looks whether another node cancelled it, in
// nanoseconds (atomic: a test changes it while requests of earlier tests may still be watching).
var asyncPoll atomic.Int64

func init() { asyncPoll.Store(int64(time.Second)) }

// asyncPath is the first segment of the status monitors' paths: {service root}/$async/{id}.
const asyncPath = "/$async/"

// asyncJobs runs a service's asynchronous requests.
type asyncJobs struct {
	s           *Service
	table       string // quoted
	budget      time.Duration
	keep        time.Duration
	answerBytes int64
	bodyBytes   int64 // the largest request body any target of the service takes

	mu      sync.Mutex
	running map[string]context.CancelFunc // the requests this node runs, by id
	jobs    sync.WaitGroup
}

// newAsyncJobs returns the runner of opts for s, or nil when opts is not Enabled; it creates the table of the
// requests' state when the database lacks it.
func newAsyncJobs(s *Service, opts AsyncOptions) (*asyncJobs, error) {
	if !opts.Enabled {
		return nil, nil
	}
	table := opts.Table
	if table == "" {
		table = DefaultAsyncTable
	}
	a := &asyncJobs{s: s, table: s.db.Dialect().QuoteIdent(table), budget: opts.TimeBudget, keep: opts.Keep,
		answerBytes: opts.AnswerBytes, running: map[string]context.CancelFunc{}}
	if a.budget <= 0 {
		a.budget = DefaultAsyncTimeBudget
	}
	if a.keep <= 0 {
		a.keep = defaultAsyncKeep
	}
	if a.answerBytes <= 0 {
		a.answerBytes = defaultAsyncAnswerBytes
	}
	a.bodyBytes = max(s.batchBytes, s.limits.bodyBytes, s.limits.mediaBytes)
	for _, config := range s.sets {
		a.bodyBytes = max(a.bodyBytes, config.limits.bodyBytes, config.limits.mediaBytes)
	}
	d := s.db.Dialect()
	ddl := "CREATE TABLE IF NOT EXISTS " + a.table + " (id " + d.ColumnType(edm.KindString, 0, 0) + " NOT NULL PRIMARY KEY, " +
		"status " + d.ColumnType(edm.KindInt32, 0, 0) + " NOT NULL, " +
		"expires_at " + d.ColumnType(edm.KindInt64, 0, 0) + " NOT NULL, " +
		"answer " + d.ColumnType(edm.KindBinary, 0, 0) + ")" + d.TableOptions()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := s.db.ExecContext(ctx, ddl); err != nil {
		return nil, fmt.Errorf("odata: creating the table of asynchronous requests %s: %w", table, err)
	}
	return a, nil
}

// wants reports whether r is to be run asynchronously: it prefers respond-async and is not a request of a batch
// (the preference applies to the batch as a whole) nor a status monitor's.
func (a *asyncJobs) wants(r *http.Request, path string) bool {
	return a != nil && len(r.Header["Prefer"]) > 0 && !strings.HasPrefix(path, asyncPath) &&
		r.Context().Value(batchKey{}) == nil && parsePrefer(r.Header).respondAsync
}

// start records r, answers 202 with its status monitor and runs it in the background.
func (a *asyncJobs) start(w http.ResponseWriter, r *http.Request) {
	version, err := negotiateVersion(r.Header, a.s.maxVersion)
	w.Header()["Odata-Version"] = version.header()
	if err != nil {
		writeError(w, r, a.s.logger, err, nil)
		return
	}
	body, err := readBody(r, a.bodyBytes, "request body", CodeBadRequest)
	if err != nil {
		writeError(w, r, a.s.logger, err, nil)
		return
	}
	id := newAsyncID()
	if err := a.record(r.Context(), id); err != nil {
		writeError(w, r, a.s.logger, err, nil)
		return
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(r.Context()))
	job := r.Clone(ctx)
	job.Body, job.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	job.Header["Prefer"] = withoutRespondAsync(r.Header.Values("Prefer"))
	a.mu.Lock()
	a.running[id] = cancel
	a.mu.Unlock()
	a.jobs.Add(1)
	go a.run(job, id, cancel)

	h := w.Header()
	h.Set("Location", (&request{r: r, service: a.s}).base()+asyncPath+id)
	h.Set("Retry-After", "1")
	h.Set("Preference-Applied", "respond-async")
	w.WriteHeader(http.StatusAccepted)
}

// builder returns a statement builder of the service's dialect that runs on its database.
func (a *asyncJobs) builder() sq.StatementBuilderType {
	return sqldb.Builder(a.s.db.Dialect()).RunWith(a.s.db)
}

// record inserts the row of a new request, and deletes the rows kept past their time.
func (a *asyncJobs) record(ctx context.Context, id string) error {
	now := time.Now()
	builder := a.builder()
	if _, err := builder.Delete(a.table).Where(sq.Lt{"expires_at": now.UnixMilli()}).ExecContext(ctx); err != nil {
		return fmt.Errorf("odata: asynchronous requests: %w", err)
	}
	expires := now.Add(a.budget + a.keep).UnixMilli()
	if _, err := builder.Insert(a.table).Columns("id", "status", "expires_at").Values(id, 0, expires).ExecContext(ctx); err != nil {
		return fmt.Errorf("odata: asynchronous requests: %w", err)
	}
	return nil
}

// run serves job, the request of id, under the asynchronous time budget and stores its answer; a DELETE of
// its status monitor on any node cancels it.
func (a *asyncJobs) run(job *http.Request, id string, cancel context.CancelFunc) {
	defer a.jobs.Done()
	defer cancel()
	budgeted, stop := budgeted(job, &budgetExceeded{budget: a.budget}, true)
	defer stop()
	watched := make(chan struct{})
	go a.watch(budgeted.Context(), id, cancel, watched)
	answer := &asyncAnswer{header: http.Header{}, limit: a.answerBytes}
	answer.serve(a.s, budgeted)
	close(watched)
	a.mu.Lock()
	delete(a.running, id)
	a.mu.Unlock()

	status, text := answer.http()
	ctx, done := context.WithTimeout(context.WithoutCancel(job.Context()), 30*time.Second)
	defer done()
	_, err := a.builder().
		Update(a.table).Set("status", status).Set("answer", text).
		Set("expires_at", time.Now().Add(a.keep).UnixMilli()).
		Where(sq.Eq{"id": id, "status": 0}).ExecContext(ctx)
	if err != nil {
		a.s.logger.ErrorContext(ctx, "storing the answer of an asynchronous request", "id", id, "err", err)
	}
}

// watch cancels the request of id when its row is gone (a DELETE of its status monitor on another node),
// until done is closed.
func (a *asyncJobs) watch(ctx context.Context, id string, cancel context.CancelFunc, done <-chan struct{}) {
	ticker := time.NewTicker(time.Duration(asyncPoll.Load()))
	defer ticker.Stop()
	for {
		select {
		case <-done:
			return
		case <-ctx.Done():
			return
		case <-ticker.C:
			var one int
			err := a.builder().
				Select("1").From(a.table).Where(sq.Eq{"id": id}).QueryRowContext(ctx).Scan(&one)
			if errors.Is(err, sql.ErrNoRows) {
				cancel()
				return
			}
		}
	}
}

// monitor answers the status monitor of id: GET (202 while the request runs, then 200 with its answer as
// application/http) and DELETE (cancels it, or forgets its answer).
func (a *asyncJobs) monitor(w http.ResponseWriter, r *http.Request, id string) {
	version, err := negotiateVersion(r.Header, a.s.maxVersion)
	w.Header()["Odata-Version"] = version.header()
	if err == nil {
		switch r.Method {
		case http.MethodGet, http.MethodHead:
			err = a.status(w, r, id, version)
		case http.MethodDelete:
			err = a.cancel(w, r, id)
		default:
			err = &Error{Code: CodeMethodNotAllowed, Header: http.Header{"Allow": {"GET, HEAD, DELETE"}},
				Message: "The method " + r.Method + " is not allowed on a status monitor; allowed: GET, HEAD, DELETE."}
		}
	}
	if err != nil {
		writeError(w, r, a.s.logger, err, []any{"method", r.Method, "path", r.URL.Path})
	}
}

// status answers GET on the status monitor of id.
func (a *asyncJobs) status(w http.ResponseWriter, r *http.Request, id string, version Version) error {
	var status int
	var expires int64
	var answer []byte
	err := a.builder().
		Select("status", "expires_at", "answer").From(a.table).Where(sq.Eq{"id": id}).
		QueryRowContext(r.Context()).Scan(&status, &expires, &answer)
	switch {
	case errors.Is(err, sql.ErrNoRows) || err == nil && expires < time.Now().UnixMilli():
		return NotFound("There is no asynchronous request " + id + ": it was cancelled, or its answer is no longer kept.")
	case err != nil:
		return fmt.Errorf("odata: asynchronous requests: %w", err)
	}
	h := w.Header()
	if status == 0 {
		h.Set("Location", (&request{r: r, service: a.s}).base()+asyncPath+id)
		h.Set("Retry-After", "1")
		w.WriteHeader(http.StatusAccepted)
		return nil
	}
	h.Set("Content-Type", "application/http")
	if version == Version401 {
		h.Set("AsyncResult", strconv.Itoa(status))
	}
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, err = w.Write(answer)
	}
	return err
}

// cancel answers DELETE on the status monitor of id: the row is deleted, and the request cancelled if it runs
// (on this node now, on another at its next look).
func (a *asyncJobs) cancel(w http.ResponseWriter, r *http.Request, id string) error {
	// The request is cancelled first: on SQLite the DELETE would wait for the write lock a running write holds.
	a.mu.Lock()
	cancel := a.running[id]
	a.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	result, err := a.builder().
		Delete(a.table).Where(sq.Eq{"id": id}).ExecContext(r.Context())
	if err != nil {
		return fmt.Errorf("odata: asynchronous requests: %w", err)
	}
	if n, err := result.RowsAffected(); err == nil && n == 0 && cancel == nil {
		return NotFound("There is no asynchronous request " + id + ".")
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// wait waits until the asynchronous requests end; when ctx ends first, it cancels them (each stores a 503 as
// its answer) and waits for that.
func (a *asyncJobs) wait(ctx context.Context) error {
	if a == nil {
		return nil
	}
	done := make(chan struct{})
	go func() {
		a.jobs.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
	}
	a.mu.Lock()
	for _, cancel := range a.running {
		cancel()
	}
	a.mu.Unlock()
	<-done
	return ctx.Err()
}

// newAsyncID returns 128 random bits in hex.
func newAsyncID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return hex.EncodeToString(b[:])
}

// withoutRespondAsync returns the Prefer header values without the respond-async preference.
func withoutRespondAsync(values []string) []string {
	var out []string
	for _, v := range values {
		var kept []string
		for _, p := range splitPreferences(v) {
			if name, _, _ := strings.Cut(p, "="); !strings.EqualFold(strings.TrimSpace(name), "respond-async") && p != "" {
				kept = append(kept, p)
			}
		}
		if len(kept) > 0 {
			out = append(out, strings.Join(kept, ", "))
		}
	}
	return out
}

// asyncAnswer records the answer of an asynchronous request, up to limit bytes of body.
type asyncAnswer struct {
	header   http.Header
	status   int
	body     bytes.Buffer
	limit    int64
	overflow bool // the body went past limit
	aborted  bool // the answer failed after it started
}

// serve records s's answer to r. An answer that fails after it started (abort's panic, which makes net/http
// drop the connection of a request alone) is recorded as aborted.
func (w *asyncAnswer) serve(s *Service, r *http.Request) {
	defer func() {
		if p := recover(); p != nil {
			if p != http.ErrAbortHandler {
				panic(p)
			}
			w.aborted = true
		}
	}()
	s.handle(w, r, false)
}

func (w *asyncAnswer) Header() http.Header { return w.header }

func (w *asyncAnswer) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

func (w *asyncAnswer) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	if int64(w.body.Len()+len(p)) > w.limit {
		w.overflow = true
		return 0, bodyTooLarge("answer of the asynchronous request", w.limit, nil)
	}
	return w.body.Write(p)
}

// http returns the recorded answer's status and its text as an HTTP/1.1 response (application/http); an answer
// past the limit is a 500 error naming it.
func (w *asyncAnswer) http() (int, []byte) {
	status, header, body := w.status, w.header, w.body.Bytes()
	if status == 0 {
		status = http.StatusOK
	}
	if w.overflow || w.aborted {
		e := &Error{Code: CodeInternal, Message: "The answer of the asynchronous request failed while it was written."}
		if w.overflow {
			e.Message = fmt.Sprintf("The answer of the asynchronous request exceeds the limit of %s that is kept.", sizeText(w.limit))
		}
		status = e.Status()
		header = http.Header{"Content-Type": {ContentTypeJSON}, "Odata-Version": w.header["Odata-Version"]}
		body, _ = json.Marshal(errorBody{Error: errorPayload{Code: e.Code, Message: e.Message}})
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "HTTP/1.1 %d %s\r\n", status, http.StatusText(status))
	names := make([]string, 0, len(header))
	for name := range header {
		if name != "Content-Length" {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		for _, v := range header[name] {
			fmt.Fprintf(&b, "%s: %s\r\n", name, v)
		}
	}
	fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n", len(body))
	b.Write(body)
	return status, b.Bytes()
}

// Shutdown waits until the asynchronous requests the service runs end (Config.Async). When ctx ends first, it
// cancels them, waits until each has stored its cancellation (a 503) as its answer, and returns ctx's error.
// The server calls it after http.Server.Shutdown, when no new request arrives.
func (s *Service) Shutdown(ctx context.Context) error { return s.async.wait(ctx) }
