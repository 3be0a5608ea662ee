package renderer

import (
	"fmt"
	"image"
	"image/draw"
	"math"
	"sync"
	"unsafe"

	"github.com/go-gl/gl/v4.1-core/gl"
	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// The renderer's text is the Go fonts (golang.org/x/image/font/gofont),
// OpenType outlines rasterised by golang.org/x/image/font/opentype at the
// very pixel size drawn: each size a glyph set, every printable ASCII
// glyph rasterised once into an atlas texture of its own, which quads
// copy texel for texel (never scaled, so never blurred). Sizes are whole
// pixels (the font's em, as opentype's Size at 72 DPI), with
// font.HintingFull: metrics and advances rounded to whole pixels, so that
// every glyph starts on a pixel and the atlas's coverage lands unchanged.
// The Go fonts have no kerning table, so a line is its advances.
const (
	firstGlyph = 32  // ' '
	lastGlyph  = 126 // '~'
	numGlyphs  = lastGlyph - firstGlyph + 1
	// minTextPx and maxTextPx bound the sizes text is drawn at: under 6
	// px no glyph is legible; a 256 px set's atlas is 5 MB.
	minTextPx = 6
	maxTextPx = 256
	// maxGlyphSets is how many sizes the cache keeps: a window being
	// resized asks for a new overlay size every frame; the least recently
	// used set's texture is deleted.
	maxGlyphSets = 12
)

// typeface is one of the renderer's fonts.
type typeface uint8

const (
	faceRegular typeface = iota // Go Regular: the overlay's
	faceMono                    // Go Mono: the HUD's, its figures in columns
)

// fonts are the parsed typefaces, parsed once (sfnt.Font is safe for
// concurrent use).
var fonts [2]struct {
	once sync.Once
	f    *opentype.Font
	err  error
}

// loadFont returns typeface tf, parsed.
func loadFont(tf typeface) (*opentype.Font, error) {
	p := &fonts[tf]
	p.once.Do(func() {
		src := goregular.TTF
		if tf == faceMono {
			src = gomono.TTF
		}
		if p.f, p.err = opentype.Parse(src); p.err != nil {
			p.err = fmt.Errorf("renderer: parse font %d: %w", tf, p.err)
		}
	})
	return p.f, p.err
}

// glyph is one glyph of a glyphSet.
type glyph struct {
	// x0, y0, x1, y1 is the ink's box from the pen (on the baseline),
	// pixels, y down; empty for a blank glyph.
	x0, y0, x1, y1 int16
	// u, v is the box's top left in the atlas, texels.
	u, v int16
	adv  int16 // pixels to the next glyph's pen
}

// glyphSet is one typeface at one pixel size: every printable ASCII
// glyph's metrics and an R8 atlas texture of their coverage.
type glyphSet struct {
	face    typeface
	px      int
	ascent  int // pixels from a line's top to its baseline
	descent int // pixels from the baseline to the line's bottom
	lineH   int // pixels from one baseline to the next
	glyphs  [numGlyphs]glyph
	tex     glTexture
	used    uint64 // the cache's stamp when last asked for
}

// newGlyphSet rasterises typeface tf at px pixels into a new atlas
// texture.
func newGlyphSet(tf typeface, px int) (*glyphSet, error) {
	f, err := loadFont(tf)
	if err != nil {
		return nil, err
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: float64(px), DPI: 72, Hinting: font.HintingFull})
	if err != nil {
		return nil, fmt.Errorf("renderer: font %d at %d px: %w", tf, px, err)
	}
	defer face.Close()
	m := face.Metrics()
	s := &glyphSet{face: tf, px: px, ascent: m.Ascent.Ceil(), descent: m.Descent.Ceil(), lineH: m.Height.Ceil()}
	// The atlas is a grid of cells as large as the largest glyph, 16 a
	// row, a texel apart.
	var boxes [numGlyphs]image.Rectangle
	cw, ch := 1, 1
	for i := range boxes {
		dr, _, _, adv, ok := face.Glyph(fixed.Point26_6{}, rune(firstGlyph+i))
		if !ok {
			continue
		}
		boxes[i] = dr
		s.glyphs[i].adv = int16(adv.Round())
		cw, ch = max(cw, dr.Dx()), max(ch, dr.Dy())
	}
	const perRow = 16
	cols, rows := perRow, (numGlyphs+perRow-1)/perRow
	atlas := image.NewAlpha(image.Rect(0, 0, cols*(cw+1), rows*(ch+1)))
	for i, dr := range boxes {
		if dr.Empty() {
			continue
		}
		at := image.Pt(i%perRow*(cw+1), i/perRow*(ch+1))
		_, mask, mp, _, _ := face.Glyph(fixed.Point26_6{}, rune(firstGlyph+i))
		draw.Draw(atlas, image.Rectangle{at, at.Add(dr.Size())}, mask, mp, draw.Src)
		g := &s.glyphs[i]
		g.x0, g.y0, g.x1, g.y1 = int16(dr.Min.X), int16(dr.Min.Y), int16(dr.Max.X), int16(dr.Max.Y)
		g.u, g.v = int16(at.X), int16(at.Y)
	}
	var tex uint32
	gl.GenTextures(1, &tex)
	s.tex = glTexture(tex)
	gl.BindTexture(gl.TEXTURE_2D, tex)
	gl.PixelStorei(gl.UNPACK_ALIGNMENT, 1)
	b := atlas.Bounds()
	gl.TexImage2D(gl.TEXTURE_2D, 0, gl.R8, int32(b.Dx()), int32(b.Dy()), 0, gl.RED, gl.UNSIGNED_BYTE, unsafe.Pointer(&atlas.Pix[0]))
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST)
	gl.BindTexture(gl.TEXTURE_2D, 0)
	if err := checkGL("create glyph atlas"); err != nil {
		s.tex.Delete()
		return nil, err
	}
	return s, nil
}

