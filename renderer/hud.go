package renderer

import (
	"image"
	"image/draw"
	"unsafe"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/tickframe/tickframe/shaders"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// The HUD's font is basicfont's 7×13 face: every printable ASCII glyph is
// laid out once in an atlas texture and text is drawn as textured quads.
const (
	glyphW, glyphH = 7, 13
	firstGlyph     = 32
	lastGlyph      = 126
	lineGap        = 3
	// HUDLines is how many text lines the HUD holds.
	HUDLines = 16
	// HUDLineLen is the longest line shown; longer lines are cut.
	HUDLineLen = 80
	// HUDGraphLen is how many frame intervals the graph shows.
	HUDGraphLen = 360
	maxHUDVerts = 6*HUDLines*HUDLineLen + 2*(HUDGraphLen+8) + 6*4
	hudPad      = 8
	graphHeight = 64
)

// hudVertex is one HUD vertex: a position in pixels, atlas texel
// coordinates (text only) and a straight-alpha sRGB colour.
type hudVertex struct {
	x, y, u, v float32
	rgba       [4]uint8
}

// HUD is the heads-up display: lines of text over a graph of the last few
// seconds of frame intervals. The app fills it; Renderer.Draw draws it.
// Nothing in it allocates after newHUD.
type HUD struct {
	// Visible says whether Draw draws the HUD.
	Visible bool
	// Scale multiplies the HUD's pixel size (2 on HiDPI displays).
	Scale int
	// Compact draws the caption alone (SetCaption's lines) in a panel
	// just its size: no numbered lines and no graph. A viewer's model
	// name and counts, without the timing detail.
	Compact bool

	lines     [HUDLines][]byte
	nlines    int
	caption   [][]byte             // SetCaption's, drawn after the lines
	graph     [HUDGraphLen]float32 // frame intervals, ms
	head      int
	filled    int
	targetMs  float32
	highlight [HUDLines]bool

	prog      Program
	vao       glVertexArray
	vbo       glBuffer
	atlas     glTexture
	verts     []hudVertex
	uViewport int32
	uText     int32
	uAtlas    int32
}

func newHUD() (*HUD, error) {
	prog, err := LoadProgram(shaders.FS, "hud.vert", "hud.frag")
	if err != nil {
		return nil, err
	}
	h := &HUD{Visible: true, Scale: 1, prog: prog, verts: make([]hudVertex, 0, maxHUDVerts)}
	for i := range h.lines {
		h.lines[i] = make([]byte, 0, HUDLineLen)
	}
	h.uViewport = prog.uniform("uViewport")
	h.uText = prog.uniform("uText")
	h.uAtlas = prog.uniform("uAtlas")

	h.vao = newVertexArray()
	gl.BindVertexArray(uint32(h.vao))
	h.vbo = newBuffer()
	gl.BindBuffer(gl.ARRAY_BUFFER, uint32(h.vbo))
	gl.BufferData(gl.ARRAY_BUFFER, maxHUDVerts*int(unsafe.Sizeof(hudVertex{})), nil, gl.STREAM_DRAW)
	hudAttribs()
	gl.BindVertexArray(0)

	atlas := glyphAtlas()
	var tex uint32
	gl.GenTextures(1, &tex)
	h.atlas = glTexture(tex)
	gl.BindTexture(gl.TEXTURE_2D, tex)
	gl.PixelStorei(gl.UNPACK_ALIGNMENT, 1)
	b := atlas.Bounds()
	gl.TexImage2D(gl.TEXTURE_2D, 0, gl.R8, int32(b.Dx()), int32(b.Dy()), 0, gl.RED, gl.UNSIGNED_BYTE, unsafe.Pointer(&atlas.Pix[0]))
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST)
	gl.BindTexture(gl.TEXTURE_2D, 0)
	if err := checkGL("create HUD"); err != nil {
		h.delete()
		return nil, err
	}
	return h, nil
}

// hudAttribs sets the bound vertex array's attributes to hudVertex's
// layout in the bound array buffer (hud.vert's inputs).
func hudAttribs() {
	stride := int32(unsafe.Sizeof(hudVertex{}))
	gl.EnableVertexAttribArray(0)
	gl.VertexAttribPointerWithOffset(0, 2, gl.FLOAT, false, stride, 0)
	gl.EnableVertexAttribArray(1)
	gl.VertexAttribPointerWithOffset(1, 2, gl.FLOAT, false, stride, 8)
	gl.EnableVertexAttribArray(2)
	gl.VertexAttribPointerWithOffset(2, 4, gl.UNSIGNED_BYTE, true, stride, 16)
}

