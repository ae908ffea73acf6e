package entities

import (
	"strconv"
	"testing"
	"time"
)

// TestTokenCache_ForgetRacesCheck checks that a check that started before a Forget is not cached by its put: it
// may have read the token before the revocation committed.
func TestTokenCache_ForgetRacesCheck(t *testing.T) {
	var c tokenCache
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	p := Principal{CustomerID: "c1"}
	epoch := c.currentEpoch() // the check starts
	c.forget()                // a revocation commits and forgets
	c.put("h", p, now.Add(time.Minute), epoch)
	if got, ok := c.get("h", now); ok {
		t.Errorf("get after a put of a check older than forget = %+v, want nothing", got)
	}
	c.put("h", p, now.Add(time.Minute), c.currentEpoch())
	if _, ok := c.get("h", now); !ok {
		t.Errorf("get after a put of a check newer than forget = nothing, want the principal")
	}
	if _, ok := c.get("h", now.Add(time.Minute)); ok {
		t.Errorf("get at until = the principal, want nothing")
	}
	c.forget()
	if _, ok := c.get("h", now); ok {
		t.Errorf("get after forget = the principal, want nothing")
	}
}

// TestTokenCache_Bounded checks that the cache never holds more than maxCachedTokens principals.
func TestTokenCache_Bounded(t *testing.T) {
	var c tokenCache
	until := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range maxCachedTokens + 5 {
		c.put(strconv.Itoa(i), Principal{}, until, 0)
	}
	if n := len(c.entries); n > maxCachedTokens {
		t.Errorf("entries = %d, want at most %d", n, maxCachedTokens)
	}
}
