package entities

import (
	"bytes"
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/sqldb"
)

// Image headers that http.DetectContentType recognizes.
var (
	jpegBytes = append([]byte("\xFF\xD8\xFF\xE0\x00\x10JFIF\x00"), make([]byte, 32)...)
	gifBytes  = append([]byte("GIF89a\x01\x00\x01\x00"), make([]byte, 32)...)
	webpBytes = append([]byte("RIFF\x24\x00\x00\x00WEBPVP8 "), make([]byte, 32)...)
)

func TestValidatePicture(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		pic := pngBytes(t)
		base := map[string]any{"MimeType": "image/png", "PictureBinary": pic, "Size": int64(len(pic))}
		tooLarge := append(bytes.Clone(pic), make([]byte, maxPictureBytes)...)
		runRules(t, f, "validatePicture", validatePicture, base, []ruleTest{
			{name: "OKPNG"},
			{name: "OKJPEG", changes: map[string]any{"MimeType": "image/jpeg", "PictureBinary": jpegBytes}},
			{name: "OKGIF", changes: map[string]any{"MimeType": "image/gif", "PictureBinary": gifBytes}},
			{name: "OKWebP", changes: map[string]any{"MimeType": "image/webp", "PictureBinary": webpBytes}},
			{name: "OKLargest", changes: map[string]any{"PictureBinary": tooLarge[:maxPictureBytes]}},
			{name: "ErrMimeTypeMissing", changes: map[string]any{"MimeType": nil},
				want: []string{"Required MimeType: MimeType is required"}},
			{name: "ErrMimeTypeNotAllowed", changes: map[string]any{"MimeType": "image/bmp"},
				want: []string{"InvalidValue MimeType: MimeType must be image/jpeg, image/png, image/gif or image/webp"}},
			{name: "ErrMimeTypeMismatch", changes: map[string]any{"MimeType": "image/jpeg"},
				want: []string{"InvalidValue MimeType: MimeType image/jpeg does not match the picture, which is image/png"}},
			{name: "ErrBinaryMissing", changes: map[string]any{"PictureBinary": nil},
				want: []string{"Required PictureBinary: PictureBinary is required"}},
			{name: "ErrBinaryEmpty", changes: map[string]any{"PictureBinary": []byte{}},
				want: []string{"Required PictureBinary: PictureBinary is required"}},
			{name: "ErrBinaryNotAnImage", changes: map[string]any{"PictureBinary": []byte("hello, world")},
				want: []string{"InvalidValue PictureBinary: PictureBinary is not a JPEG, PNG, GIF or WebP image"}},
			{name: "ErrBinaryTooLarge", changes: map[string]any{"PictureBinary": tooLarge},
				want: []string{"InvalidValue PictureBinary: PictureBinary must not be larger than 10 MiB (10485760 bytes)"}},
			{name: "ErrBoth", changes: map[string]any{"MimeType": "text/plain", "PictureBinary": nil}, want: []string{
				"InvalidValue MimeType: MimeType must be image/jpeg, image/png, image/gif or image/webp",
				"Required PictureBinary: PictureBinary is required",
			}},
		})
	})
}

func TestPreparePicture(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		stored := pngBytes(t)
		tests := []struct {
			name   string
			e, old map[string]any
			want   map[string]any
		}{
			{"OKCreate", map[string]any{"MimeType": " Image/GIF", "PictureBinary": gifBytes, "Size": int64(1)}, nil,
				map[string]any{"MimeType": "image/gif", "PictureBinary": gifBytes, "Size": int64(len(gifBytes))}},
			{"OKCreateWithoutBytes", map[string]any{"MimeType": "image/png"}, nil,
				map[string]any{"MimeType": "image/png", "Size": int64(0)}},
			{"OKUpdateNewBytes", map[string]any{"MimeType": "image/jpeg", "PictureBinary": jpegBytes},
				map[string]any{"Id": f.picture}, map[string]any{"MimeType": "image/jpeg", "PictureBinary": jpegBytes,
					"Size": int64(len(jpegBytes))}},
			{"OKUpdateKeepsStoredBytes", map[string]any{"MimeType": "image/png", "PictureBinary": nil},
				map[string]any{"Id": f.picture}, map[string]any{"MimeType": "image/png", "PictureBinary": stored,
					"Size": int64(len(stored))}},
			{"OKUpdateKeepsOldBytes", map[string]any{"MimeType": "image/gif"},
				map[string]any{"Id": "elsewhere", "PictureBinary": gifBytes}, map[string]any{"MimeType": "image/gif",
					"PictureBinary": gifBytes, "Size": int64(len(gifBytes))}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				f.inTx(t, func(ctx context.Context, tx *sqldb.Tx) {
					e := with(tt.e, nil)
					if err := preparePicture(ctx, tx, e, tt.old, testOpts); err != nil {
						t.Fatalf("preparePicture(%v) = %v", tt.e, err)
					}
					if diff := cmp.Diff(tt.want, e); diff != "" {
						t.Errorf("preparePicture() (-want +got):\n%s", diff)
					}
				})
			})
		}
	})
}
