package renderer

import (
	"math"
	"unsafe"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/renderer/interp"
	"github.com/tickframe/tickframe/simthread"
)

// OverlayRefWidth and OverlayRefHeight are the window size, in pixels, at
// which one overlay unit is one pixel (see simthread.Overlay).
const (
	OverlayRefWidth  = 1280
	OverlayRefHeight = 720
)

// overlayPass draws the world's overlay (simthread.Overlay) with the HUD's
// program and the renderer's glyph sets (font.go), into buffers of its
// own. Its vertex memory grows to the largest overlay drawn and is
// reused; a frame allocates nothing once it has, but for a text size it
// has not drawn before (a glyph set, once).
type overlayPass struct {
	hud   *HUD // the program
	fonts *glyphCache
	vao   glVertexArray
	vbo   glBuffer
	cap   int // vertices the buffer holds
	verts []hudVertex
	runs  []overlayRun
}

// overlayRun is a stretch of vertices drawn with one call: text in one
// glyph set, or flat (set nil).
type overlayRun struct {
	start, count int
	set          *glyphSet
}

func newOverlayPass(h *HUD) (*overlayPass, error) {
	o := &overlayPass{hud: h, fonts: h.fonts}
	o.vao = newVertexArray()
	gl.BindVertexArray(uint32(o.vao))
	o.vbo = newBuffer()
	gl.BindBuffer(gl.ARRAY_BUFFER, uint32(o.vbo))
	hudAttribs()
	gl.BindVertexArray(0)
	if err := checkGL("create overlay"); err != nil {
		o.delete()
		return nil, err
	}
	return o, nil
}

// OverlayScale returns the pixels per overlay unit in a width×height
// window: the smaller of width/1280 and height/720.
func OverlayScale(width, height int) float32 {
	return min(float32(width)/OverlayRefWidth, float32(height)/OverlayRefHeight)
}

// overlayTextSet returns the glyph set that text of size units (0:
// simthread.DefaultTextSize) is drawn with in a width×height window: Go
// Regular at size·OverlayScale pixels, rounded; where its longest line
// would be wider than the window, the largest smaller size at which it is
// not, or minTextPx. nil: the set could not be built.
func (o *overlayPass) overlayTextSet(size float32, text []byte, width, height int) *glyphSet {
	if !(size > 0) {
		size = simthread.DefaultTextSize
	}
	want := roundPx(size * OverlayScale(width, height))
	s := o.fonts.get(faceRegular, want)
	if s == nil {
		return nil
	}
	w, _ := s.measure(text)
	if w <= width {
		return s
	}
	// From the size in proportion to the window, down while too wide,
	// then up while the next fits.
	px := max(minTextPx, min(want-1, want*width/w))
	for {
		if s = o.fonts.get(faceRegular, px); s == nil {
			return nil
		}
		if w, _ = s.measure(text); w <= width || px <= minTextPx {
			break
		}
		px--
	}
	for ; w <= width && px+1 < want; px++ {
		n := o.fonts.get(faceRegular, px+1)
		if n == nil {
			break
		}
		if nw, _ := n.measure(text); nw > width {
			break
		}
		s = n
	}
	return s
}

// overlayColour unpacks an item's colour, 0 being white.
func overlayColour(c uint32) [4]uint8 {
	if c == 0 {
		return [4]uint8{255, 255, 255, 255}
	}
	return [4]uint8{uint8(c), uint8(c >> 8), uint8(c >> 16), uint8(c >> 24)}
}

// anchorPoint returns the window point of a window anchor and the part of
// the item's width and height that lies left of and above it.
func anchorPoint(a simthread.Anchor, w, h float32) (x, y, fx, fy float32) {
	col, row := float32(int(a)%3)/2, float32(int(a)/3)/2
	return col * w, row * h, col, row
}

func (o *overlayPass) quad(x0, y0, x1, y1, u0, v0, u1, v1 float32, c [4]uint8, set *glyphSet) {
	if n := len(o.runs); n == 0 || o.runs[n-1].set != set {
		o.runs = append(o.runs, overlayRun{start: len(o.verts), set: set})
	}
	o.verts = quad(o.verts, x0, y0, x1, y1, u0, v0, u1, v1, c)
	o.runs[len(o.runs)-1].count += 6
}

