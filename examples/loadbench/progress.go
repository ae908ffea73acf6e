package main

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// progress draws a progress bar of one task on a terminal line, redrawn in place (at most ten times a second)
// with the count, the rate and the time left, and finished with a newline.
type progress struct {
	w          io.Writer
	label      string
	total, n   int
	start, at  time.Time
	lastLength int
}

func newProgress(w io.Writer, label string, total int) *progress {
	p := &progress{w: w, label: label, total: total, start: time.Now()}
	p.draw()
	return p
}

// add counts n more items done.
func (p *progress) add(n int) {
	p.n += n
	if time.Since(p.at) >= 100*time.Millisecond || p.n >= p.total {
		p.draw()
	}
}

// finish draws the final state and ends the line.
func (p *progress) finish() {
	p.draw()
	fmt.Fprintln(p.w)
}

const barWidth = 30

func (p *progress) draw() {
	p.at = time.Now()
	frac := 1.0
	if p.total > 0 {
		frac = float64(p.n) / float64(p.total)
	}
	filled := int(frac * barWidth)
	elapsed := time.Since(p.start)
	rate := float64(p.n) / max(elapsed.Seconds(), 1e-9)
	eta := "-"
	if p.n > 0 && p.n < p.total {
		eta = time.Duration(float64(p.total-p.n) / rate * float64(time.Second)).Round(time.Second).String()
	}
	line := fmt.Sprintf("\r%-16s [%s%s] %3.0f%% %d/%d  %.0f rows/s  %s elapsed, %s left", p.label,
		strings.Repeat("=", filled), strings.Repeat(" ", barWidth-filled), frac*100, p.n, p.total, rate,
		elapsed.Round(100*time.Millisecond), eta)
	pad := max(p.lastLength-len(line), 0)
	p.lastLength = len(line)
	fmt.Fprint(p.w, line+strings.Repeat(" ", pad))
}
