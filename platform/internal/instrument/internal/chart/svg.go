package chart

import (
	"bufio"
	"fmt"
	"html"
	"image/color"
	"io"
	"strings"
)

// vector writes SVG elements at the same coordinates the raster would draw.
type vector struct {
	w, h int
	b    strings.Builder
}

func newVector(w, h int) *vector { return &vector{w: w, h: h} }

func hex(c color.RGBA) string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }

func (v *vector) line(x0, y0, x1, y1 float64, c color.RGBA, dashed bool) {
	dash := ""
	if dashed {
		dash = ` stroke-dasharray="4 3"`
	}
	fmt.Fprintf(&v.b, `<line x1="%.2f" y1="%.2f" x2="%.2f" y2="%.2f" stroke="%s"%s/>`+"\n", x0, y0, x1, y1, hex(c), dash)
}

func (v *vector) polyline(xs, ys []float64, c color.RGBA) {
	fmt.Fprintf(&v.b, `<polyline fill="none" stroke="%s" points="`, hex(c))
	for i := range xs {
		if i > 0 {
			v.b.WriteByte(' ')
		}
		fmt.Fprintf(&v.b, "%.2f,%.2f", xs[i], ys[i])
	}
	v.b.WriteString("\"/>\n")
}

func (v *vector) dot(x, y float64, c color.RGBA) {
	fmt.Fprintf(&v.b, `<circle cx="%.2f" cy="%.2f" r="1.5" fill="%s"/>`+"\n", x, y, hex(c))
}

func (v *vector) text(x, y float64, s string, anchor int, vertical bool) {
	a := [...]string{"start", "middle", "end"}[anchor+1]
	rot := ""
	if vertical {
		rot = fmt.Sprintf(` transform="rotate(-90 %.2f %.2f)"`, x, y)
	}
	fmt.Fprintf(&v.b, `<text x="%.2f" y="%.2f" text-anchor="%s"%s>%s</text>`+"\n", x, y, a, rot, html.EscapeString(s))
}

func (v *vector) encode(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, `<?xml version="1.0" encoding="UTF-8"?>`+"\n"+
		`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="monospace" font-size="12">`+"\n"+
		`<rect width="100%%" height="100%%" fill="#ffffff"/>`+"\n", v.w, v.h, v.w, v.h)
	bw.WriteString(v.b.String())
	bw.WriteString("</svg>\n")
	return bw.Flush()
}
