package main

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strings"
)

// Layout of the picture, in pixels.
const (
	svgWidth   = 980
	svgLabelW  = 170 // the scenario names
	svgPlotW   = 600 // the bars
	svgBarH    = 11
	svgRowH    = 32
	svgTop     = 96
	svgMaxAxis = 2.0 // ratios above are drawn to the edge, their value written
)

// Colours of the two ratios, of a value that misses its target, and of text.
const (
	colorEngine = "#3b6fb6"
	colorStore  = "#e08a2c"
	colorMiss   = "#c62828"
	colorText   = "#222"
	colorFaint  = "#888"
)

// drawRatios draws the ratio table as an SVG picture: a row per scenario with a bar of engine/baseline and one
// of store/engine req/s, the lines of their targets (0.9, dotted 0.85 for the searches, and 0.7) and of 1, the value at the end of each bar
// and the store's req/s at the right, red where they miss their target; below, the checks the rows do not show.
func drawRatios(r *report) []byte {
	var b bytes.Buffer
	notes := otherChecks(r)
	bottom := svgTop + len(r.Scenarios)*svgRowH
	height := bottom + 44 + len(notes)*18 + 12
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n",
		svgWidth, height, svgWidth, height)
	b.WriteString(`<rect width="100%" height="100%" fill="white"/>` + "\n")
	text(&b, 16, 24, 16, "bold", colorText, "start", fmt.Sprintf("loadbench: requests/s ratios on %s, %d products", r.Database, r.Products))
	text(&b, 16, 44, 12, "normal", "#555", "start", fmt.Sprintf("%d clients (%d for writes), %s per measurement after %s of warm-up, median of %d rounds",
		r.Clients, r.WriteClients, r.Duration, r.Warmup, r.Rounds))
	legend(&b, 16, 66)
	right := float64(svgLabelW + svgPlotW + 30)
	text(&b, right+150, svgTop-12, 12, "bold", colorText, "end", fmt.Sprintf("store req/s (≥ %d)", minStoreRPS))

	x := func(v float64) float64 { return svgLabelW + min(v, svgMaxAxis)/svgMaxAxis*svgPlotW }
	for _, g := range []struct {
		v            float64
		color, dash  string
		label        string
		strokeOpaque bool
	}{
		{minStoreOverEngine, colorStore, "6 4", fmt.Sprint(minStoreOverEngine), true},
		{minEngineOverBaseline, colorEngine, "6 4", fmt.Sprint(minEngineOverBaseline), true},
		{minSearchOverBaseline, colorEngine, "2 3", "", true},
		{1, "#999", "", "1", true}, {0.5, "#e4e4e4", "", "0.5", false}, {1.5, "#e4e4e4", "", "1.5", false},
		{svgMaxAxis, "#e4e4e4", "", fmt.Sprintf("≥ %g", svgMaxAxis), false},
	} {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s" stroke-width="1.5" stroke-dasharray="%s"/>`+"\n",
			x(g.v), svgTop-6, x(g.v), bottom, g.color, g.dash)
		color := g.color
		if !g.strokeOpaque {
			color = colorFaint
		}
		text(&b, x(g.v), float64(bottom+14), 11, "normal", color, "middle", g.label)
	}
	for i, s := range r.Scenarios {
		y := float64(svgTop + i*svgRowH)
		text(&b, svgLabelW-8, y+svgBarH+5, 12, "normal", colorText, "end", s.ID)
		rt := ratio{EngineBaseline: rpsRatio(s, targetEngine, targetBaseline), StoreEngine: rpsRatio(s, targetStore, targetEngine)}
		bar(&b, x, y, rt.EngineBaseline, engineFloor(s.ID), colorEngine, missingNote(s, targetBaseline))
		bar(&b, x, y+svgBarH+2, rt.StoreEngine, minStoreOverEngine, colorStore, missingNote(s, targetEngine))
		if st, ok := s.Results[targetStore]; ok {
			fill, weight := colorText, "normal"
			if st.RPS < minStoreRPS {
				fill, weight = colorMiss, "bold"
			}
			text(&b, right+150, y+svgBarH+5, 12, weight, fill, "end", fmt.Sprintf("%.0f", st.RPS))
		}
	}
	for i, n := range notes {
		color := colorText
		if !n.Pass {
			color = colorMiss
		}
		text(&b, 16, float64(bottom+44+i*18), 12, "normal", color, "start", checkText(n))
	}
	b.WriteString("</svg>\n")
	return b.Bytes()
}

// missingNote says why a ratio of s has no bar when target was not measured.
func missingNote(s *scenarioReport, target string) string {
	switch {
	case s.Kind == kindShop && target == targetBaseline:
		return "the store server's endpoints only"
	case s.Kind == kindShop:
		return ""
	case target == targetBaseline && s.Kind != kindRead:
		return "no baseline (reads only)"
	}
	return "not measured"
}

// otherChecks are the checks the rows do not show: those of latencies, of writes and of errors.
func otherChecks(r *report) []check {
	var out []check
	for _, c := range r.Checks {
		if !strings.HasPrefix(c.Name, "engine/baseline") && !strings.HasPrefix(c.Name, "store/engine") &&
			!strings.HasPrefix(c.Name, "store req/s") {
			out = append(out, c)
		}
	}
	return out
}

func checkText(c check) string {
	mark := "✓"
	if !c.Pass {
		mark = "✗"
	}
	return fmt.Sprintf("%s %s: %.2f (target %s %g)", mark, c.Name, c.Value, c.Op, c.Limit)
}

// bar draws one ratio as a bar from 0, its value after it; note stands in for a missing ratio.
func bar(b *bytes.Buffer, x func(float64) float64, y float64, v *float64, limit float64, color, note string) {
	if v == nil {
		if note != "" {
			text(b, x(0)+4, y+svgBarH-1, 10, "normal", colorFaint, "start", note)
		}
		return
	}
	fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%d" fill="%s"/>`+"\n", x(0), y, x(*v)-x(0), svgBarH, color)
	label, weight, fill := fmt.Sprintf("%.2f", *v), "normal", colorText
	if *v < limit {
		label, weight, fill = label+" ✗", "bold", colorMiss
	}
	text(b, x(*v)+4, y+svgBarH-1, 11, weight, fill, "start", label)
}

func legend(b *bytes.Buffer, x, y float64) {
	fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="12" height="10" fill="%s"/>`+"\n", x, y-9, colorEngine)
	text(b, x+16, y, 12, "normal", colorText, "start", fmt.Sprintf("engine / hand-written baseline (target ≥ %g, search ≥ %g)",
		minEngineOverBaseline, minSearchOverBaseline))
	fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="12" height="10" fill="%s"/>`+"\n", x+400, y-9, colorStore)
	text(b, x+416, y, 12, "normal", colorText, "start", fmt.Sprintf("store server / engine (target ≥ %g)", minStoreOverEngine))
	text(b, x+690, y, 12, "normal", colorMiss, "start", "red ✗: misses its target")
}

// text writes a text element, its content escaped.
func text(b *bytes.Buffer, x, y float64, size int, weight, fill, anchor, s string) {
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f" font-size="%d" font-weight="%s" fill="%s" text-anchor="%s">`, x, y, size, weight, fill, anchor)
	_ = xml.EscapeText(b, []byte(s))
	b.WriteString("</text>\n")
}
