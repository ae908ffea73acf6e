package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/storekit/store/entities"
	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/sqldb"
)

// The targets a run can drive.
const (
	targetStore    = "store"
	targetEngine   = "engine"
	targetBaseline = "baseline"
)

// target is a server the scenarios are run against.
type target struct {
	name string
	// url is the server's root URL, "http://127.0.0.1:PORT"; the OData service is under url + "/odata".
	url string
	// nodes are the root URLs of every node of the target (url is the first): client i of a scenario sends
	// its requests to nodes[i % len(nodes)].
	nodes []string
	// auth is the Authorization header of the OData requests, "" for none.
	auth string
	stop func() error
}

// startTargets starts the targets cfg names (store, engine, baseline), in that order.
func startTargets(ctx context.Context, cfg benchConfig, names []string) ([]*target, error) {
	var ts []*target
	for _, name := range names {
		t, err := startTarget(ctx, cfg, name)
		if err != nil {
			stopTargets(ts)
			return nil, fmt.Errorf("start the %s target: %w", name, err)
		}
		ts = append(ts, t)
	}
	return ts, nil
}

func startTarget(ctx context.Context, cfg benchConfig, name string) (*target, error) {
	switch name {
	case targetStore:
		return startStoreTarget(ctx, cfg)
	case targetEngine, targetBaseline:
		db, err := openDB(cfg.DB, cfg.MaxOpen)
		if err != nil {
			return nil, err
		}
		var h http.Handler
		if name == targetEngine {
			h, err = engineService(db)
		} else {
			b := newBaseline(db)
			h, err = b, b.findSearchVector(ctx)
		}
		if err != nil {
			db.Close()
			return nil, err
		}
		t, err := serve(name, h, cfg.Listen[name])
		if err != nil {
			db.Close()
			return nil, err
		}
		stop := t.stop
		t.stop = func() error { return errors.Join(stop(), db.Close()) }
		return t, nil
	}
	return nil, fmt.Errorf("unknown target %q (want store, engine or baseline)", name)
}

// node returns the root URL client i of a scenario sends its requests to.
func (t *target) node(i int) string {
	if len(t.nodes) == 0 {
		return t.url
	}
	return t.nodes[i%len(t.nodes)]
}

// startStoreTarget starts cfg.StoreNodes store servers in this process on the same database (each with its own
// pool, as separate machines would run them), or uses the servers at cfg.StoreURL (comma-separated), and signs
// in as the administrator.
func startStoreTarget(ctx context.Context, cfg benchConfig) (*target, error) {
	t := &target{name: targetStore, stop: func() error { return nil }}
	for _, u := range strings.Split(cfg.StoreURL, ",") {
		if u = strings.TrimSuffix(strings.TrimSpace(u), "/"); u != "" {
			t.nodes = append(t.nodes, u)
		}
	}
	if len(t.nodes) == 0 {
		var stops []func() error
		t.stop = func() error {
			var errs []error
			for _, stop := range stops {
				errs = append(errs, stop())
			}
			return errors.Join(errs...)
		}
		for range max(cfg.StoreNodes, 1) {
			srv, err := startStore(ctx, cfg.DB, cfg.AdminEmail, cfg.AdminPassword, cfg.MaxOpen, io.Discard)
			if err != nil {
				_ = t.stop()
				return nil, err
			}
			t.nodes, stops = append(t.nodes, srv.URL), append(stops, srv.stop)
		}
	}
	t.url = t.nodes[0]
	token, err := signIn(ctx, http.DefaultClient, t.url, cfg.AdminEmail, cfg.AdminPassword)
	if err != nil {
		_ = t.stop()
		return nil, err
	}
	t.auth = "Bearer " + token
	return t, nil
}

// signIn returns a bearer token of the store at url.
func signIn(ctx context.Context, c *http.Client, url, email, password string) (string, error) {
	body, _ := json.Marshal(map[string]string{"email": email, "password": password})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/api/token", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var answer struct {
		AccessToken string `json:"access_token"`
	}
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || json.Unmarshal(raw, &answer) != nil || answer.AccessToken == "" {
		return "", fmt.Errorf("sign in as %s: %s %s", email, resp.Status, bytes.TrimSpace(raw))
	}
	return answer.AccessToken, nil
}

// engineService is the bare engine over the store's tables: the store's model served by odata.NewService with
// none of the store's rules, under /odata. Product takes writes; every action of the model answers 501, since
// its handler is the store's.
func engineService(db *sqldb.DB) (*odata.Service, error) {
	model, err := entities.NewModel()
	if err != nil {
		return nil, err
	}
	actions := map[string]odata.ActionFunc{}
	for _, a := range model.Actions {
		name := a.Name
		if a.Bound {
			binding := a.BindingType
			if a.BindingCollection {
				binding = "Collection(" + binding + ")"
			}
			name = binding + "/" + name
		}
		actions[name] = notServed
	}
	return odata.NewService(odata.Config{Model: model, DB: db, Mount: "/odata",
		Logger: slog.New(slog.DiscardHandler), Actions: actions,
		Sets: map[string]odata.SetOptions{"Product": {Writes: odata.WriteAll}}})
}

// notServed answers an action of the store's model on the bare engine, which has none of the store's rules.
func notServed(context.Context, *odata.ActionCall) (any, error) {
	return nil, &odata.Error{Code: odata.CodeNotImplemented, Message: "The engine target of loadbench serves no actions."}
}

// serve serves h on addr, or on a free port of 127.0.0.1 when addr is "", until the target is stopped.
func serve(name string, h http.Handler, addr string) (*target, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 120 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	return &target{name: name, url: "http://" + ln.Addr().String(), stop: func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		err := srv.Shutdown(ctx)
		if serr := <-done; !errors.Is(serr, http.ErrServerClosed) {
			err = errors.Join(err, serr)
		}
		return err
	}}, nil
}

// stopTargets stops the targets, reporting nothing: a failed stop does not change the measurements.
func stopTargets(ts []*target) {
	for _, t := range ts {
		_ = t.stop()
	}
}
