package chart

import (
	"image"
	"image/color"
	"image/png"
	"io"
	"math"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// raster draws on an RGBA image, one pixel wide, with basicfont's 7×13
// glyphs.
type raster struct{ img *image.RGBA }

func newRaster(w, h int) *raster {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = 0xff
	}
	return &raster{img: img}
}

func (r *raster) encode(w io.Writer) error { return png.Encode(w, r.img) }

// line draws from (x0, y0) to (x1, y1) by stepping along the longer axis;
// a dashed line is 4 pixels on, 3 off.
func (r *raster) line(x0, y0, x1, y1 float64, c color.RGBA, dashed bool) {
	dx, dy := x1-x0, y1-y0
	n := int(math.Ceil(math.Max(math.Abs(dx), math.Abs(dy))))
	if n == 0 {
		r.img.SetRGBA(int(math.Round(x0)), int(math.Round(y0)), c)
		return
	}
	for i := 0; i <= n; i++ {
		if dashed && i%7 >= 4 {
			continue
		}
		t := float64(i) / float64(n)
		r.img.SetRGBA(int(math.Round(x0+t*dx)), int(math.Round(y0+t*dy)), c)
	}
}

func (r *raster) polyline(xs, ys []float64, c color.RGBA) {
	for i := 1; i < len(xs); i++ {
		r.line(xs[i-1], ys[i-1], xs[i], ys[i], c, false)
	}
}

// dot fills a disc of radius 1.5 pixels.
func (r *raster) dot(x, y float64, c color.RGBA) {
	cx, cy := int(math.Round(x)), int(math.Round(y))
	for j := -1; j <= 1; j++ {
		for i := -1; i <= 1; i++ {
			r.img.SetRGBA(cx+i, cy+j, c)
		}
	}
}

func (r *raster) text(x, y float64, s string, anchor int, vertical bool) {
	w := len(s) * charW
	if !vertical {
		r.glyphs(r.img, int(math.Round(x))-offset(w, anchor), int(math.Round(y)), s)
		return
	}
	// Drawn on its side: rendered flat, then turned a quarter anticlockwise
	// so that it reads bottom to top, centred on y.
	flat := image.NewRGBA(image.Rect(0, 0, w, lineH))
	r.glyphs(flat, 0, ascent, s)
	x0 := int(math.Round(x)) - ascent
	y0 := int(math.Round(y)) + offset(w, anchor)
	for fy := 0; fy < lineH; fy++ {
		for fx := 0; fx < w; fx++ {
			if c := flat.RGBAAt(fx, fy); c.A != 0 {
				r.img.SetRGBA(x0+fy, y0-fx, c)
			}
		}
	}
}

// offset is how far left of the anchor a w-pixel text starts.
func offset(w, anchor int) int {
	switch anchor {
	case 0:
		return w / 2
	case 1:
		return w
	}
	return 0
}

func (r *raster) glyphs(dst *image.RGBA, x, y int, s string) {
	d := font.Drawer{Dst: dst, Src: image.NewUniform(ink), Face: basicfont.Face7x13,
		Dot: fixed.P(x, y)}
	d.DrawString(s)
}
