package entities

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/storekit/store/odata"
)

// pictureTypes are the media types a picture may have.
var pictureTypes = map[string]bool{"image/jpeg": true, "image/png": true, "image/gif": true, "image/webp": true}

// preparePicture lower-cases MimeType and computes Size from the bytes. An update without PictureBinary keeps the
// stored bytes: they are read into e (the property is returned only when selected, so a client that sends back
// what it read does not have them), which lets the rules check MimeType against them.
func preparePicture(ctx context.Context, q Querier, e, old map[string]any, opts Options) error {
	d := q.Dialect()
	if s, ok := e["MimeType"].(string); ok {
		e["MimeType"] = strings.ToLower(strings.TrimSpace(s))
	}
	if b, ok := e["PictureBinary"].([]byte); old != nil && (e["PictureBinary"] == nil || ok && len(b) == 0) {
		if stored, ok := old["PictureBinary"].([]byte); ok && len(stored) > 0 {
			e["PictureBinary"] = stored
		} else {
			err := q.QueryRowContext(ctx, pictureBinary.For(d), idOf(old)).Scan(&stored)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("entities: picture bytes: %w", err)
			}
			if len(stored) > 0 {
				e["PictureBinary"] = stored
			}
		}
	}
	b, _ := e["PictureBinary"].([]byte)
	e["Size"] = int64(len(b))
	return nil
}

// validatePicture checks a picture: MimeType required and one of image/jpeg, image/png, image/gif and image/webp;
// PictureBinary required, at most 10 MiB, and an image of that type.
func validatePicture(ctx context.Context, q Querier, e, old map[string]any, opts Options) ([]odata.ErrorDetail, error) {
	r := &rules{e: e}
	mime, mimeOK := r.required("MimeType", "MimeType is required")
	if mimeOK && !pictureTypes[mime] {
		r.fail(odata.CodeInvalidValue, "MimeType", "MimeType must be image/jpeg, image/png, image/gif or image/webp")
		mimeOK = false
	}
	b, ok := r.bytes("PictureBinary")
	switch {
	case !ok && e["PictureBinary"] != nil: // wrong type, reported
	case len(b) == 0:
		r.fail(odata.CodeRequired, "PictureBinary", "PictureBinary is required")
	case len(b) > maxPictureBytes:
		r.fail(odata.CodeInvalidValue, "PictureBinary", "PictureBinary must not be larger than 10 MiB (%d bytes)", maxPictureBytes)
	default:
		sniffed := http.DetectContentType(b)
		switch {
		case !pictureTypes[sniffed]:
			r.fail(odata.CodeInvalidValue, "PictureBinary", "PictureBinary is not a JPEG, PNG, GIF or WebP image")
		case mimeOK && sniffed != mime:
			r.fail(odata.CodeInvalidValue, "MimeType", "MimeType %s does not match the picture, which is %s", mime, sniffed)
		}
	}
	return r.details, nil
}
