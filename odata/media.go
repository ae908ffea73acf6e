package odata

import (
	"mime"
	"net/http"
	"strings"

	"github.com/storekit/store/odata/edm"
)

// Media entities (an entity type with HasStream: its bytes and media type are properties, edm.EntityType.Stream)
// are written as their bytes: PUT Set(key)/$value replaces them (204, with the new ETag), and POST to the set
// with a body that is not JSON creates an entity of those bytes, its other properties taking their defaults (201
// with the entity). The media type is the request's Content-Type. Both go through the ordinary update and create
// paths (hooks, If-Match, row filters), the bytes and media type as the values sent.

// readMediaBody reads the bytes and the media type of a media write, at most limit bytes.
func readMediaBody(r *http.Request, limit int64) ([]byte, string, error) {
	mediaType, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mediaType == "" {
		return nil, "", &Error{Code: CodeUnsupportedMediaType, Message: "Send the media's type in Content-Type."}
	}
	data, err := readBody(r, limit, "media", CodeBadRequest)
	if err != nil {
		return nil, "", err
	}
	return data, mediaType, nil
}

// mediaBody is the body of a write of a media entity's bytes: its stream and content type properties sent.
func mediaBody(et *edm.EntityType, data []byte, mediaType string) *body {
	stream, contentType := et.Stream()
	b := &body{vals: Entity{stream.Name: data}, sent: map[string]bool{stream.Name: true}, bad: map[string]bool{}}
	if contentType != nil {
		b.vals[contentType.Name], b.sent[contentType.Name] = mediaType, true
	}
	return b
}

// isMediaPost reports whether a POST to the collection of t sends a media entity's bytes: the type has a
// stream and the body is not JSON.
func isMediaPost(t *target, r *http.Request) bool {
	if stream, _ := t.typ.Stream(); stream == nil {
		return false
	}
	mediaType, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && mediaType != "application/json" && !strings.HasSuffix(mediaType, "+json")
}

// postMedia answers a POST of a media entity's bytes: a new entity.
func (s *Service) postMedia(req *request) error {
	t := req.target
	ctx := req.r.Context()
	stream, contentType := t.typ.Stream()
	sent := []member{{name: stream.Name}}
	if contentType != nil {
		sent = append(sent, member{name: contentType.Name})
	}
	if err := s.checkWritable(ctx, t.typ, sent); err != nil {
		return err
	}
	data, mediaType, err := readMediaBody(req.r, s.limitsOf(t).mediaBytes)
	if err != nil {
		return err
	}
	var stored Entity
	err = s.inTx(ctx, func(tx *Tx) error {
		var err error
		stored, err = s.create(ctx, tx, req, t.typ, t.set, s.sets[t.set], mediaBody(t.typ, data, mediaType))
		return err
	})
	if err != nil {
		return s.dbError(err, false)
	}
	return s.writeEntity(req, http.StatusCreated, t.set, t.typ, stored)
}

// putMedia answers PUT Set(key)/$value: the media entity's new bytes.
func (s *Service) putMedia(req *request) error {
	t := req.target
	data, mediaType, err := readMediaBody(req.r, s.limitsOf(t).mediaBytes)
	if err != nil {
		return err
	}
	where, err := s.targetWhere(t)
	if err != nil {
		return s.dbError(err, false)
	}
	stored, err := s.replaceIn(req.r.Context(), req, OpPatch, where, mediaBody(t.typ, data, mediaType), nil)
	if err != nil {
		return err
	}
	return s.noContentWithETag(req, t.typ, stored)
}

// noContentWithETag answers a write of part of an entity (its bytes, a collection property) 204 with the ETag
// of the stored entity in the request's view: over the properties it may read, as its reads and If-Match have it.
func (s *Service) noContentWithETag(req *request, et *edm.EntityType, stored Entity) error {
	l, err := s.answerLayout(req.r.Context(), et)
	if err != nil {
		return err
	}
	writer := entityWriter{layout: l}
	sum, err := writer.etag(stored)
	if err != nil {
		return err
	}
	h := req.w.Header()
	h.Set("ETag", formatETag(sum))
	h["Odata-Version"] = req.version.header()
	req.w.WriteHeader(http.StatusNoContent)
	return nil
}

// mediaWritable reports whether the media entity of t takes PUT of its bytes.
func (s *Service) mediaWritable(t *target) bool {
	return t.direct && t.set != nil && s.sets[t.set].Writes&(WritePut|WritePatch) != 0
}
