package renderer

import (
	"fmt"
	"image"
	"image/draw"
	"unsafe"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/tickframe/tickframe/shaders"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// The HUD's font is basicfont's 7×13 face: every printable ASCII glyph is
// laid out once in an atlas texture. The HUD's text is a grid of cells,
// one byte a character; the panel and its text are one quad whose
// fragments look their glyph up (hud.frag), painted into a texture of
// their own only when the text changes (four times a second as the app
// fills it), so that a frame draws the panel as one texel fetch a pixel
// and the graph's lines, however much text there is (a triangle per glyph
// half cost the frame a third more on a software rasterizer, and looking
// every pixel's glyph up each frame made the HUD cost half a bare frame
// at 320×240). The overlay's text is glyph quads (overlay.go). hud.frag
// has these metrics too.
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
	maxHUDVerts = 6 + 2*(HUDGraphLen+2) + 6 // the panel, the graph, the panel's paint quad
	hudPad      = 8
	graphHeight = 64
	// The largest panel, in pixels at scale 1: the painted panel's
	// texture is this big.
	maxPanelW = HUDLineLen*glyphW + 2*hudPad
	maxPanelH = HUDLines*(glyphH+lineGap) + graphHeight + 3*hudPad
)

// hudVertex is one HUD vertex: a position in pixels, texel coordinates
// (the atlas's for a glyph quad, the panel's pixels at scale 1 for the
// HUD's panel) and a straight-alpha sRGB colour.
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

	prog     Program
	vao      glVertexArray
	vbo      glBuffer
	atlas    glTexture
	cells    glTexture // the text grid: HUDLineLen × HUDLines, RG8
	grid     *hudCells // this frame's cells: character, highlight
	uploaded hudCells  // the cells' texture holds these
	fresh    bool      // uploaded is what the texture holds
	// The panel with its text, painted at scale 1 (premultiplied) into
	// panelTex through panelFBO when the cells, the rows or the panel's
	// size change: what it holds is painted, for panelW×panelH.
	panelTex           glTexture
	panelFBO           uint32
	panelW, panelH     int // this frame's panel, pixels at scale 1 (build)
	painted            bool
	paintedRows        int
	paintedW, paintedH int
	verts              []hudVertex
	blit               Program // hudpanel.frag: the painted panel
	bViewport, bPanel  int32
	uViewport          int32
	uMode              int32 // hud.frag's uMode: 0 flat, 1 glyph quad, 2 panel and text
	uAtlas             int32
	uCells             int32
	uRows              int32
	uText              int32          // the text's colour
	uWarn              int32          // a highlighted line's
	colours            *[2][4]float32 // hudText and hudWarn for uText and uWarn
}

// hudCells are the HUD's text grid, a character and a highlight a cell.
// It and the colours are allocated apart from the HUD, which holds Go
// pointers: cgo refuses a pointer into such an object.
type hudCells [HUDLines * HUDLineLen * 2]byte