// glyph returns ch's glyph; a byte outside printable ASCII is a space.
func (s *glyphSet) glyph(ch byte) *glyph {
	if ch < firstGlyph || ch > lastGlyph {
		ch = ' '
	}
	return &s.glyphs[ch-firstGlyph]
}

// measure returns the advance of text's longest line, in pixels, and its
// number of lines ('\n' starts one).
func (s *glyphSet) measure(text []byte) (width, lines int) {
	w := 0
	lines = 1
	for _, ch := range text {
		if ch == '\n' {
			lines++
			w = 0
			continue
		}
		w += int(s.glyph(ch).adv)
		width = max(width, w)
	}
	return width, lines
}

// height returns the height of lines lines of text: from the first line's
// top to the last one's bottom.
func (s *glyphSet) height(lines int) int { return (lines-1)*s.lineH + s.ascent + s.descent }

// glyphCache holds the glyph sets built so far, at most maxGlyphSets of
// them once some are not in use. Asking for a size it holds allocates
// nothing.
type glyphCache struct {
	sets  []*glyphSet
	stamp uint64 // bumped by next: a set asked for since is in use
	err   error  // the first failure to build a set
}

// next starts a pass that asks for sets: those it asks for are kept
// until the next pass.
func (c *glyphCache) next() { c.stamp++ }

// get returns typeface tf at px pixels (clamped to [minTextPx,
// maxTextPx]), building it the first time; nil if that fails (c.err says
// why).
func (c *glyphCache) get(tf typeface, px int) *glyphSet {
	px = min(max(px, minTextPx), maxTextPx)
	for _, s := range c.sets {
		if s.face == tf && s.px == px {
			s.used = c.stamp
			return s
		}
	}
	s, err := newGlyphSet(tf, px)
	if err != nil {
		if c.err == nil {
			c.err = err
		}
		return nil
	}
	s.used = c.stamp
	if len(c.sets) >= maxGlyphSets {
		old := -1
		for i, o := range c.sets {
			if o.used != c.stamp && (old < 0 || o.used < c.sets[old].used) {
				old = i
			}
		}
		if old >= 0 {
			c.sets[old].tex.Delete()
			c.sets[old] = s
			return s
		}
	}
	c.sets = append(c.sets, s)
	return s
}

func (c *glyphCache) delete() {
	for _, s := range c.sets {
		s.tex.Delete()
	}
	c.sets = nil
}

// roundPx rounds a size in pixels to the whole pixels text is drawn at.
func roundPx(px float32) int {
	if !(px < maxTextPx) { // and NaN
		return maxTextPx
	}
	return min(max(int(math.Round(float64(px))), minTextPx), maxTextPx)
}
