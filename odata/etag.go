package odata

// ETags are FNV-1a 64 hashes over the JSON of the ETag properties' values, each followed by a zero byte.
const (
	fnvOffset uint64 = 14695981039346656037
	fnvPrime  uint64 = 1099511628211
)

// zero separates the values hashed into an ETag.
var zero = []byte{0}

func fnvAdd(h uint64, b []byte) uint64 {
	for _, c := range b {
		h ^= uint64(c)
		h *= fnvPrime
	}
	return h
}

// appendETag appends the weak ETag of a hash: W/"0123456789abcdef".
func appendETag(b []byte, sum uint64) []byte {
	b = append(b, 'W', '/', '"')
	for i := 60; i >= 0; i -= 4 {
		b = append(b, hexDigits[(sum>>uint(i))&0xf])
	}
	return append(b, '"')
}

// appendETagJSON appends the ETag as a JSON string: "W/\"0123456789abcdef\"".
func appendETagJSON(b []byte, sum uint64) []byte {
	b = append(b, '"', 'W', '/', '\\', '"')
	for i := 60; i >= 0; i -= 4 {
		b = append(b, hexDigits[(sum>>uint(i))&0xf])
	}
	return append(b, '\\', '"', '"')
}

// formatETag returns the weak ETag of a hash as a header value.
func formatETag(sum uint64) string { return string(appendETag(make([]byte, 0, 21), sum)) }