func newHUD() (*HUD, error) {
	prog, err := LoadProgram(shaders.FS, "hud.vert", "hud.frag")
	if err != nil {
		return nil, err
	}
	blit, err := LoadProgram(shaders.FS, "hud.vert", "hudpanel.frag")
	if err != nil {
		prog.Delete()
		return nil, err
	}
	h := &HUD{Visible: true, Scale: 1, prog: prog, blit: blit, verts: make([]hudVertex, 0, maxHUDVerts)}
	h.bViewport, h.bPanel = blit.uniform("uViewport"), blit.uniform("uPanel")
	for i := range h.lines {
		h.lines[i] = make([]byte, 0, HUDLineLen)
	}
	h.uViewport = prog.uniform("uViewport")
	h.uMode = prog.uniform("uMode")
	h.uAtlas = prog.uniform("uAtlas")
	h.uCells = prog.uniform("uCells")
	h.uRows = prog.uniform("uRows")
	h.uText = prog.uniform("uTextColor")
	h.uWarn = prog.uniform("uWarnColor")
	h.colours = &[2][4]float32{colour(hudText), colour(hudWarn)}
	h.grid = new(hudCells)

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
	gl.GenTextures(1, &tex)
	h.cells = glTexture(tex)
	gl.BindTexture(gl.TEXTURE_2D, tex)
	gl.PixelStorei(gl.UNPACK_ALIGNMENT, 1)
	gl.TexImage2D(gl.TEXTURE_2D, 0, gl.RG8, HUDLineLen, HUDLines, 0, gl.RG, gl.UNSIGNED_BYTE, unsafe.Pointer(&h.grid[0]))
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST)
	h.fresh = true // all zero, as grid
	gl.GenTextures(1, &tex)
	h.panelTex = glTexture(tex)
	gl.BindTexture(gl.TEXTURE_2D, tex)
	gl.TexImage2D(gl.TEXTURE_2D, 0, gl.RGBA8, maxPanelW, maxPanelH, 0, gl.RGBA, gl.UNSIGNED_BYTE, nil)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST)
	gl.BindTexture(gl.TEXTURE_2D, 0)
	gl.GenFramebuffers(1, &h.panelFBO)
	var prev int32
	gl.GetIntegerv(gl.FRAMEBUFFER_BINDING, &prev)
	gl.BindFramebuffer(gl.FRAMEBUFFER, h.panelFBO)
	gl.FramebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, tex, 0)
	status := gl.CheckFramebufferStatus(gl.FRAMEBUFFER)
	gl.BindFramebuffer(gl.FRAMEBUFFER, uint32(prev))
	if status != gl.FRAMEBUFFER_COMPLETE {
		h.delete()
		return nil, fmt.Errorf("renderer: the HUD's panel framebuffer is incomplete (0x%x)", status)
	}
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

