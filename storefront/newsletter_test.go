package storefront_test

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/storefront"
)

// queuedEmail is a row of the outbox.
type queuedEmail struct {
	To, Subject, Body string
}

// outbox returns the unsent e-mails to the address, oldest first.
func (f *fixture) outbox(to string) []queuedEmail {
	f.t.Helper()
	rows, err := f.db.Query(f.q(`SELECT to_address, subject, body FROM queued_email WHERE to_address = ? AND sent_on_utc IS NULL ORDER BY id`), to)
	if err != nil {
		f.t.Fatal(err)
	}
	defer rows.Close()
	var out []queuedEmail
	for rows.Next() {
		var m queuedEmail
		if err := rows.Scan(&m.To, &m.Subject, &m.Body); err != nil {
			f.t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

var activationLink = regexp.MustCompile(`(\S+)/newsletter/subscriptionactivation/([A-Za-z0-9_-]{43})/(true|false)`)

// link returns the base URL, the token and the active flag of the first confirmation link of an e-mail.
func link(t *testing.T, m queuedEmail) (base, token, active string) {
	t.Helper()
	sub := activationLink.FindStringSubmatch(m.Body)
	if sub == nil {
		t.Fatalf("no confirmation link in the e-mail:\n%s", m.Body)
	}
	return sub[1], sub[2], sub[3]
}

// activate opens a confirmation link, without any customer.
func (f *fixture) activate(token, active string) *httptest.ResponseRecorder {
	f.t.Helper()
	return f.serve(request{method: http.MethodGet, path: "/newsletter/subscriptionactivation/" + token + "/" + active})
}

func (f *fixture) subscription(email string) (active bool, customerID *string, found bool) {
	f.t.Helper()
	err := f.db.QueryRow(f.q(`SELECT active, customer_id FROM newsletter_subscription WHERE lower(email) = ?`), strings.ToLower(email)).
		Scan(&active, &customerID)
	return active, customerID, err == nil
}

// TestNewsletter walks the newsletter flows of SPEC part 6: the token's own e-mail changes at once; another
// address gets an inactive subscription and a confirmation e-mail in the outbox, whose single-use link
// activates or declines it without a bearer token.
func TestNewsletter(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		ann := f.customer("ann@example.com")
		bob := f.customer("Bob@Example.com")

		t.Run("OKOtherEmailWaitsForConfirmation", func(t *testing.T) {
			m := ok(t, f.post(ann, "/subscribenewsletter?subscribe=true&email=friend@example.com", nil))
			if m["Success"] != true || !strings.Contains(m["Result"].(string), "verification e-mail") {
				t.Errorf("subscribe another address = %v, want a verification e-mail announced", m)
			}
			if active, owner, found := f.subscription("friend@example.com"); !found || active || owner != nil {
				t.Errorf("subscription of friend@example.com: found %v, active %v, customer %v; want an inactive one without customer", found, active, owner)
			}
			mails := f.outbox("friend@example.com")
			if len(mails) != 1 || mails[0].Subject != "Confirm your newsletter subscription" {
				t.Fatalf("outbox of friend@example.com = %+v, want one confirmation e-mail", mails)
			}
			base, token, active := link(t, mails[0])
			if base != "http://example.com" || active != "true" || !strings.Contains(mails[0].Body, token+"/false") {
				t.Errorf("e-mail body:\n%s\nwant an activation link under http://example.com and a decline link", mails[0].Body)
			}
			if n := f.count(`SELECT COUNT(*) FROM newsletter_token WHERE token_hash = ?`, sha256Hex(token)); n != 1 {
				t.Errorf("tokens stored under the token's SHA-256 = %d, want 1", n)
			}
			if n := f.count(`SELECT COUNT(*) FROM newsletter_token WHERE token_hash = ?`, token); n != 0 {
				t.Errorf("tokens stored in the clear = %d, want 0", n)
			}

			if rec := f.serve(request{method: http.MethodHead, path: "/newsletter/subscriptionactivation/" + token + "/true"}); rec.Code != http.StatusOK {
				t.Errorf("HEAD of the link = %d, want 200", rec.Code)
			}
			if active, _, _ := f.subscription("friend@example.com"); active {
				t.Errorf("HEAD of the link activated the subscription")
			}
			got := ok(t, f.activate(token, "true"))
			if diff := cmp.Diff(map[string]any{"Success": true, "Result": "Your subscription has been activated."}, got); diff != "" {
				t.Errorf("activation (-want +got):\n%s", diff)
			}
			if active, _, _ := f.subscription("friend@example.com"); !active {
				t.Errorf("subscription after activation: inactive")
			}
			fails(t, f.activate(token, "true"), http.StatusNotFound, "NotFound")
			fails(t, f.activate(token, "false"), http.StatusNotFound, "NotFound")
		})
		t.Run("OKDecline", func(t *testing.T) {
			ok(t, f.post(ann, "/subscribenewsletter?email=stranger@example.com", nil))
			_, token, _ := link(t, f.outbox("stranger@example.com")[0])
			got := ok(t, f.activate(token, "FALSE"))
			if got["Result"] != "Your subscription has been deactivated." {
				t.Errorf("decline = %v", got)
			}
			if active, _, _ := f.subscription("stranger@example.com"); active {
				t.Errorf("subscription after the decline: active")
			}
			fails(t, f.activate(token, "true"), http.StatusNotFound, "NotFound")
		})
		t.Run("OKAnotherCustomersSubscriptionUnchanged", func(t *testing.T) {
			ok(t, f.post(bob, "/subscribenewsletter?subscribe=true&email=bob@example.com", nil)) // his own: at once
			active, owner, _ := f.subscription("bob@example.com")
			if !active || owner == nil || *owner != bob {
				t.Fatalf("bob's own subscription: active %v, customer %v", active, owner)
			}
			ok(t, f.post(ann, "/subscribenewsletter?subscribe=false&email=BOB@example.com", nil))
			if active, _, _ := f.subscription("bob@example.com"); !active {
				t.Errorf("ann unsubscribed bob at once")
			}
			mails := f.outbox("bob@example.com") // the subscription's address, as bob gave it
			if len(mails) != 1 || mails[0].Subject != "Confirm that you leave our newsletter" {
				t.Fatalf("outbox of bob = %+v, want one e-mail to confirm the unsubscription", mails)
			}
			_, token, active2 := link(t, mails[0])
			if active2 != "false" {
				t.Errorf("the unsubscription e-mail links %s first, want false", active2)
			}
			ok(t, f.activate(token, "false"))
			if active, _, _ := f.subscription("bob@example.com"); active {
				t.Errorf("bob's subscription after his confirmation: active")
			}
		})
		t.Run("OKLinkedToTheAddressesCustomer", func(t *testing.T) {
			carl := f.customer("carl@example.com")
			ok(t, f.post(ann, "/subscribenewsletter?email=carl@example.com", nil))
			if _, owner, _ := f.subscription("carl@example.com"); owner == nil || *owner != carl {
				t.Errorf("subscription of carl's e-mail: customer %v, want %s", owner, carl)
			}
		})
		t.Run("OKNothingToConfirm", func(t *testing.T) {
			before := f.count(`SELECT COUNT(*) FROM queued_email`)
			ok(t, f.post(ann, "/subscribenewsletter?subscribe=true&email=friend@example.com", nil))    // already active
			ok(t, f.post(ann, "/subscribenewsletter?subscribe=false&email=nobody@example.com", nil))   // no subscription
			ok(t, f.post(ann, "/subscribenewsletter?subscribe=false&email=stranger@example.com", nil)) // already inactive
			if n := f.count(`SELECT COUNT(*) FROM queued_email`); n != before {
				t.Errorf("e-mails queued for changes that change nothing = %d, want 0", n-before)
			}
			if _, _, found := f.subscription("nobody@example.com"); found {
				t.Errorf("unsubscribing an unknown address created a subscription")
			}
		})
		t.Run("OKAtMostOneEmailPerInterval", func(t *testing.T) {
			for range 3 {
				ok(t, f.post(ann, "/subscribenewsletter?email=spam@example.com", nil))
			}
			if n := len(f.outbox("spam@example.com")); n != 1 {
				t.Errorf("e-mails after 3 requests at once = %d, want 1", n)
			}
			f.clock.Set(testNow.Add(16 * time.Minute))
			defer f.clock.Set(testNow)
			ok(t, f.post(ann, "/subscribenewsletter?email=spam@example.com", nil))
			mails := f.outbox("spam@example.com")
			if len(mails) != 2 {
				t.Fatalf("e-mails after another request 16 minutes later = %d, want 2", len(mails))
			}
			_, first, _ := link(t, mails[0])
			_, second, _ := link(t, mails[1])
			ok(t, f.activate(first, "true"))
			fails(t, f.activate(second, "true"), http.StatusNotFound, "NotFound") // one decision uses up every link
		})
		t.Run("ErrExpired", func(t *testing.T) {
			ok(t, f.post(ann, "/subscribenewsletter?email=late@example.com", nil))
			_, token, _ := link(t, f.outbox("late@example.com")[0])
			f.clock.Set(testNow.Add(7 * 24 * time.Hour))
			defer f.clock.Set(testNow)
			fails(t, f.activate(token, "true"), http.StatusNotFound, "NotFound")
			if active, _, _ := f.subscription("late@example.com"); active {
				t.Errorf("an expired link activated the subscription")
			}
		})
		for _, tc := range []struct {
			name, token, active string
			status              int
			code                string
		}{
			{"ErrUnknownToken", strings.Repeat("A", 43), "true", http.StatusNotFound, "NotFound"},
			{"ErrMalformedToken", "not-a-token", "true", http.StatusNotFound, "NotFound"},
			{"ErrNotBase64Token", strings.Repeat("!", 43), "true", http.StatusNotFound, "NotFound"},
			{"ErrActiveNotABoolean", strings.Repeat("A", 43), "maybe", http.StatusBadRequest, "InvalidValue"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				fails(t, f.activate(tc.token, tc.active), tc.status, tc.code)
			})
		}
	})
}

// TestNewsletter_PublicURL checks that the links of queued e-mails start with the configured public URL, not
// with the request's host.
func TestNewsletter_PublicURL(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db, func(c *storefront.Config) { c.PublicURL = "https://shop.example.org/store/" })
		ann := f.customer("ann@example.com")
		rec := f.serve(request{customer: ann, method: http.MethodPost, path: "/subscribenewsletter?email=friend@example.com",
			header: http.Header{"Host": {"evil.test"}}})
		ok(t, rec)
		mails := f.outbox("friend@example.com")
		if len(mails) != 1 {
			t.Fatalf("outbox = %+v", mails)
		}
		if base, _, _ := link(t, mails[0]); base != "https://shop.example.org/store" || strings.Contains(mails[0].Body, "evil.test") {
			t.Errorf("e-mail body:\n%s\nwant links under https://shop.example.org/store only", mails[0].Body)
		}
	})
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
