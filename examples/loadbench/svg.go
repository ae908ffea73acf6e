package main

import (
	"bytes"
	"encoding/xml"
	"fmt"
)

// Layout of the picture, in pixels.
const (
	svgWidth   = 960
	svgLabelW  = 170 // the scenario names
	svgPlotW   = 640 // the bars
	svgBarH    = 11
	svgRowH    = 32
	svgTop     = 78
	svgMaxAxis = 2.0 // ratios above are drawn to the edge, their value written
)

// Colours of the two ratios, and of a value below its target.
const (
	colorEngine = "#3b6fb6"
	colorStore  = "#e08a2c"
	colorMiss   = "#c62828"
)

// drawRatios draws the ratio table as an SVG picture: per scenario a bar of engine/baseline and one of
// store/engine req/s, with the lines of their targets (0.85 and 0.7) and of 1, the value at the end of each bar
// (red when it misses its target), and below them the other checks.
func drawRatios(r *report) []byte {
	var b bytes.Buffer
	rows := len(r.Ratios)
	notes := otherChecks(r)
	height := svgTop + rows*svgRowH + 40 + len(notes)*18 + 20
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n",
		svgWidth, height, svgWidth, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	text(&b, 16, 24, 16, "bold", "#222", "start", fmt.Sprintf("loadbench: requests/s ratios on %s, %d products", r.Database, r.Products))
	text(&b, 16, 44, 12, "normal", "#555", "start", fmt.Sprintf("%d clients (%d for writes), %s per measurement, median of %d rounds",
		r.Clients, r.WriteClients, r.Duration, r.Rounds))
	legend(&b, 16, 62)

	x := func(v float64) float64 { return svgLabelW + min(v, svgMaxAxis)/svgMaxAxis*svgPlotW }
	bottom := svgTop + rows*svgRowH
	for _, g := range []struct {
		v     float64
		color string
		dash  string
		label string
	}{
		{minStoreOverEngine, colorStore, "6 4", "0.7"}, {minEngineOverBaseline, colorEngine, "6 4", "0.85"},
		{1, "#999", "", "1"}, {svgMaxAxis, "#ddd", "", fmt.Sprint(svgMaxAxis)},
	} {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s" stroke-width="1.5" stroke-dasharray="%s"/>`+"\n",
			x(g.v), svgTop-6, x(g.v), bottom, g.color, g.dash)
		text(&b, x(g.v), float64(bottom+14), 11, "normal", g.color, "middle", g.label)
	}
	for i, rt := range r.Ratios {
		y := svgTop + i*svgRowH
		text(&b, svgLabelW-8, float64(y)+svgBarH+5, 12, "normal", "#222", "end", rt.Scenario)
		bar(&b, x, float64(y), rt.EngineBaseline, minEngineOverBaseline, colorEngine)
		bar(&b, x, float64(y+svgBarH+2), rt.StoreEngine, minStoreOverEngine, colorStore)
	}
	for i, n := range notes {
		color := "#222"
		if !n.Pass {
			color = colorMiss
		}
		text(&b, 16, float64(bottom+40+i*18), 12, "normal", color, "start", checkText(n))
	}
	b.WriteString("</svg>\n")
	return b.Bytes()
}

// otherChecks are the checks the bars do not show.
func otherChecks(r *report) []check {
	var out []check
	for _, c := range r.Checks {
		if !bytes.HasPrefix([]byte(c.Name), []byte("engine/baseline")) && !bytes.HasPrefix([]byte(c.Name), []byte("store/engine")) {
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

// bar draws one ratio as a bar from 0, its value after it.
func bar(b *bytes.Buffer, x func(float64) float64, y float64, v *float64, limit float64, color string) {
	if v == nil {
		text(b, x(0)+4, y+svgBarH-1, 10, "normal", "#999", "start", "not measured")
		return
	}
	fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%d" fill="%s"/>`+"\n", x(0), y, x(*v)-x(0), svgBarH, color)
	label, weight, fill := fmt.Sprintf("%.2f", *v), "normal", "#222"
	if *v < limit {
		label, weight, fill = label+" ✗", "bold", colorMiss
	}
	text(b, x(*v)+4, y+svgBarH-1, 11, weight, fill, "start", label)
}

func legend(b *bytes.Buffer, x, y float64) {
	fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="12" height="10" fill="%s"/>`+"\n", x, y-9, colorEngine)
	text(b, x+16, y, 12, "normal", "#222", "start", "engine / hand-written baseline (target ≥ 0.85)")
	fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="12" height="10" fill="%s"/>`+"\n", x+330, y-9, colorStore)
	text(b, x+346, y, 12, "normal", "#222", "start", "store server / engine (target ≥ 0.7)")
}

// text writes a text element, its content escaped.
func text(b *bytes.Buffer, x, y float64, size int, weight, fill, anchor, s string) {
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f" font-size="%d" font-weight="%s" fill="%s" text-anchor="%s">`, x, y, size, weight, fill, anchor)
	_ = xml.EscapeText(b, []byte(s))
	b.WriteString("</text>\n")
}