// build lays out the panel (6 vertices) and fills the text's cells,
// then the graph's lines; it returns how many rows of text the cells
// hold (0: nothing to draw).
func (h *HUD) build() (rows int) {
	s := float32(max(h.Scale, 1))
	h.verts = h.verts[:0]
	// The caption's rows take the place of numbered lines beyond
	// HUDLines, so that the cells hold them all.
	first, end := 0, min(h.nlines+len(h.caption), HUDLines)
	if h.Compact { // the caption alone: it always fits the cells
		first, end = h.nlines, h.nlines+len(h.caption)
		if first == end {
			return 0 // no caption: nothing to draw
		}
	}
	width := 0
	for i := first; i < end; i++ {
		text, _ := h.row(i)
		width = max(width, min(len(text), HUDLineLen))
	}
	rows = end - first
	if rows == 0 && h.filled == 0 {
		return 0 // no text and no frame: nothing to show (a loop with no instrument filling it)
	}
	panelW := max(float32(width*glyphW), HUDGraphLen) + 2*hudPad
	panelH := float32(rows*(glyphH+lineGap)) + graphHeight + 3*hudPad
	if h.Compact {
		panelW = float32(width*glyphW) + 2*hudPad
		panelH = float32(rows*(glyphH+lineGap)-lineGap) + 2*hudPad
	}
	h.quad(0, 0, panelW*s, panelH*s, 0, 0, panelW, panelH, hudPanel)
	h.panelW, h.panelH = int(panelW), int(panelH)

	clear(h.grid[:])
	for r := range rows {
		text, warn := h.row(first + r)
		cells := h.grid[2*r*HUDLineLen:]
		for j, ch := range text[:min(len(text), HUDLineLen)] {
			cells[2*j] = ch
			if warn {
				cells[2*j+1] = 255
			}
		}
	}

	if h.Compact {
		return rows
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
	return rows
}

// colour is c as hud.frag's uniforms take it.
func colour(c [4]uint8) [4]float32 {
	return [4]float32{float32(c[0]) / 255, float32(c[1]) / 255, float32(c[2]) / 255, float32(c[3]) / 255}
}

func (h *HUD) draw(width, height int) {
	rows := h.build()
	if rows == 0 && len(h.verts) == 0 {
		return
	}
	lines := len(h.verts) - 6
	current := h.painted && *h.grid == h.uploaded && rows == h.paintedRows && h.panelW == h.paintedW && h.panelH == h.paintedH
	if !current {
		// The paint quad: the panel at scale 1, its texel coordinates
		// upside down, so that the framebuffer's rows (bottom first) hold
		// the panel's (top first) and a texel fetch at the panel pixel
		// finds it.
		w, ht := float32(h.panelW), float32(h.panelH)
		h.quad(0, 0, w, ht, 0, ht, w, 0, hudPanel)
	}
	gl.Disable(gl.DEPTH_TEST)
	gl.Disable(gl.CULL_FACE)
	gl.UseProgram(uint32(h.prog))
	gl.Uniform1i(h.uAtlas, 0)
	gl.Uniform1i(h.uCells, 1)
	gl.BindVertexArray(uint32(h.vao))
	gl.BindBuffer(gl.ARRAY_BUFFER, uint32(h.vbo))
	gl.BufferSubData(gl.ARRAY_BUFFER, 0, len(h.verts)*int(unsafe.Sizeof(hudVertex{})), unsafe.Pointer(&h.verts[0]))
	if !current {
		h.paint(rows, 6+lines)
	}
	gl.Viewport(0, 0, int32(width), int32(height))
	gl.Uniform2f(h.uViewport, float32(width), float32(height))
	gl.Enable(gl.BLEND)
	gl.ActiveTexture(gl.TEXTURE2)
	gl.BindTexture(gl.TEXTURE_2D, uint32(h.panelTex))
	gl.ActiveTexture(gl.TEXTURE0)
	gl.BlendFunc(gl.ONE, gl.ONE_MINUS_SRC_ALPHA) // the painted panel is premultiplied
	// The painted panel with a program of its own: in hud.frag's, with
	// every mode's branches, llvmpipe took 2 to 3 times as long.
	gl.UseProgram(uint32(h.blit))
	gl.Uniform1i(h.bPanel, 2)
	gl.Uniform2f(h.bViewport, float32(width), float32(height))
	gl.DrawArrays(gl.TRIANGLES, 0, 6)
	gl.UseProgram(uint32(h.prog))
	gl.BlendFunc(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA)
	gl.Uniform1i(h.uMode, 0)
	gl.DrawArrays(gl.LINES, 6, int32(lines))
	debugCheck("draw HUD")
	gl.BindVertexArray(0)
	gl.Disable(gl.BLEND)
	gl.Enable(gl.DEPTH_TEST)
}

// paint paints the panel and its text (hud.frag's mode 2) into panelTex,
// with the paint quad at vertex first, and restores the framebuffer it
// found bound.
func (h *HUD) paint(rows, first int) {
	var prev int32
	gl.GetIntegerv(gl.DRAW_FRAMEBUFFER_BINDING, &prev)
	gl.BindFramebuffer(gl.DRAW_FRAMEBUFFER, h.panelFBO)
	gl.Viewport(0, 0, int32(h.panelW), int32(h.panelH))
	gl.Disable(gl.BLEND) // the texture takes the premultiplied colour as it is
	gl.Uniform2f(h.uViewport, float32(h.panelW), float32(h.panelH))
	gl.Uniform1i(h.uRows, int32(rows))
	gl.Uniform4fv(h.uText, 1, &h.colours[0][0])
	gl.Uniform4fv(h.uWarn, 1, &h.colours[1][0])
	gl.ActiveTexture(gl.TEXTURE1)
	gl.BindTexture(gl.TEXTURE_2D, uint32(h.cells))
	if !h.fresh || *h.grid != h.uploaded {
		gl.PixelStorei(gl.UNPACK_ALIGNMENT, 1)
		gl.TexSubImage2D(gl.TEXTURE_2D, 0, 0, 0, HUDLineLen, HUDLines, gl.RG, gl.UNSIGNED_BYTE, unsafe.Pointer(&h.grid[0]))
		h.uploaded, h.fresh = *h.grid, true
	}
	gl.ActiveTexture(gl.TEXTURE0)
	gl.BindTexture(gl.TEXTURE_2D, uint32(h.atlas))
	gl.Uniform1i(h.uMode, 2)
	gl.DrawArrays(gl.TRIANGLES, int32(first), 6)
	gl.BindFramebuffer(gl.DRAW_FRAMEBUFFER, uint32(prev))
	h.painted, h.paintedRows, h.paintedW, h.paintedH = true, rows, h.panelW, h.panelH
}

func (h *HUD) delete() {
	h.prog.Delete()
	h.blit.Delete()
	h.vao.Delete()
	h.vbo.Delete()
	h.atlas.Delete()
	h.cells.Delete()
	h.panelTex.Delete()
	if h.panelFBO != 0 {
		gl.DeleteFramebuffers(1, &h.panelFBO)
		h.panelFBO = 0
	}
}
