package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// op is one operation of a scenario: one request, or one whole flow of requests (a checkout). An error is a
// failed operation: a transport error or an answer that is not 2xx.
type op func(ctx context.Context) error

// result is what one measurement of one scenario on one target gave.
type result struct {
	Requests int     `json:"requests"`
	Errors   int     `json:"errors"`
	RPS      float64 `json:"requests_per_second"`
	P50ms    float64 `json:"p50_ms"`
	P99ms    float64 `json:"p99_ms"`
	// FirstError is the first failure, to tell what went wrong.
	FirstError string `json:"first_error,omitempty"`
}

// measure runs each of ops (one per client) in a loop for warmup, unmeasured, and then for d, and returns the
// number of operations that started within d, their rate, latencies and failures.
func measure(ctx context.Context, ops []op, warmup, d time.Duration) result {
	start := time.Now()
	from, until := start.Add(warmup), start.Add(warmup+d)
	ctx, cancel := context.WithDeadline(ctx, until.Add(time.Minute))
	defer cancel()
	type clientResult struct {
		lat      []time.Duration
		errs     int
		firstErr error
		last     time.Time
	}
	res := make([]clientResult, len(ops))
	var wg sync.WaitGroup
	for i, o := range ops {
		wg.Go(func() {
			r := &res[i]
			for ctx.Err() == nil {
				t0 := time.Now()
				if !t0.Before(until) {
					break
				}
				err := o(ctx)
				t1 := time.Now()
				if t0.Before(from) {
					continue
				}
				r.lat, r.last = append(r.lat, t1.Sub(t0)), t1
				if err != nil {
					r.errs++
					if r.firstErr == nil {
						r.firstErr = err
					}
				}
			}
		})
	}
	wg.Wait()
	var all []time.Duration
	out := result{}
	end := until
	for _, r := range res {
		all = append(all, r.lat...)
		out.Errors += r.errs
		if r.firstErr != nil && out.FirstError == "" {
			out.FirstError = r.firstErr.Error()
		}
		if r.last.After(end) {
			end = r.last
		}
	}
	out.Requests = len(all)
	if len(all) > 0 {
		slices.Sort(all)
		out.RPS = float64(len(all)) / end.Sub(from).Seconds()
		out.P50ms = ms(percentile(all, 0.50))
		out.P99ms = ms(percentile(all, 0.99))
	}
	return out
}

// percentile returns the p-quantile of sorted latencies (nearest rank).
func percentile(sorted []time.Duration, p float64) time.Duration {
	i := int(p*float64(len(sorted))+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// median returns the median of each measure of the rounds (the middle one, or the mean of the two in the
// middle), with the requests and errors of all rounds summed.
func median(rounds []result) result {
	if len(rounds) == 0 {
		return result{}
	}
	pick := func(f func(result) float64) float64 {
		v := make([]float64, len(rounds))
		for i, r := range rounds {
			v[i] = f(r)
		}
		slices.Sort(v)
		n := len(v)
		if n%2 == 1 {
			return v[n/2]
		}
		return (v[n/2-1] + v[n/2]) / 2
	}
	out := result{
		RPS:   pick(func(r result) float64 { return r.RPS }),
		P50ms: pick(func(r result) float64 { return r.P50ms }),
		P99ms: pick(func(r result) float64 { return r.P99ms }),
	}
	for _, r := range rounds {
		out.Requests += r.Requests
		out.Errors += r.Errors
		if out.FirstError == "" {
			out.FirstError = r.FirstError
		}
	}
	return out
}

// client sends the requests of the scenarios.
type client struct {
	http *http.Client
}

func newClient(conns int) *client {
	tr := &http.Transport{MaxIdleConns: conns * 4, MaxIdleConnsPerHost: conns * 2, IdleConnTimeout: time.Minute,
		DisableCompression: true}
	return &client{http: &http.Client{Transport: tr, Timeout: time.Minute}}
}

// statusError is an answer that is not 2xx.
type statusError struct {
	method, url string
	status      int
	body        string
}

func (e *statusError) Error() string {
	return fmt.Sprintf("%s %s: %d %s", e.method, e.url, e.status, e.body)
}

// do sends a request and returns the answer's body when it is 2xx; keep says whether to keep the body (else it
// is read and dropped).
func (c *client) do(req *http.Request, keep bool) ([]byte, error) {
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil, &statusError{method: req.Method, url: req.URL.RequestURI(), status: resp.StatusCode, body: strings.TrimSpace(string(b))}
	}
	if !keep {
		_, err = io.Copy(io.Discard, resp.Body)
		return nil, err
	}
	return io.ReadAll(resp.Body)
}

// get sends GET url with the Authorization header auth (none when "").
func (c *client) get(ctx context.Context, url, auth string, keep bool) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	return c.do(req, keep)
}

// post sends POST url with a body of the content type.
func (c *client) post(ctx context.Context, url, auth, contentType, body string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	return c.do(req, true)
}