// build lays out plan.Next's overlay in a width×height window seen through
// viewProj.
func (o *overlayPass) build(plan *interp.Plan, viewProj *mgl32.Mat4, width, height int) {
	o.verts, o.runs = o.verts[:0], o.runs[:0]
	o.fonts.next()
	if !plan.Ready || plan.Next == nil {
		return
	}
	W, H := float32(width), float32(height)
	s := OverlayScale(width, height)
	items := plan.Next.Overlay.Items
	for i := range items {
		it := &items[i]
		var bw, bh float32
		var set *glyphSet
		switch it.Kind {
		case simthread.OverlayText:
			if set = o.overlayTextSet(it.Size, it.Text, width, height); set == nil {
				continue
			}
			w, lines := set.measure(it.Text)
			bw, bh = float32(w), float32(set.height(lines))
		case simthread.OverlayRect, simthread.OverlayBar:
			bw, bh = it.W*s, it.H*s
		default:
			continue
		}
		if !(bw > 0 && bh > 0) {
			continue
		}
		var x0, y0 float32
		if it.Anchor == simthread.AtBody {
			p, ok := bodyScreen(plan, it.Body, viewProj, W, H)
			if !ok {
				continue
			}
			x0, y0 = p[0]+it.X*s-bw/2, p[1]+it.Y*s-bh/2
		} else if it.Anchor < simthread.AtBody {
			ax, ay, fx, fy := anchorPoint(it.Anchor, W, H)
			x0, y0 = ax+it.X*s-fx*bw, ay+it.Y*s-fy*bh
			// Never cut off: an item that fits is kept inside.
			x0 = max(min(x0, W-bw), 0)
			y0 = max(min(y0, H-bh), 0)
		} else {
			continue
		}
		if !finite(x0, y0) {
			continue
		}
		c := overlayColour(it.Color)
		switch it.Kind {
		case simthread.OverlayRect:
			o.quad(x0, y0, x0+bw, y0+bh, 0, 0, 0, 0, c, nil)
		case simthread.OverlayBar:
			if it.Back != 0 {
				o.quad(x0, y0, x0+bw, y0+bh, 0, 0, 0, 0, overlayColour(it.Back), nil)
			}
			if f := min(max(it.Fill, 0), 1); f > 0 {
				o.quad(x0, y0, x0+bw*f, y0+bh, 0, 0, 0, 0, c, nil)
			}
		case simthread.OverlayText:
			o.text(set, it.Text, int(math.Round(float64(x0))), int(math.Round(float64(y0))), c)
		}
	}
}

// text lays out the glyphs of text from (x, y), the top left of its first
// line: each glyph where the pen is, whole pixels from the last.
func (o *overlayPass) text(set *glyphSet, text []byte, x, y int, c [4]uint8) {
	pen, base := x, y+set.ascent
	for _, ch := range text {
		if ch == '\n' {
			pen, base = x, base+set.lineH
			continue
		}
		g := set.glyph(ch)
		if g.x1 > g.x0 {
			o.quad(float32(pen+int(g.x0)), float32(base+int(g.y0)), float32(pen+int(g.x1)), float32(base+int(g.y1)),
				float32(g.u), float32(g.v), float32(g.u+g.x1-g.x0), float32(g.v+g.y1-g.y0), c, set)
		}
		pen += int(g.adv)
	}
}

// bodyScreen returns where body i of plan.Next is drawn on the screen, in
// pixels from the top left, and false when it is behind the camera or
// not in the snapshot. Its position is the renderer's (interp.BodyPose);
// in Extrapolate mode without the blended correction, which fades within
// interp.CorrectionTime.
func bodyScreen(plan *interp.Plan, i int, viewProj *mgl32.Mat4, w, h float32) (mgl32.Vec2, bool) {
	pose, ok, _ := interp.BodyPose(plan, i, nil)
	if !ok {
		return mgl32.Vec2{}, false
	}
	clip := viewProj.Mul4x1(pose.Pos.Vec4(1))
	if !(clip[3] > 0) {
		return mgl32.Vec2{}, false
	}
	return mgl32.Vec2{(clip[0]/clip[3] + 1) / 2 * w, (1 - clip[1]/clip[3]) / 2 * h}, true
}

// draw draws the overlay of plan.Next over the resolved frame.
func (o *overlayPass) draw(plan *interp.Plan, viewProj *mgl32.Mat4, width, height int) {
	o.build(plan, viewProj, width, height)
	if len(o.verts) == 0 {
		return
	}
	h := o.hud
	stride := int(unsafe.Sizeof(hudVertex{}))
	gl.BindVertexArray(uint32(o.vao))
	gl.BindBuffer(gl.ARRAY_BUFFER, uint32(o.vbo))
	if len(o.verts) > o.cap {
		o.cap = cap(o.verts)
		gl.BufferData(gl.ARRAY_BUFFER, o.cap*stride, nil, gl.STREAM_DRAW)
	}
	gl.BufferSubData(gl.ARRAY_BUFFER, 0, len(o.verts)*stride, unsafe.Pointer(&o.verts[0]))
	gl.Disable(gl.DEPTH_TEST)
	gl.Disable(gl.CULL_FACE)
	gl.Enable(gl.BLEND)
	// Over, for the colour and the alpha: an opaque frame stays opaque
	// under a glyph's partly covered edge (a screenshot's alpha).
	gl.BlendFuncSeparate(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA, gl.ONE, gl.ONE_MINUS_SRC_ALPHA)
	gl.UseProgram(uint32(h.prog))
	gl.Uniform2f(h.uViewport, float32(width), float32(height))
	gl.Uniform1i(h.uAtlas, 0)
	gl.ActiveTexture(gl.TEXTURE0)
	for _, run := range o.runs {
		mode := int32(0)
		if run.set != nil {
			mode = 1
			gl.BindTexture(gl.TEXTURE_2D, uint32(run.set.tex))
		}
		gl.Uniform1i(h.uMode, mode)
		gl.DrawArrays(gl.TRIANGLES, int32(run.start), int32(run.count))
	}
	debugCheck("draw overlay")
	gl.BindVertexArray(0)
	gl.Disable(gl.BLEND)
	gl.Enable(gl.DEPTH_TEST)
}

func (o *overlayPass) delete() {
	o.vao.Delete()
	o.vbo.Delete()
}
