package storefront

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/storekit/store/odata"
)

// form holds the fields of a request's form data and query string, by lower-cased name: field names match
// case-insensitively, as form-binding clients of shop APIs expect.
type form map[string][]string

// maxFormMemory bounds the multipart form held in memory; the server's body limit (1 MiB) is lower anyway.
const maxFormMemory = 1 << 20

// readForm reads the form data of r (multipart/form-data or application/x-www-form-urlencoded) together with the
// query string. A request without a body and without a Content-Type is an empty form; any other media type is a
// 415. An error of reading the body (the server's 413 past its limit) is returned as is.
func readForm(r *http.Request) (form, error) {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		empty, err := bodyEmpty(r)
		if err != nil {
			return nil, err
		}
		if !empty {
			return nil, errUnsupportedMediaType("")
		}
		return newForm(r.URL.Query()), nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return nil, errUnsupportedMediaType(ct)
	}
	switch mt {
	case "application/x-www-form-urlencoded":
		err = r.ParseForm()
	case "multipart/form-data":
		err = r.ParseMultipartForm(maxFormMemory)
		if r.MultipartForm != nil {
			_ = r.MultipartForm.RemoveAll()
		}
	default:
		return nil, errUnsupportedMediaType(mt)
	}
	if err != nil {
		var e *odata.Error
		if errors.As(err, &e) {
			return nil, err
		}
		return nil, &odata.Error{Code: odata.CodeBadRequest,
			Message: "The form data is not valid.", Err: err}
	}
	if err := checkText(r.Form); err != nil {
		return nil, err
	}
	return newForm(r.Form), nil
}

// checkURLText refuses a request whose path or query string holds text that no database column can: see
// checkText.
func checkURLText(r *http.Request) error {
	if !validText(r.URL.Path) {
		return errNotText("path")
	}
	return checkText(r.URL.Query())
}

// checkText refuses, with a 400 naming the field, a field name or value that is not UTF-8 text or that holds the
// NUL character: PostgreSQL's text cannot hold them, so every database refuses them alike rather than SQLite
// storing what PostgreSQL would fail on.
func checkText(values url.Values) error {
	for k, vs := range values {
		if !validText(k) {
			return errNotText("")
		}
		for _, v := range vs {
			if !validText(v) {
				return errNotText(k)
			}
		}
	}
	return nil
}

func validText(s string) bool { return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0 }

func errNotText(target string) error {
	return &odata.Error{Code: odata.CodeInvalidValue, Target: target,
		Message: "The request holds bytes that are not UTF-8 text, or the NUL character."}
}

// readQueryForm reads the parameters of an endpoint that takes them in the query string: the query, plus the
// form data of the body when the request has some (any other body is ignored).
func readQueryForm(r *http.Request) (form, error) {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt == "application/x-www-form-urlencoded" || mt == "multipart/form-data" {
		return readForm(r)
	}
	return newForm(r.URL.Query()), nil
}

// bodyEmpty reports whether r has no body bytes.
func bodyEmpty(r *http.Request) (bool, error) {
	if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
		return true, nil
	}
	var b [1]byte
	n, err := io.ReadFull(r.Body, b[:])
	if n > 0 {
		return false, nil
	}
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return true, nil
	}
	return false, err
}

func errUnsupportedMediaType(mt string) error {
	msg := "The request body must be form data (multipart/form-data or application/x-www-form-urlencoded)"
	if mt != "" {
		msg += ", not " + mt
	}
	return &odata.Error{Code: odata.CodeUnsupportedMediaType, Message: msg + "."}
}

func newForm(values map[string][]string) form {
	f := make(form, len(values))
	for k, v := range values {
		k = strings.ToLower(k)
		f[k] = append(f[k], v...)
	}
	return f
}

// get returns the first value of the field name ("" when absent).
func (f form) get(name string) string {
	if v := f[strings.ToLower(name)]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// has reports whether the field is present with a non-blank value.
func (f form) has(name string) bool { return strings.TrimSpace(f.get(name)) != "" }

// boolean reads a boolean field: true/false (any case), 1/0, on/off; absent or empty is def. A checkbox posted
// with its hidden companion ("true,false" or two values) counts by its first value.
func (f form) boolean(name string, def bool) (bool, error) {
	v := strings.TrimSpace(f.get(name))
	v, _, _ = strings.Cut(v, ",")
	switch strings.ToLower(v) {
	case "":
		return def, nil
	case "on":
		return true, nil
	case "off":
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, odata.BadRequest(odata.CodeInvalidValue, name, fmt.Sprintf("%s must be true or false.", name))
	}
	return b, nil
}
