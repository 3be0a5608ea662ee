package renderer

import (
	"fmt"
	"math"
	"strconv"
	"unsafe"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/tickframe/tickframe/shaders"
)

// The HUD is text in Go Mono (font.go) over a panel, above a graph of
// frame intervals. Its text size follows the window's height (hudTextPx).
// The panel and its text are laid out and painted into a texture of their
// own only when the text, its size or the window's change (four times a
// second as the app fills it), so that a frame draws the panel as one
// texel fetch a pixel, and the graph's lines, however much text there is
// (a triangle per glyph half cost the frame a third more on a software
// rasterizer). A frame draws only the panel its text needs: each row as
// wide as its own text, and no more than a third of the window (hudShare),
// since on a software rasterizer the HUD's cost is the pixels it covers
// (docs/hud.md).
const (
	// hudLines is how many text lines the HUD holds.
	hudLines = 16
	// hudLineLen is the longest line shown; longer lines are cut.
	hudLineLen = 80
	// hudGraphLen is how many frame intervals the graph shows.
	hudGraphLen = 360
	// maxHUDSpans is how many rectangles of the panel a frame draws: a
	// row each, and the graph.
	maxHUDSpans = hudLines + 1
	maxHUDVerts = 6*maxHUDSpans + 2*(hudGraphLen+2) // the panel's spans, the graph
	// hudNominalPx is the HUD's text size in a window 720 pixels high;
	// the panel's padding (8 px) and graph (64 px high, a pixel a
	// frame) are sized for it and scale with it.
	hudNominalPx = 12
	hudRefHeight = 720
	// hudMinPx is the smallest HUD text, in pixels at content scale 1:
	// Go Mono's smallest size whose digits stay distinct (5 px apart).
	hudMinPx    = 9
	hudPad      = 8
	graphHeight = 64
	// hudShare is the largest part of the window the HUD's panel covers:
	// the bound TestHUDShareOfWindow holds at 640×360, where the whole
	// HUD fits it. In a smaller window the HUD shows the lines that fit
	// and says how many it left out.
	hudShare = 1.0 / 3
)

// hudTextPx returns the HUD's text size, in pixels, in a window height
// pixels high at content scale scale: hudNominalPx at 720 pixels, in
// proportion to the height, at least hudMinPx·scale.
func hudTextPx(height, scale int) int {
	px := roundPx(float32(height) * hudNominalPx / hudRefHeight)
	return min(max(px, hudMinPx*max(scale, 1)), maxTextPx)
}

// hudPadPx returns the panel's padding round its text and graph, in
// pixels, for text of px pixels: hudPad at hudNominalPx, in proportion.
func hudPadPx(px int) int { return max(2, int(math.Round(hudPad*float64(px)/hudNominalPx))) }

// hudVertex is one HUD vertex: a position in pixels, texel coordinates
// (the atlas's for a glyph quad, the painted panel's for the panel) and a
// straight-alpha sRGB colour.
type hudVertex struct {
	x, y, u, v float32
	rgba       [4]uint8
}

// hudLayout is the HUD panel's layout at one text size: what its painted
// texture holds, and the rectangles of it a frame draws.
type hudLayout struct {
	set      *glyphSet // the text's
	rows     int       // rows of text
	w, h     int       // the panel, pixels
	pad      int
	graphW   int // the graph's width, pixels (0: none)
	graphH   int
	textTop  int // the first row's top
	graphTop int
	spans    [maxHUDSpans]hudSpan // what a frame draws of the panel
	nspans   int
}

// hudSpan is a rectangle of the painted panel, in pixels from its top
// left: a row's text and padding, or the graph's.
type hudSpan struct{ x0, y0, x1, y1 int }

func (s hudSpan) area() int { return (s.x1 - s.x0) * (s.y1 - s.y0) }

