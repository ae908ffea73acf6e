package odata

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// Version is a version of the OData protocol a service answers in (Config.MaxVersion).
type Version uint8

// The OData versions the engine answers in. Requests are read with 4.01 syntax whatever the version.
const (
	// Version40 answers every request in OData 4.0 (the default).
	Version40 Version = iota
	// Version401 answers in OData 4.01 a request whose OData-MaxVersion is 4.01 or above, and in 4.0 a request
	// with a lower OData-MaxVersion or none (a client that does not say what it reads gets the older version,
	// which every OData 4 client reads).
	Version401
)

// String returns "4.0" or "4.01".
func (v Version) String() string {
	if v == Version401 {
		return "4.01"
	}
	return "4.0"
}

// versionHeaders are the OData-Version header values of the answers, by version (net/http only reads them).
var versionHeaders = [...][]string{Version40: {"4.0"}, Version401: {"4.01"}}

// header returns the OData-Version header value of answers in v.
func (v Version) header() []string { return versionHeaders[v] }

// The version headers' names in their canonical form, which http.Header.Get looks up without allocating (it
// allocates the canonical form of any other spelling on every call).
const (
	hdrMaxVersion = "Odata-Maxversion" // OData-MaxVersion
	hdrVersion    = "Odata-Version"    // OData-Version
)

// negotiateVersion returns the version to answer h's request in, the highest both max (the service's) and the
// request's OData-MaxVersion allow, or refuses the request: OData-MaxVersion below 4.0 is 406 (the service never
// answers in an older version; an OData-MaxVersion that is not a version is ignored, as a missing one is), and
// an OData-Version the request is written in other than 4.0 or 4.01, or one that is not a version, is 400.
func negotiateVersion(h http.Header, max Version) (Version, error) {
	answer := Version40
	if v := h.Get(hdrMaxVersion); v != "" {
		major, minor, ok := parseODataVersion(v)
		switch {
		case ok && major < 4:
			return answer, &Error{Code: CodeNotAcceptable, Target: "OData-MaxVersion",
				Message: fmt.Sprintf("The service answers in OData 4.0 or above, above OData-MaxVersion %s.", v)}
		case ok && (major > 4 || minor >= 1):
			answer = min(max, Version401)
		}
	}
	if v := h.Get(hdrVersion); v != "" {
		major, minor, ok := parseODataVersion(v)
		if !ok || major != 4 || minor > 1 {
			return answer, &Error{Code: CodeBadRequest, Target: "OData-Version",
				Message: fmt.Sprintf("OData-Version %q is not supported: requests are read as OData 4.0 or 4.01.", v)}
		}
	}
	return answer, nil
}

// readsVersion401 reports whether the client of h's request reads OData 4.01 answers: it sent no
// OData-MaxVersion, or one of 4.01 or above (or one that is not a version, which is ignored). A JSON batch,
// which exists only in 4.01, is refused to a client that says it reads no more than 4.0.
func readsVersion401(h http.Header) bool {
	v := h.Get(hdrMaxVersion)
	if v == "" {
		return true
	}
	major, minor, ok := parseODataVersion(v)
	return !ok || major > 4 || major == 4 && minor >= 1
}

// declaresVersion401 reports whether the client of h's request says it reads OData 4.01: an OData-MaxVersion of
// 4.01 or above (unlike readsVersion401, a missing one does not count).
func declaresVersion401(h http.Header) bool {
	major, minor, ok := parseODataVersion(h.Get(hdrMaxVersion))
	return ok && (major > 4 || major == 4 && minor >= 1)
}

// parseODataVersion reads a version header value "major.minor" (or "major").
func parseODataVersion(v string) (major, minor int, ok bool) {
	m, n, hasMinor := strings.Cut(strings.TrimSpace(v), ".")
	major, err := strconv.Atoi(m)
	if err != nil || major < 0 {
		return 0, 0, false
	}
	if hasMinor {
		if minor, err = strconv.Atoi(n); err != nil || minor < 0 {
			return 0, 0, false
		}
	}
	return major, minor, true
}

// xmlVersion401 returns the CSDL XML document xml40 (written as 4.0) as the 4.01 document: the same schema,
// whose every element is valid in both versions, under edmx:Edmx Version="4.01".
func xmlVersion401(xml40 []byte) []byte {
	return bytes.Replace(xml40, []byte(`<edmx:Edmx Version="4.0"`), []byte(`<edmx:Edmx Version="4.01"`), 1)
}

// jsonVersion40 returns a copy of the CSDL JSON document js401 (written as 4.01) as the 4.0 document: the same
// schema under "$Version": "4.0", so that CSDL JSON and CSDL XML say the same version for the same answer
// (CSDL JSON 4.01, section 3.1, allows both values).
func jsonVersion40(js401 []byte) []byte {
	return bytes.Replace(js401, []byte(`"$Version": "4.01"`), []byte(`"$Version": "4.0"`), 1)
}
