package main

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/storekit/store/odata/dbtest"
)

// confirmationLink finds the confirmation link of the newest queued e-mail to the address: base URL, token and
// active flag.
var confirmationLink = regexp.MustCompile(`(\S+)(/newsletter/subscriptionactivation/[A-Za-z0-9_-]{43}/)(true|false)`)

func (s *storeServer) lastEmail(t testing.TB, to string) (subject, body string) {
	t.Helper()
	err := s.db.QueryRow(placeholders(s.db, `SELECT subject, body FROM queued_email WHERE to_address = ? ORDER BY id DESC LIMIT 1`), to).
		Scan(&subject, &body)
	if err != nil {
		t.Fatalf("no e-mail to %s in the outbox: %v", to, err)
	}
	return subject, body
}

// subscriptionActive returns the Active flag of the admin's view of the address's subscription.
func subscriptionActive(t testing.TB, admin *client, email string) any {
	t.Helper()
	page := admin.must(t, http.StatusOK, "GET", "/odata/NewsletterSubscription?$filter="+queryEscape("Email eq '"+email+"'"), nil).json(t)
	list := page["value"].([]any)
	if len(list) != 1 {
		t.Fatalf("subscriptions of %s = %v, want one", email, list)
	}
	return list[0].(map[string]any)["Active"]
}

// TestStore_Newsletter walks the newsletter flow of SPEC part 6 over HTTP: a customer's own e-mail changes at
// once, another address gets an inactive subscription and a confirmation e-mail in the outbox, whose link,
// opened without a bearer token, activates it once; nobody changes another person's subscription.
func TestStore_Newsletter(t *testing.T) {
	each(t, func(t *testing.T, db *dbtest.DB) {
		s := start(t, db, nil, "-demo=false", "-public-url", "https://shop.example.com")
		admin := s.admin(t)
		ann := newCustomer(t, s, admin, "ann@example.com")
		bob := newCustomer(t, s, admin, "bob@example.com")

		bob.must(t, http.StatusOK, "POST", "/subscribenewsletter?subscribe=true&email=bob@example.com", nil)
		if subscriptionActive(t, admin, "bob@example.com") != true {
			t.Fatalf("bob's own subscription is not active at once")
		}
		r := ann.must(t, http.StatusOK, "POST", "/subscribenewsletter?subscribe=false&email=bob@example.com", nil).json(t)
		if r["Success"] != true || !strings.Contains(str(r, "Result"), "verification e-mail") {
			t.Errorf("ann unsubscribing bob = %v, want a verification announced", r)
		}
		if subscriptionActive(t, admin, "bob@example.com") != true {
			t.Errorf("ann unsubscribed bob")
		}
		if subject, _ := s.lastEmail(t, "bob@example.com"); subject != "Confirm that you leave our newsletter" {
			t.Errorf("e-mail to bob: %q", subject)
		}

		ann.must(t, http.StatusOK, "POST", "/subscribenewsletter?subscribe=true&email=friend@example.com", nil)
		if subscriptionActive(t, admin, "friend@example.com") != false {
			t.Errorf("a subscription of another address is active before its confirmation")
		}
		subject, body := s.lastEmail(t, "friend@example.com")
		link := confirmationLink.FindStringSubmatch(body)
		if subject != "Confirm your newsletter subscription" || link == nil || link[1] != "https://shop.example.com" || link[3] != "true" {
			t.Fatalf("confirmation e-mail %q:\n%s\nwant a link under https://shop.example.com", subject, body)
		}
		anonymous := s.client("")
		got := anonymous.must(t, http.StatusOK, "GET", link[2]+"true", nil)
		if str(got.json(t), "Result") != "Your subscription has been activated." || got.header.Get("Cache-Control") != "no-store" {
			t.Errorf("opening the link = %s %v", got, got.header)
		}
		if subscriptionActive(t, admin, "friend@example.com") != true {
			t.Errorf("the subscription is not active after its confirmation")
		}
		anonymous.fails(t, http.StatusNotFound, "NotFound", "GET", link[2]+"true", nil)
		anonymous.fails(t, http.StatusNotFound, "NotFound", "GET", "/newsletter/subscriptionactivation/"+strings.Repeat("x", 43)+"/true", nil)
		anonymous.fails(t, http.StatusBadRequest, "InvalidValue", "GET", link[2]+"yes", nil)
		if e := anonymous.fails(t, http.StatusMethodNotAllowed, "MethodNotAllowed", "POST", link[2]+"true", nil); e.Code == "" {
			t.Error("no error body")
		}
		if n := s.count(t, `SELECT 1 FROM newsletter_token`); n != 1 { // bob's, unused
			t.Errorf("tokens left = %d, want bob's only", n)
		}
		if strings.Contains(s.stderr.String(), strings.TrimSuffix(strings.TrimPrefix(link[2], "/newsletter/subscriptionactivation/"), "/")) {
			t.Errorf("the log holds the confirmation token")
		}
	})
}