// glyphAtlas draws every printable ASCII glyph of basicfont.Face7x13 into
// one row of 7×13 cells.
func glyphAtlas() *image.Alpha {
	n := lastGlyph - firstGlyph + 1
	img := image.NewAlpha(image.Rect(0, 0, n*glyphW, glyphH))
	face := basicfont.Face7x13
	for r := rune(firstGlyph); r <= lastGlyph; r++ {
		dot := fixed.P(int(r-firstGlyph)*glyphW, face.Ascent)
		dr, mask, mp, _, ok := face.Glyph(dot, r)
		if ok {
			draw.DrawMask(img, dr, image.Opaque, image.Point{}, mask, mp, draw.Over)
		}
	}
	return img
}

// Line returns text line i's buffer, emptied, for the caller to append to
// (strconv.AppendFloat and friends do not allocate into it). Lines past
// the last one filled are not drawn; i is clamped to [0, HUDLines).
func (h *HUD) Line(i int) *[]byte {
	i = min(max(i, 0), HUDLines-1)
	h.lines[i] = h.lines[i][:0]
	h.nlines = max(h.nlines, i+1)
	h.highlight[i] = false
	return &h.lines[i]
}

// Highlight draws line i in the warning colour until it is next set.
func (h *HUD) Highlight(i int) {
	if i >= 0 && i < HUDLines {
		h.highlight[i] = true
	}
}

// SetLines sets how many lines are drawn.
func (h *HUD) SetLines(n int) { h.nlines = min(max(n, 0), HUDLines) }

// HUDCaptionLines is how many caption lines SetCaption keeps.
const HUDCaptionLines = 6

// SetCaption sets lines of text drawn after the numbered lines, whatever
// SetLines says: what an app shows all along (a viewer's model name and
// counts) beside the lines it rebuilds. It keeps the first
// HUDCaptionLines lines, each cut at HUDLineLen; no lines clears it. It
// copies the text (it allocates; call it at start-up, not per frame).
func (h *HUD) SetCaption(lines ...string) {
	h.caption = h.caption[:0]
	for _, l := range lines[:min(len(lines), HUDCaptionLines)] {
		h.caption = append(h.caption, []byte(l[:min(len(l), HUDLineLen)]))
	}
}

// row returns the text of drawn row i, the lines then the caption, and
// whether it is highlighted.
func (h *HUD) row(i int) ([]byte, bool) {
	if i < h.nlines {
		return h.lines[i], h.highlight[i]
	}
	return h.caption[i-h.nlines], false
}

// AddFrame adds one frame interval to the graph.
func (h *HUD) AddFrame(intervalMs float32) {
	h.graph[h.head] = intervalMs
	h.head = (h.head + 1) % HUDGraphLen
	h.filled = min(h.filled+1, HUDGraphLen)
}

// SetTarget sets the display's frame interval, drawn as the graph's
// reference line.
func (h *HUD) SetTarget(ms float32) { h.targetMs = ms }

var (
	hudText    = [4]uint8{230, 235, 240, 255}
	hudWarn    = [4]uint8{255, 170, 60, 255}
	hudPanel   = [4]uint8{10, 12, 16, 190}
	hudTrace   = [4]uint8{110, 220, 140, 255}
	hudRefLine = [4]uint8{120, 130, 150, 200}
)

func (h *HUD) quad(x0, y0, x1, y1, u0, v0, u1, v1 float32, c [4]uint8) {
	h.verts = append(h.verts,
		hudVertex{x0, y0, u0, v0, c}, hudVertex{x1, y0, u1, v0, c}, hudVertex{x1, y1, u1, v1, c},
		hudVertex{x0, y0, u0, v0, c}, hudVertex{x1, y1, u1, v1, c}, hudVertex{x0, y1, u0, v1, c})
}