// HUD is the heads-up display: lines of text over a graph of the last few
// seconds of frame intervals. The app fills it; Renderer.Draw draws it.
// Drawing it allocates nothing, but for a text size it has not drawn
// before (a glyph set, once).
type HUD struct {
	// Visible says whether Draw draws the HUD.
	Visible bool
	// Scale is the display's content scale, rounded (2 on HiDPI
	// displays): the HUD's text, which follows the window's height, is
	// never smaller than 9 pixels times Scale.
	Scale int
	// Compact draws the caption alone (SetCaption's lines) in a panel
	// just its size: no numbered lines and no graph. A viewer's model
	// name and counts, without the timing detail.
	Compact bool

	lines     [hudLines][]byte
	nlines    int
	more      []byte               // the row that says how many lines a small window left out
	caption   [][]byte             // SetCaption's, drawn after the lines
	graph     [hudGraphLen]float32 // frame intervals, ms
	head      int
	filled    int
	targetMs  float32
	highlight [hudLines]bool

	fonts   *glyphCache // the renderer's, shared with the overlay
	prog    glProgram
	vao     glVertexArray
	vbo     glBuffer // the panel's spans (each layout), the graph (each frame)
	textVAO glVertexArray
	textVBO glBuffer  // the paint's: the panel, the glyphs
	grid    hudCells  // the laid-out text: character, highlight
	shown   hudCells  // the painted panel's
	layout  hudLayout // the laid-out panel (set nil: nothing to draw)
	painted hudLayout // the painted panel's (set nil: none)
	// dirty says the text changed since it was laid out; laidOut is the
	// window and settings it was laid out for.
	dirty     bool
	laidOut   hudFit
	spanVerts int       // the layout's span vertices at the start of vbo
	panelTex  glTexture // the panel and its text, premultiplied
	panelFBO  uint32
	texW      int // panelTex's size
	texH      int
	verts     []hudVertex // a frame's
	text      []hudVertex // the paint's
	blit      glProgram   // hudpanel.frag: the painted panel
	paints    int         // how many times the panel was painted
	layouts   int         // how many times the text was laid out
	// prevFBO is the framebuffer paint restores; a field, not a local,
	// as its address goes to cgo and a local would escape every paint.
	prevFBO           int32
	bViewport, bPanel int32
	uViewport         int32
	uMode             int32 // hud.frag's uMode: 0 flat, 1 glyph quad
	uAtlas            int32
}

// hudFit is what a layout is for: the window's size and the HUD's
// settings.
type hudFit struct {
	width, height, scale int
	compact              bool
}

// hudCells are the HUD's text as a grid, a character and a highlight a
// cell: what the panel shows, compared to tell a change.
type hudCells [hudLines * hudLineLen * 2]byte

