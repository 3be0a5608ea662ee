// Package chart draws the run's plot (-plot): panels of time series, one
// above the other, as PNG or SVG, with nothing but the standard library and
// the bitmap font the HUD already links. It replaced gonum/plot, whose
// LaTeX, PDF and font packages every app linked for one chart.
//
// The layout is computed once (Layout) and drawn through a canvas, so the
// PNG and the SVG of one chart put every mark at the same coordinates.
package chart

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"strings"
)

// Style is how a series is drawn.
type Style uint8

const (
	Line Style = iota // points joined in order
	Dots              // one dot a point
)

// Series is one set of points of a panel.
type Series struct {
	Name   string
	X, Y   []float64 // same length; NaN or ±Inf points are skipped
	Style  Style
	Colour color.RGBA
}

// Guide is a horizontal dashed line at Y, named in the panel's legend.
type Guide struct {
	Name string
	Y    float64
}

// Panel is one chart: its series on shared axes.
type Panel struct {
	Title          string
	XLabel, YLabel string
	Series         []Series
	Guides         []Guide
	// YFromZero keeps 0 on the Y axis (a frame interval's scale).
	YFromZero bool
	// Empty, if set, is written across a panel that has no point to show,
	// saying why (an empty panel with made-up axes would look like data).
	Empty string
}

// Format is an output format.
type Format uint8

const (
	PNG Format = iota
	SVG
)

// ParseFormat maps a file extension (".png", ".svg", any case) to a Format.
func ParseFormat(ext string) (Format, error) {
	switch strings.ToLower(strings.TrimPrefix(ext, ".")) {
	case "png":
		return PNG, nil
	case "svg":
		return SVG, nil
	}
	return 0, fmt.Errorf("chart: %q: want .png or .svg", ext)
}

// Write draws panels stacked top to bottom on a width×height chart (pixels
// for PNG, user units for SVG) and writes it to w.
func Write(w io.Writer, f Format, width, height int, panels []Panel) error {
	if width < 200 || height < 100*len(panels) {
		return fmt.Errorf("chart: %d×%d is too small for %d panels", width, height, len(panels))
	}
	switch f {
	case PNG:
		c := newRaster(width, height)
		draw(c, width, height, panels)
		return c.encode(w)
	case SVG:
		c := newVector(width, height)
		draw(c, width, height, panels)
		return c.encode(w)
	}
	return fmt.Errorf("chart: unknown format %d", f)
}

// canvas is what the layout draws on: pixel coordinates, y down.
type canvas interface {
	line(x0, y0, x1, y1 float64, c color.RGBA, dashed bool)
	polyline(xs, ys []float64, c color.RGBA)
	dot(x, y float64, c color.RGBA)
	// text draws s with its baseline at y; anchor is -1 (left of x), 0
	// (centred) or 1 (right of x). vertical turns it up the left edge.
	text(x, y float64, s string, anchor int, vertical bool)
}

var (
	ink   = color.RGBA{0x20, 0x20, 0x20, 0xff}
	grid  = color.RGBA{0xdd, 0xdd, 0xdd, 0xff}
	guide = color.RGBA{0xc0, 0x30, 0x30, 0xff}
)

// Font metrics of basicfont.Face7x13, used by both canvases.
const (
	charW  = 7
	lineH  = 13
	ascent = 11
)

// Rect is a plot area in canvas coordinates.
type Rect struct{ X0, Y0, X1, Y1 float64 }

// Layout is where a panel's data lands: its plot area and its axes'
// ranges.
type Layout struct {
	Area       Rect
	XMin, XMax float64
	YMin, YMax float64
}

// Map returns the canvas point of data point (x, y).
func (l Layout) Map(x, y float64) (float64, float64) {
	px := l.Area.X0 + (x-l.XMin)/(l.XMax-l.XMin)*(l.Area.X1-l.Area.X0)
	py := l.Area.Y1 - (y-l.YMin)/(l.YMax-l.YMin)*(l.Area.Y1-l.Area.Y0)
	return px, py
}

// Layouts computes each panel's layout on a width×height chart. The
// panels share one X range, so that a time lines up down the chart.
func Layouts(width, height int, panels []Panel) []Layout {
	out := make([]Layout, len(panels))
	h := float64(height) / float64(len(panels))
	xmin, xmax := math.Inf(1), math.Inf(-1)
	for _, p := range panels {
		lo, hi, _, _ := bounds(p)
		xmin, xmax = math.Min(xmin, lo), math.Max(xmax, hi)
	}
	xmin, xmax = pad(xmin, xmax, false)
	for i, p := range panels {
		top := float64(i) * h
		area := Rect{X0: 8 + lineH + 8*charW, Y0: top + 2*lineH + 4, X1: float64(width) - 16, Y1: top + h - 2*lineH - 8}
		_, _, ymin, ymax := bounds(p)
		ymin, ymax = pad(ymin, ymax, p.YFromZero)
		out[i] = Layout{Area: area, XMin: xmin, XMax: xmax, YMin: ymin, YMax: ymax}
	}
	return out
}

