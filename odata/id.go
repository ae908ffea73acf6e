package odata

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"sync/atomic"
	"time"
)

var idCounter atomic.Uint32

// NewID returns a new entity key: 24 lower-case hex digits that sort in creation order. The first 6 bytes are
// milliseconds since the Unix epoch, then 2 bytes of a per-process counter and 4 random bytes, so keys made on
// different server nodes in the same millisecond do not collide.
func NewID() string {
	var b [12]byte
	millis := uint64(time.Now().UnixMilli())
	b[0] = byte(millis >> 40)
	b[1] = byte(millis >> 32)
	b[2] = byte(millis >> 24)
	b[3] = byte(millis >> 16)
	b[4] = byte(millis >> 8)
	b[5] = byte(millis)
	binary.BigEndian.PutUint16(b[6:8], uint16(idCounter.Add(1)))
	_, _ = rand.Read(b[8:])
	return hex.EncodeToString(b[:])
}