// build lays out the panel (6 vertices), the text, then the graph's lines;
// it returns where the text and the lines start.
func (h *HUD) build() (textStart, lineStart int) {
	s := float32(max(h.Scale, 1))
	h.verts = h.verts[:0]
	// The caption's rows take the place of numbered lines beyond
	// HUDLines, so the vertices fit the capacity newHUD gave them.
	first, rows := 0, min(h.nlines+len(h.caption), HUDLines)
	if h.Compact { // the caption alone: it always fits the vertices
		first, rows = h.nlines, h.nlines+len(h.caption)
		if first == rows {
			return 0, 0 // no caption: nothing to draw
		}
	}
	width := 0
	for i := first; i < rows; i++ {
		text, _ := h.row(i)
		width = max(width, min(len(text), HUDLineLen))
	}
	panelW := max(float32(width*glyphW), HUDGraphLen) + 2*hudPad
	panelH := float32(rows*(glyphH+lineGap)) + graphHeight + 3*hudPad
	if h.Compact {
		panelW = float32(width*glyphW) + 2*hudPad
		panelH = float32((rows-first)*(glyphH+lineGap)-lineGap) + 2*hudPad
	}
	h.quad(0, 0, panelW*s, panelH*s, 0, 0, 0, 0, hudPanel)

	textStart = len(h.verts)
	for i := first; i < rows; i++ {
		text, warn := h.row(i)
		c := hudText
		if warn {
			c = hudWarn
		}
		y := float32(hudPad + (i-first)*(glyphH+lineGap))
		for j, ch := range text {
			if j >= HUDLineLen {
				break
			}
			if ch <= firstGlyph || ch > lastGlyph {
				continue // space or not drawable
			}
			x := float32(hudPad + j*glyphW)
			u := float32(int(ch-firstGlyph) * glyphW)
			h.quad(x*s, y*s, (x+glyphW)*s, (y+glyphH)*s, u, 0, u+glyphW, glyphH, c)
		}
	}

	lineStart = len(h.verts)
	if h.Compact {
		return textStart, lineStart
	}
	top := float32(rows*(glyphH+lineGap)) + 2*hudPad
	bottom := top + graphHeight
	// Full scale is twice the target interval (33 ms with no target), or
	// more when frames take longer, so that the trace stays on the graph.
	full := 2 * h.targetMs
	if full <= 0 {
		full = 33.3
	}
	for k := 0; k < h.filled; k++ {
		full = max(full, 1.25*h.graph[k])
	}
	yOf := func(ms float32) float32 { return bottom - min(ms/full, 1)*graphHeight }
	left := float32(hudPad)
	for _, ref := range [2]float32{full / 2, full} {
		h.verts = append(h.verts,
			hudVertex{left * s, yOf(ref) * s, 0, 0, hudRefLine},
			hudVertex{(left + HUDGraphLen) * s, yOf(ref) * s, 0, 0, hudRefLine})
	}
	for k := 1; k < h.filled; k++ {
		i0 := (h.head - h.filled + k - 1 + 2*HUDGraphLen) % HUDGraphLen
		i1 := (i0 + 1) % HUDGraphLen
		x0 := left + float32(HUDGraphLen-h.filled+k-1)
		h.verts = append(h.verts,
			hudVertex{x0 * s, yOf(h.graph[i0]) * s, 0, 0, hudTrace},
			hudVertex{(x0 + 1) * s, yOf(h.graph[i1]) * s, 0, 0, hudTrace})
	}
	return textStart, lineStart
}

func (h *HUD) draw(width, height int) {
	textStart, lineStart := h.build()
	if len(h.verts) == 0 {
		return
	}
	gl.Disable(gl.DEPTH_TEST)
	gl.Disable(gl.CULL_FACE)
	gl.Enable(gl.BLEND)
	gl.BlendFunc(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA)
	gl.UseProgram(uint32(h.prog))
	gl.Uniform2f(h.uViewport, float32(width), float32(height))
	gl.Uniform1i(h.uAtlas, 0)
	gl.ActiveTexture(gl.TEXTURE0)
	gl.BindTexture(gl.TEXTURE_2D, uint32(h.atlas))
	gl.BindVertexArray(uint32(h.vao))
	gl.BindBuffer(gl.ARRAY_BUFFER, uint32(h.vbo))
	gl.BufferSubData(gl.ARRAY_BUFFER, 0, len(h.verts)*int(unsafe.Sizeof(hudVertex{})), unsafe.Pointer(&h.verts[0]))
	gl.Uniform1i(h.uText, 0)
	gl.DrawArrays(gl.TRIANGLES, 0, int32(textStart))
	gl.Uniform1i(h.uText, 1)
	gl.DrawArrays(gl.TRIANGLES, int32(textStart), int32(lineStart-textStart))
	gl.Uniform1i(h.uText, 0)
	gl.DrawArrays(gl.LINES, int32(lineStart), int32(len(h.verts)-lineStart))
	debugCheck("draw HUD")
	gl.BindVertexArray(0)
	gl.Disable(gl.BLEND)
	gl.Enable(gl.DEPTH_TEST)
}

func (h *HUD) delete() {
	h.prog.Delete()
	h.vao.Delete()
	h.vbo.Delete()
	h.atlas.Delete()
}
