package odata

import (
	"fmt"
	"net/http"
)

// methodNotAllowed is the 405 answer to a request whose method (as sent; HEAD read as GET in method) the target
// does not offer, with the Allow header. When the method is a write the configuration of the set or singleton
// leaves out, the message names the setting that offers it: a set not listed in Config.Sets has Config.Writes,
// none by default, which a client cannot tell from an Allow header alone and a developer should not have to
// guess.
func (s *Service) methodNotAllowed(t *target, sent, method, allow string) *Error {
	msg := "The method " + sent + " is not allowed on this resource; allowed: " + allow + "."
	if hint := s.writesHint(t, method); hint != "" {
		msg += " " + hint
	}
	return &Error{Code: CodeMethodNotAllowed, Message: msg, Header: http.Header{"Allow": {allow}}}
}

// writesHint returns the sentence that names the Writes bit which would offer method on t, "" when no bit would
// (a POST to an entity, a write through a navigation, a fixed collection) or the bit is there.
func (s *Service) writesHint(t *target, method string) string {
	if t.ref {
		return ""
	}
	need := neededWrite(t, method)
	if need == 0 {
		return ""
	}
	if sg := writtenSingleton(t); sg != nil {
		if t.kind == tEntity && need&(WritePut|WritePatch) != 0 && s.singletons[sg].Writes&need == 0 {
			return fmt.Sprintf("The singleton %s does not offer %s: odata.Config.Singletons[%q].Writes has no %s "+
				"(a singleton not listed there is read-only).", sg.Name, method, sg.Name, writeName(need))
		}
		return ""
	}
	if !t.direct || t.set == nil {
		return ""
	}
	config := s.sets[t.set]
	if config == nil || config.Writes&need != 0 || t.kind == tProperty && config.fixed(t.props[0]) {
		return ""
	}
	return fmt.Sprintf("The entity set %s does not offer %s: odata.Config.Sets[%q] has no SetOptions.Writes with %s "+
		"(a set not listed there has Config.Writes, none by default: read-only).", t.set.Name, method, t.set.Name, writeName(need))
}

// neededWrite returns the Writes bit that offers method on a target of t's kind, 0 when none does.
func neededWrite(t *target, method string) Writes {
	switch t.kind {
	case tCollection:
		if method == http.MethodPost {
			return WritePost
		}
	case tEntity:
		switch method {
		case http.MethodPut:
			return WritePut
		case http.MethodPatch:
			return WritePatch
		case http.MethodDelete:
			return WriteDelete
		}
	case tMediaValue:
		if method == http.MethodPut {
			return WritePut
		}
	case tProperty:
		if len(t.props) == 1 && t.props[0].Collection && method != http.MethodGet {
			return WritePatch // a collection property is written as a part of its entity
		}
	}
	return 0
}

// writeName is the Go name of the single write method w.
func writeName(w Writes) string {
	switch w {
	case WritePost:
		return "WritePost"
	case WritePut:
		return "WritePut"
	case WritePatch:
		return "WritePatch"
	case WriteDelete:
		return "WriteDelete"
	}
	return fmt.Sprintf("Writes(%#x)", uint8(w))
}