func newHUD() (*HUD, error) {
	for _, tf := range [...]typeface{faceRegular, faceMono} {
		if _, err := loadFont(tf); err != nil {
			return nil, err
		}
	}
	prog, err := loadShaderProgram(shaders.FS, "hud.vert", "hud.frag")
	if err != nil {
		return nil, err
	}
	blit, err := loadShaderProgram(shaders.FS, "hud.vert", "hudpanel.frag")
	if err != nil {
		prog.Delete()
		return nil, err
	}
	h := &HUD{Visible: true, Scale: 1, fonts: new(glyphCache), prog: prog, blit: blit, dirty: true,
		verts: make([]hudVertex, 0, maxHUDVerts), text: make([]hudVertex, 0, 6*(1+hudLines*hudLineLen)),
		more: make([]byte, 0, hudLineLen)}
	h.bViewport, h.bPanel = blit.uniform("uViewport"), blit.uniform("uPanel")
	for i := range h.lines {
		h.lines[i] = make([]byte, 0, hudLineLen)
	}
	h.uViewport = prog.uniform("uViewport")
	h.uMode = prog.uniform("uMode")
	h.uAtlas = prog.uniform("uAtlas")

	h.vao = newVertexArray()
	gl.BindVertexArray(uint32(h.vao))
	h.vbo = newBuffer()
	gl.BindBuffer(gl.ARRAY_BUFFER, uint32(h.vbo))
	gl.BufferData(gl.ARRAY_BUFFER, maxHUDVerts*int(unsafe.Sizeof(hudVertex{})), nil, gl.STREAM_DRAW)
	hudAttribs()
	h.textVAO = newVertexArray()
	gl.BindVertexArray(uint32(h.textVAO))
	h.textVBO = newBuffer()
	gl.BindBuffer(gl.ARRAY_BUFFER, uint32(h.textVBO))
	gl.BufferData(gl.ARRAY_BUFFER, cap(h.text)*int(unsafe.Sizeof(hudVertex{})), nil, gl.STREAM_DRAW)
	hudAttribs()
	gl.BindVertexArray(0)

	var tex uint32
	gl.GenTextures(1, &tex)
	h.panelTex = glTexture(tex)
	h.sizePanel(1, 1)
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

// sizePanel makes the panel's texture at least w×h texels, in steps of 64
// so that a panel growing a little does not reallocate it every time.
func (h *HUD) sizePanel(w, ht int) {
	if w <= h.texW && ht <= h.texH {
		return
	}
	h.texW, h.texH = max(h.texW, (w+63)&^63), max(h.texH, (ht+63)&^63)
	gl.BindTexture(gl.TEXTURE_2D, uint32(h.panelTex))
	gl.TexImage2D(gl.TEXTURE_2D, 0, gl.RGBA8, int32(h.texW), int32(h.texH), 0, gl.RGBA, gl.UNSIGNED_BYTE, nil)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST)
	gl.BindTexture(gl.TEXTURE_2D, 0)
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

// Line returns text line i's buffer, emptied, for the caller to append to
// (strconv.AppendFloat and friends do not allocate into it). Lines past
// the last one filled are not drawn; i is clamped to [0, hudLines).
func (h *HUD) Line(i int) *[]byte {
	i = min(max(i, 0), hudLines-1)
	h.lines[i] = h.lines[i][:0]
	h.nlines = max(h.nlines, i+1)
	h.highlight[i] = false
	h.dirty = true
	return &h.lines[i]
}

// Highlight draws line i in the warning colour until it is next set.
func (h *HUD) Highlight(i int) {
	if i >= 0 && i < hudLines {
		h.highlight[i] = true
		h.dirty = true
	}
}

// SetLines sets how many lines are drawn.
func (h *HUD) SetLines(n int) {
	h.nlines = min(max(n, 0), hudLines)
	h.dirty = true
}

// hudCaptionLines is how many caption lines SetCaption keeps.
const hudCaptionLines = 6

// SetCaption sets lines of text drawn after the numbered lines, whatever
// SetLines says: what an app shows all along (a viewer's model name and
// counts) beside the lines it rebuilds. It keeps the first
// 6 lines, each cut at 80 bytes; no lines clears it. It
// copies the text (it allocates; call it at start-up, not per frame).
func (h *HUD) SetCaption(lines ...string) {
	h.caption = h.caption[:0]
	for _, l := range lines[:min(len(lines), hudCaptionLines)] {
		h.caption = append(h.caption, []byte(l[:min(len(l), hudLineLen)]))
	}
	h.dirty = true
}

// row returns the text of drawn row i, the lines then the caption, and
// whether it is highlighted.
func (h *HUD) row(i int) ([]byte, bool) {
	if i < h.nlines {
		return h.lines[i], h.highlight[i]
	}
	return h.caption[i-h.nlines], false
}

// AddFrame adds one frame interval to the graph, and sets the display's
// frame interval, drawn as the graph's reference line (0: none).
func (h *HUD) AddFrame(intervalMs, targetMs float32) {
	h.targetMs = targetMs
	h.graph[h.head] = intervalMs
	h.head = (h.head + 1) % hudGraphLen
	if h.filled == 0 {
		h.dirty = true // the panel holds a graph now
	}
	h.filled = min(h.filled+1, hudGraphLen)
}

var (
	hudText    = [4]uint8{230, 235, 240, 255}
	hudWarn    = [4]uint8{255, 170, 60, 255}
	hudPanel   = [4]uint8{10, 12, 16, 190}
	hudTrace   = [4]uint8{110, 220, 140, 255}
	hudRefLine = [4]uint8{120, 130, 150, 200}
)

// quad appends a quad of two triangles to dst.
func quad(dst []hudVertex, x0, y0, x1, y1, u0, v0, u1, v1 float32, c [4]uint8) []hudVertex {
	return append(dst,
		hudVertex{x0, y0, u0, v0, c}, hudVertex{x1, y0, u1, v0, c}, hudVertex{x1, y1, u1, v1, c},
		hudVertex{x0, y0, u0, v0, c}, hudVertex{x1, y1, u1, v1, c}, hudVertex{x0, y1, u0, v1, c})
}

// hudMoreLabel starts the row that ends a HUD cut short by a small
// window (hudShare): how many lines it left out.
const hudMoreLabel = "left out "

// build lays the panel out, into h.layout, for a window width×height
// pixels, and fills h.grid with its text; h.layout.set stays nil where
// there is nothing to draw. Past hudShare of the window (Compact aside),
// the graph is left out first, then the last lines, the last row shown
// saying how many.
func (h *HUD) build(width, height int) {
	// The caption's rows take the place of numbered lines beyond
	// hudLines, so that the grid holds them all.
	first, end := 0, min(h.nlines+len(h.caption), hudLines)
	if h.Compact { // the caption alone: it always fits the grid
		first, end = h.nlines, h.nlines+len(h.caption)
		if first == end {
			return // no caption: nothing to draw
		}
	}
	rows := end - first
	if rows == 0 && h.filled == 0 {
		return // no text and no frame: nothing to show (a loop with no instrument filling it)
	}
	set := h.fonts.get(faceMono, hudTextPx(height, h.Scale))
	if set == nil {
		return
	}
	k := float64(set.px) / hudNominalPx
	pad := hudPadPx(set.px)
	adv := int(set.glyph('0').adv) // Go Mono: every advance is the same
	cols := func(r int) int {
		text, _ := h.row(first + r)
		return min(len(text), hudLineLen)
	}
	// row is text row r's rectangle, c characters wide, the panel's top
	// padding with the first row and its bottom padding with the last:
	// nothing for an empty row.
	row := func(r, c int, last bool) hudSpan {
		if c == 0 {
			return hudSpan{}
		}
		s := hudSpan{0, pad + r*set.lineH, c*adv + 2*pad, pad + (r+1)*set.lineH}
		if r == 0 {
			s.y0 = 0
		}
		if last {
			s.y1 += pad
		}
		return s
	}
	// covers is the part of the window a rectangle of the panel covers.
	covers := func(s hudSpan) int {
		return max(min(s.x1, width)-s.x0, 0) * max(min(s.y1, height)-s.y0, 0)
	}
	budget := int(hudShare * float64(width) * float64(height))
	text := 0
	for r := range rows {
		text += covers(row(r, cols(r), r == rows-1))
	}
	graphW, graphH := 0, 0
	if !h.Compact {
		graphW, graphH = int(math.Round(hudGraphLen*k)), int(math.Round(graphHeight*k))
		top := rows*set.lineH + 2*pad
		if text+covers(hudSpan{0, top, graphW + 2*pad, top + graphH + pad}) > budget {
			graphW, graphH = 0, 0
		}
	}
	shown, cut := rows, 0
	if !h.Compact && text > budget {
		// The first lines, the last of them replaced by how many are left
		// out, as many as fit (one at least).
		for shown = rows - 1; shown > 1; shown-- {
			h.setMore(rows - shown + 1)
			area := covers(row(shown-1, len(h.more), true))
			for r := range shown - 1 {
				area += covers(row(r, cols(r), false))
			}
			if area <= budget {
				break
			}
		}
		cut = rows - shown + 1
		h.setMore(cut)
	}
	if shown == 0 && graphW == 0 {
		return
	}
	maxCols := 0
	clear(h.grid[:])
	l := hudLayout{set: set, rows: shown, pad: pad, textTop: pad}
	for r := range shown {
		text, warn := h.row(first + r)
		if cut > 0 && r == shown-1 {
			text, warn = h.more, false
		}
		text = text[:min(len(text), hudLineLen)]
		maxCols = max(maxCols, len(text))
		cells := h.grid[2*r*hudLineLen:]
		for j, ch := range text {
			cells[2*j] = ch
			if warn {
				cells[2*j+1] = 255
			}
		}
		if s := row(r, len(text), r == shown-1); s.x1 > 0 {
			l.spans[l.nspans] = s
			l.nspans++
		}
	}
	l.w = maxCols*adv + 2*pad
	l.h = shown*set.lineH + 2*pad
	if graphW > 0 {
		l.graphW, l.graphH = graphW, graphH
		l.w = max(l.w, graphW+2*pad)
		l.graphTop = l.h
		l.h = l.graphTop + graphH + pad
		s := hudSpan{0, l.graphTop, graphW + 2*pad, l.h}
		if shown == 0 {
			s.y0 = 0
		}
		l.spans[l.nspans] = s
		l.nspans++
	}
	h.layout = l
}

// setMore sets h.more, the row that ends a HUD cut short, to say that
// it left n lines out.
func (h *HUD) setMore(n int) {
	h.more = strconv.AppendInt(append(h.more[:0], hudMoreLabel...), int64(n), 10)
	h.more = append(h.more, " lines: too small a window"...)
}

// graphLines appends the graph's reference lines and trace to h.verts.
func (h *HUD) graphLines() {
	l := &h.layout
	// Full scale is twice the target interval (33 ms with no target), or
	// more when frames take longer, so that the trace stays on the graph.
	full := 2 * h.targetMs
	if full <= 0 {
		full = 33.3
	}
	for k := 0; k < h.filled; k++ {
		full = max(full, 1.25*h.graph[k])
	}
	bottom, gh := float32(l.graphTop+l.graphH), float32(l.graphH)
	yOf := func(ms float32) float32 { return bottom - min(ms/full, 1)*gh }
	left, dx := float32(l.pad), float32(l.graphW)/hudGraphLen
	for _, ref := range [2]float32{full / 2, full} {
		h.verts = append(h.verts,
			hudVertex{left, yOf(ref), 0, 0, hudRefLine},
			hudVertex{left + float32(l.graphW), yOf(ref), 0, 0, hudRefLine})
	}
	for k := 1; k < h.filled; k++ {
		i0 := (h.head - h.filled + k - 1 + 2*hudGraphLen) % hudGraphLen
		i1 := (i0 + 1) % hudGraphLen
		x0 := left + float32(hudGraphLen-h.filled+k-1)*dx
		h.verts = append(h.verts,
			hudVertex{x0, yOf(h.graph[i0]), 0, 0, hudTrace},
			hudVertex{x0 + dx, yOf(h.graph[i1]), 0, 0, hudTrace})
	}
}

// draw draws the HUD into a window width×height pixels. It lays the
// panel out again only when its text, the window or its settings changed
// (h.dirty, h.laidOut), and paints it only when the layout did.
func (h *HUD) draw(width, height int) {
	h.fonts.next()
	if set := h.layout.set; set != nil && h.fonts.get(faceMono, set.px) != set {
		h.dirty = true // its glyph set was dropped while the HUD was hidden
	}
	if fit := (hudFit{width, height, h.Scale, h.Compact}); h.dirty || fit != h.laidOut {
		h.dirty, h.laidOut = false, fit
		h.layout = hudLayout{}
		h.build(width, height)
		h.layouts++
		h.spanVerts = 0
		if h.layout.set != nil {
			h.uploadSpans()
		}
	}
	if h.layout.set == nil {
		return
	}
	gl.Disable(gl.DEPTH_TEST)
	gl.Disable(gl.CULL_FACE)
	if h.layout != h.painted || h.grid != h.shown {
		h.paint()
	}
	gl.BindVertexArray(uint32(h.vao))
	lines := 0
	if h.layout.graphW > 0 {
		h.verts = h.verts[:0]
		h.graphLines()
		if lines = len(h.verts); lines > 0 {
			gl.BindBuffer(gl.ARRAY_BUFFER, uint32(h.vbo))
			size := int(unsafe.Sizeof(hudVertex{}))
			gl.BufferSubData(gl.ARRAY_BUFFER, h.spanVerts*size, lines*size, unsafe.Pointer(&h.verts[0]))
		}
	}
	gl.Viewport(0, 0, int32(width), int32(height))
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
	gl.DrawArrays(gl.TRIANGLES, 0, int32(h.spanVerts))
	if lines > 0 {
		gl.UseProgram(uint32(h.prog))
		gl.Uniform2f(h.uViewport, float32(width), float32(height))
		gl.BlendFuncSeparate(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA, gl.ONE, gl.ONE_MINUS_SRC_ALPHA) // an opaque frame stays opaque
		gl.Uniform1i(h.uMode, 0)
		gl.DrawArrays(gl.LINES, int32(h.spanVerts), int32(lines))
	}
	debugCheck("draw HUD")
	gl.BindVertexArray(0)
	gl.Disable(gl.BLEND)
	gl.Enable(gl.DEPTH_TEST)
}

// uploadSpans writes the layout's spans, quads of the painted panel, at
// the start of vbo, where they stay until the next layout; the graph's
// lines follow them, written every frame.
func (h *HUD) uploadSpans() {
	l := &h.layout
	// Their texel coordinates upside down: the framebuffer's rows (bottom
	// first) hold the panel's (top first).
	ht := float32(l.h)
	v := h.verts[:0]
	for _, s := range l.spans[:l.nspans] {
		x0, y0, x1, y1 := float32(s.x0), float32(s.y0), float32(s.x1), float32(s.y1)
		v = quad(v, x0, y0, x1, y1, x0, ht-y0, x1, ht-y1, hudPanel)
	}
	h.spanVerts = len(v)
	gl.BindBuffer(gl.ARRAY_BUFFER, uint32(h.vbo))
	gl.BufferSubData(gl.ARRAY_BUFFER, 0, len(v)*int(unsafe.Sizeof(hudVertex{})), unsafe.Pointer(&v[0]))
	h.verts = v[:0]
}

// paint lays out the panel and its text (h.layout, h.grid) and paints
// them, premultiplied, into panelTex, restoring the framebuffer it found
// bound.
func (h *HUD) paint() {
	l := &h.layout
	set := l.set
	h.sizePanel(l.w, l.h)
	a := uint16(hudPanel[3])
	pre := [4]uint8{uint8(uint16(hudPanel[0]) * a / 255), uint8(uint16(hudPanel[1]) * a / 255), uint8(uint16(hudPanel[2]) * a / 255), hudPanel[3]}
	t := quad(h.text[:0], 0, 0, float32(l.w), float32(l.h), 0, 0, 0, 0, pre)
	adv := int(set.glyph('0').adv)
	for r := range l.rows {
		y := l.textTop + r*set.lineH + set.ascent // the baseline
		cells := h.grid[2*r*hudLineLen:]
		for j := range hudLineLen {
			ch := cells[2*j]
			g := set.glyph(ch)
			if g.x1 <= g.x0 {
				continue
			}
			c := hudText
			if cells[2*j+1] != 0 {
				c = hudWarn
			}
			x := l.pad + j*adv
			t = quad(t, float32(x+int(g.x0)), float32(y+int(g.y0)), float32(x+int(g.x1)), float32(y+int(g.y1)),
				float32(g.u), float32(g.v), float32(g.u+g.x1-g.x0), float32(g.v+g.y1-g.y0), c)
		}
	}
	h.text = t
	gl.BindVertexArray(uint32(h.textVAO))
	gl.BindBuffer(gl.ARRAY_BUFFER, uint32(h.textVBO))
	gl.BufferSubData(gl.ARRAY_BUFFER, 0, len(t)*int(unsafe.Sizeof(hudVertex{})), unsafe.Pointer(&t[0]))
	gl.GetIntegerv(gl.DRAW_FRAMEBUFFER_BINDING, &h.prevFBO)
	gl.BindFramebuffer(gl.DRAW_FRAMEBUFFER, h.panelFBO)
	gl.Viewport(0, 0, int32(l.w), int32(l.h))
	gl.UseProgram(uint32(h.prog))
	gl.Uniform2f(h.uViewport, float32(l.w), float32(l.h))
	gl.Uniform1i(h.uAtlas, 0)
	gl.Disable(gl.BLEND) // the texture takes the panel's premultiplied colour as it is
	gl.Uniform1i(h.uMode, 0)
	gl.DrawArrays(gl.TRIANGLES, 0, 6)
	if n := len(t) - 6; n > 0 {
		// The glyphs over it, the result premultiplied.
		gl.Enable(gl.BLEND)
		gl.BlendFuncSeparate(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA, gl.ONE, gl.ONE_MINUS_SRC_ALPHA)
		gl.ActiveTexture(gl.TEXTURE0)
		gl.BindTexture(gl.TEXTURE_2D, uint32(set.tex))
		gl.Uniform1i(h.uMode, 1)
		gl.DrawArrays(gl.TRIANGLES, 6, int32(n))
		gl.Disable(gl.BLEND)
	}
	gl.BindFramebuffer(gl.DRAW_FRAMEBUFFER, uint32(h.prevFBO))
	h.shown, h.painted = h.grid, *l
	h.paints++
}

func (h *HUD) delete() {
	h.fonts.delete()
	h.prog.Delete()
	h.blit.Delete()
	h.vao.Delete()
	h.vbo.Delete()
	h.textVAO.Delete()
	h.textVBO.Delete()
	h.panelTex.Delete()
	if h.panelFBO != 0 {
		gl.DeleteFramebuffers(1, &h.panelFBO)
		h.panelFBO = 0
	}
}
