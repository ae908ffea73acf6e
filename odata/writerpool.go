package odata

import "sync"

// Row writers and their buffers are reused between requests: a read by key otherwise allocates the writer, its
// scratch slices and the growth of its JSON buffers on every request (a third of its allocations), and a page
// does so once per request and once per expansion.

// rowWriters holds the row writers of finished reads.
var rowWriters = sync.Pool{New: func() any { return new(rowWriter) }}

// maxPooledBuffer is the capacity above which a buffer is not kept for the next request, so that one large
// answer does not hold its memory for good.
const maxPooledBuffer = 64 << 10

// getRowWriter returns a writer of the rows of l, from the pool when it has one; putRowWriter gives it back.
func getRowWriter(l *layout) *rowWriter {
	w := rowWriters.Get().(*rowWriter)
	n := len(l.cols)
	if cap(w.values) < n {
		w.values = make([]any, n)
		w.pointers = make([]any, n)
		for i := range w.values {
			w.pointers[i] = &w.values[i]
		}
		w.offsets = make([]int, n+1)
	}
	w.layout = l
	w.values, w.pointers, w.offsets = w.values[:n], w.pointers[:n], w.offsets[:n+1]
	return w
}

// putRowWriter returns w to the pool once nothing uses it, its values or its buffers any more.
func putRowWriter(w *rowWriter) {
	clear(w.values) // the scanned values of the last row go to the collector
	if cap(w.buf) > maxPooledBuffer {
		w.buf = nil
	}
	if cap(w.out) > maxPooledBuffer {
		w.out = nil
	}
	if cap(w.items) > maxPooledBuffer {
		w.items = nil
	}
	*w = rowWriter{values: w.values, pointers: w.pointers, offsets: w.offsets, buf: w.buf[:0], items: w.items[:0],
		out: w.out[:0], ctx: w.ctx[:0]}
	rowWriters.Put(w)
}
