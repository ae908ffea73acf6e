package server

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// The headers a reverse proxy adds: the client's address (appended to any list it received), and the host and
// scheme the client used.
const (
	headerForwardedFor   = "X-Forwarded-For"
	headerForwardedHost  = "X-Forwarded-Host"
	headerForwardedProto = "X-Forwarded-Proto"
)

type clientAddrKey struct{}

// clientAddrFrom returns the address of the client a request comes from (see fromProxies), or the zero Addr when
// the connection's address is not an IP address.
func clientAddrFrom(ctx context.Context) netip.Addr {
	a, _ := ctx.Value(clientAddrKey{}).(netip.Addr)
	return a
}

// fromProxies decides where a request comes from. The immediate peer is the connection's remote address. When it
// is one of the trusted proxies, the request's X-Forwarded-For names the client (the right-most address that is
// not a trusted proxy: the one the nearest untrusted hop connected from), X-Forwarded-Host replaces r.Host and
// X-Forwarded-Proto (http or https) sets r.URL.Scheme, which the OData engine uses for absolute URLs when no
// public URL is configured; of a list, the last value counts, as the trusted proxy wrote it. From any other
// peer the three headers are removed unread, so no handler can be misled by them, and the peer is the client.
// The client address goes into the request context (clientAddrFrom) for sign-in throttling and the log.
func fromProxies(trusted []netip.Prefix) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			peer := remoteIP(r.RemoteAddr)
			forwarded := r.Header[headerForwardedFor] != nil || r.Header[headerForwardedHost] != nil ||
				r.Header[headerForwardedProto] != nil
			switch {
			case !forwarded:
				r = r.WithContext(context.WithValue(r.Context(), clientAddrKey{}, peer))
			case peer.IsValid() && trustedAddr(trusted, peer):
				client := forwardedClient(r.Header.Values(headerForwardedFor), trusted, peer)
				r = r.WithContext(context.WithValue(r.Context(), clientAddrKey{}, client))
				u := *r.URL
				r.URL = &u
				if host := lastValue(r.Header.Values(headerForwardedHost)); validHost(host) {
					r.Host = host
				}
				switch proto := strings.ToLower(lastValue(r.Header.Values(headerForwardedProto))); proto {
				case "http", "https":
					r.URL.Scheme = proto
				}
			default:
				r = r.WithContext(context.WithValue(r.Context(), clientAddrKey{}, peer))
				r.Header = r.Header.Clone()
				r.Header.Del(headerForwardedFor)
				r.Header.Del(headerForwardedHost)
				r.Header.Del(headerForwardedProto)
			}
			next.ServeHTTP(w, r)
		})
	}
}

// remoteIP returns the IP address of a connection's "host:port" remote address (IPv4-mapped IPv6 addresses as
// IPv4), or the zero Addr.
func remoteIP(remoteAddr string) netip.Addr {
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		host = remoteAddr
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}
	}
	return a.WithZone("").Unmap()
}

func trustedAddr(trusted []netip.Prefix, a netip.Addr) bool {
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// forwardedClient returns the client of a request that the trusted proxy peer forwarded with the X-Forwarded-For
// values: walking the addresses from the right (the nearest hop), the first one that is not a trusted proxy. When
// every address is trusted, the left-most; when an address cannot be read, the trusted hop that passed it on.
func forwardedClient(values []string, trusted []netip.Prefix, peer netip.Addr) netip.Addr {
	var hops []string
	for _, v := range values {
		hops = append(hops, strings.Split(v, ",")...)
	}
	client := peer
	for i := len(hops) - 1; i >= 0; i-- {
		a := parseHop(hops[i])
		if !a.IsValid() {
			return client
		}
		client = a
		if !trustedAddr(trusted, a) {
			return a
		}
	}
	return client
}

// parseHop reads one X-Forwarded-For entry: an IP address, possibly with a port ("1.2.3.4:5", "[::1]:5").
func parseHop(s string) netip.Addr {
	s = strings.TrimSpace(s)
	if a, err := netip.ParseAddr(s); err == nil {
		return a.WithZone("").Unmap()
	}
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().WithZone("").Unmap()
	}
	return netip.Addr{}
}

// lastValue returns the last element of the comma-separated header values, trimmed.
func lastValue(values []string) string {
	if len(values) == 0 {
		return ""
	}
	v := values[len(values)-1]
	if i := strings.LastIndexByte(v, ','); i >= 0 {
		v = v[i+1:]
	}
	return strings.TrimSpace(v)
}

// validHost reports whether h can be a Host header: a host name or IP literal with an optional port, made of the
// characters such a value has (so nothing can break out of a URL or a header built from it).
func validHost(h string) bool {
	if h == "" || len(h) > 255 {
		return false
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '-', c == '.', c == ':', c == '[', c == ']', c == '_':
		default:
			return false
		}
	}
	return true
}