// bounds is the range of a panel's finite points and guides; NaN where
// it has none.
func bounds(p Panel) (xmin, xmax, ymin, ymax float64) {
	xmin, xmax, ymin, ymax = math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, s := range p.Series {
		for j := range s.X {
			x, y := s.X[j], s.Y[j]
			if !finite(x) || !finite(y) {
				continue
			}
			xmin, xmax = math.Min(xmin, x), math.Max(xmax, x)
			ymin, ymax = math.Min(ymin, y), math.Max(ymax, y)
		}
	}
	for _, g := range p.Guides {
		if finite(g.Y) {
			ymin, ymax = math.Min(ymin, g.Y), math.Max(ymax, g.Y)
		}
	}
	return xmin, xmax, ymin, ymax
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// pad widens [lo, hi] to nice tick bounds; an empty or single-valued range
// becomes one around it (or 0..1).
func pad(lo, hi float64, fromZero bool) (float64, float64) {
	if !finite(lo) || !finite(hi) {
		return 0, 1
	}
	if fromZero {
		lo, hi = math.Min(lo, 0), math.Max(hi, 0)
	}
	if hi-lo < 1e-12*math.Max(1, math.Abs(hi)) {
		d := math.Max(math.Abs(hi)*0.1, 0.5)
		lo, hi = lo-d, hi+d
		if fromZero && lo < 0 && hi-d >= 0 {
			lo = 0
		}
	}
	step := tickStep(hi - lo)
	return math.Floor(lo/step) * step, math.Ceil(hi/step) * step
}

// tickStep is 1, 2 or 5 times a power of ten, giving 4 to 10 ticks over span.
func tickStep(span float64) float64 {
	raw := span / 6
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw {
			return m * mag
		}
	}
	return 10 * mag
}

// ticks are the tick values in [lo, hi].
func ticks(lo, hi float64) []float64 {
	step := tickStep(hi - lo)
	var out []float64
	for v := math.Ceil(lo/step-1e-9) * step; v <= hi+step*1e-9; v += step {
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		out = append(out, v)
	}
	return out
}

func label(v float64) string { return fmt.Sprintf("%.4g", v) }

func draw(c canvas, width, height int, panels []Panel) {
	for i, l := range Layouts(width, height, panels) {
		drawPanel(c, panels[i], l)
	}
}

func drawPanel(c canvas, p Panel, l Layout) {
	a := l.Area
	for _, t := range ticks(l.YMin, l.YMax) {
		_, y := l.Map(l.XMin, t)
		c.line(a.X0, y, a.X1, y, grid, false)
		c.text(a.X0-4, y+4, label(t), 1, false)
	}
	for _, t := range ticks(l.XMin, l.XMax) {
		x, _ := l.Map(t, l.YMin)
		c.line(x, a.Y0, x, a.Y1, grid, false)
		c.text(x, a.Y1+lineH+2, label(t), 0, false)
	}
	c.line(a.X0, a.Y1, a.X1, a.Y1, ink, false)
	c.line(a.X0, a.Y0, a.X0, a.Y1, ink, false)
	c.text((a.X0+a.X1)/2, a.Y0-lineH, p.Title, 0, false)
	c.text((a.X0+a.X1)/2, a.Y1+2*lineH+4, p.XLabel, 0, false)
	c.text(8+ascent, (a.Y0+a.Y1)/2, p.YLabel, 0, true)
	points := 0
	for _, s := range p.Series {
		points += drawSeries(c, s, l)
	}
	legendY := a.Y0 + lineH
	for _, g := range p.Guides {
		_, y := l.Map(l.XMin, g.Y)
		c.line(a.X0, y, a.X1, y, guide, true)
		c.text(a.X1-4, legendY, "--- "+g.Name, 1, false)
		legendY += lineH
	}
	if points == 0 && p.Empty != "" {
		c.text((a.X0+a.X1)/2, (a.Y0+a.Y1)/2, p.Empty, 0, false)
	}
}

// drawSeries draws s and returns how many points it drew.
func drawSeries(c canvas, s Series, l Layout) int {
	var xs, ys []float64
	n := 0
	flush := func() {
		if len(xs) > 1 {
			c.polyline(xs, ys, s.Colour)
		} else if len(xs) == 1 {
			c.dot(xs[0], ys[0], s.Colour)
		}
		xs, ys = xs[:0], ys[:0]
	}
	for j := range s.X {
		if !finite(s.X[j]) || !finite(s.Y[j]) {
			if s.Style == Line {
				flush() // a gap in the data is a gap in the line
			}
			continue
		}
		x, y := l.Map(s.X[j], s.Y[j])
		n++
		if s.Style == Dots {
			c.dot(x, y, s.Colour)
			continue
		}
		xs, ys = append(xs, x), append(ys, y)
	}
	flush()
	return n
}
