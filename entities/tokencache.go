package entities

import (
	"sync"
	"time"
)

// maxCachedTokens bounds the principals an Auth keeps; when full, the cache starts again empty.
const maxCachedTokens = 10_000

// tokenCache keeps the principals of recently checked tokens for Auth.CacheTTL, keyed by the token's hash. Its
// epoch counts the invalidations (Auth.Forget): an entry is used only while the epoch is the one read before the
// database query that produced it, so a check that raced with a revocation is never reused.
type tokenCache struct {
	mu      sync.RWMutex
	epoch   uint64
	entries map[string]cachedPrincipal
}

type cachedPrincipal struct {
	principal Principal
	// until is the earlier of the token's expiry and the end of the cache lifetime.
	until time.Time
	epoch uint64
}

// currentEpoch returns the epoch to pass to put for a query that starts now.
func (c *tokenCache) currentEpoch() uint64 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.epoch
}

// get returns the principal cached for hash, if it is still valid at now.
func (c *tokenCache) get(hash string, now time.Time) (Principal, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	e, ok := c.entries[hash]
	if !ok || e.epoch != c.epoch || !now.Before(e.until) {
		return Principal{}, false
	}
	return e.principal, true
}

// put caches p for hash until until, unless the cache was invalidated since epoch was read.
func (c *tokenCache) put(hash string, p Principal, until time.Time, epoch uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if epoch != c.epoch {
		return
	}
	if c.entries == nil || len(c.entries) >= maxCachedTokens {
		c.entries = make(map[string]cachedPrincipal)
	}
	c.entries[hash] = cachedPrincipal{principal: p, until: until, epoch: epoch}
}

// forget drops every entry, and every put of a query that started before.
func (c *tokenCache) forget() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epoch++
	if len(c.entries) > 0 {
		c.entries = nil
	}
}
