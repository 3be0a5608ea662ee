package renderer

import (
	"math"
	"unsafe"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/simthread"
)

// overlayRefWidth and overlayRefHeight are the window size, in pixels, at
// which one overlay unit is one pixel (see simthread.Overlay).
const (
	overlayRefWidth  = 1280
	overlayRefHeight = 720
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
	// tested and depth are the item being laid out's depth test and
	// depth (see quad); built says the frame's overlay is laid out
	// (drawScene), for draw.
	tested bool
	depth  float32
	built  bool
	// uploaded says verts are in the buffer.
	uploaded bool
}

// overlayRun is a stretch of vertices drawn with one call: text in one
// glyph set, or flat (set nil); with tested, a depth-tested item's, at
// depth (a depth buffer's value), one run an item.
type overlayRun struct {
	start, count int
	set          *glyphSet
	tested       bool
	depth        float32
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

// overlayScale returns the pixels per overlay unit in a width×height
// window: the smaller of width/1280 and height/720.
func overlayScale(width, height int) float32 {
	return min(float32(width)/overlayRefWidth, float32(height)/overlayRefHeight)
}

// overlayTextSet returns the glyph set that text of size units (0:
// simthread.DefaultTextSize) is drawn with in a width×height window: Go
// Regular at size·overlayScale pixels, rounded; where its longest line
// would be wider than the window, the largest smaller size at which it is
// not, or minTextPx. nil: the set could not be built.
func (o *overlayPass) overlayTextSet(size float32, text []byte, width, height int) *glyphSet {
	if !(size > 0) {
		size = simthread.DefaultTextSize
	}
	want := roundPx(size * overlayScale(width, height))
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
	if n := len(o.runs); n == 0 || o.runs[n-1].set != set || o.runs[n-1].tested != o.tested || o.runs[n-1].depth != o.depth {
		o.runs = append(o.runs, overlayRun{start: len(o.verts), set: set, tested: o.tested, depth: o.depth})
	}
	o.verts = quad(o.verts, x0, y0, x1, y1, u0, v0, u1, v1, c)
	o.runs[len(o.runs)-1].count += 6
}

// build lays out plan.Next's overlay in a width×height window seen through
// viewProj.
func (o *overlayPass) build(plan *Plan, viewProj *mgl32.Mat4, width, height int) {
	o.verts, o.runs = o.verts[:0], o.runs[:0]
	o.uploaded = false
	o.fonts.next()
	if !plan.Ready || plan.Next == nil {
		return
	}
	W, H := float32(width), float32(height)
	s := overlayScale(width, height)
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
		o.tested, o.depth = false, 0
		if it.Anchor == simthread.AtBody || it.Anchor == simthread.AboveBody {
			at, ok := bodyAnchor(plan, it.Body, it.Anchor == simthread.AboveBody, viewProj, W, H)
			if !ok {
				continue
			}
			x0, y0 = at.x+it.X*s-bw/2, at.y+it.Y*s-bh/2
			if it.Anchor == simthread.AboveBody {
				y0 = at.y + it.Y*s - bh
			}
			if it.DepthTest {
				o.tested, o.depth = true, at.depth // runs of its own (quad)
			}
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

// bodyPoint is where an item anchored to a body is placed: x, y in
// pixels from the window's top left, and the depth buffer's value that a
// depth-tested item is drawn at.
type bodyPoint struct{ x, y, depth float32 }

// labelNearer is how much nearer the eye than its body's bounding sphere
// a depth-tested item stands, as a part of the body's distance: 0.2 %,
// as lines are drawn (line.vert), so that the body's own front does not
// hide an item centred on it.
const labelNearer = 0.002

// bodyAnchor returns where an item anchored to body i of plan.Next is
// placed: the body's position projected (AtBody), or with above, the top
// of its bounding sphere's projection straight above it (AboveBody); and
// false when the body is behind the camera or not in the snapshot, or
// with above, when the eye is within the sphere's radius of its depth.
// Its position is the renderer's (BodyPose); in Extrapolate mode
// without the blended correction, which fades within the planner's
// correction time (50 ms).
//
// The top is exact for a perspective view: the rows of the screen are the
// planes through the eye along its x axis, and the top of the sphere's
// outline is the highest of the two such planes that touch it, a root of
// a quadratic in the row's NDC y.
func bodyAnchor(plan *Plan, i int, above bool, viewProj *mgl32.Mat4, w, h float32) (bodyPoint, bool) {
	pose, ok, _ := BodyPose(plan, i, nil)
	if !ok {
		return bodyPoint{}, false
	}
	clip := viewProj.Mul4x1(pose.Pos.Vec4(1))
	if !(clip[3] > 0) {
		return bodyPoint{}, false
	}
	p := bodyPoint{x: (clip[0]/clip[3] + 1) / 2 * w, y: (1 - clip[1]/clip[3]) / 2 * h}
	r := float64(bodyRadius(plan.Next.Bodies[i].Scale))
	// In float64: c the clip coordinates of the centre, a1, a2, a3 the
	// world directions of clip y, z and w (a3 is the view's axis, a unit
	// vector; a2 is a3 times the projection's depth slope).
	m := viewProj
	row := func(k int) (d [3]float64, c float64) {
		d = [3]float64{float64(m.At(k, 0)), float64(m.At(k, 1)), float64(m.At(k, 2))}
		c = d[0]*float64(pose.Pos[0]) + d[1]*float64(pose.Pos[1]) + d[2]*float64(pose.Pos[2]) + float64(m.At(k, 3))
		return d, c
	}
	a1, c1 := row(1)
	a2, c2 := row(2)
	a3, c3 := row(3)
	dot := func(a, b [3]float64) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
	l3 := math.Sqrt(dot(a3, a3))
	// The depth of the sphere's near side, labelNearer of its distance
	// nearer: moving δ towards the eye along the view's axis takes δ·|a3|
	// from clip w and δ·|a2| from clip z. Where that crosses the near
	// plane, the near plane's depth, 0.
	d := r + labelNearer*c3/l3
	if w := c3 - d*l3; w > 0 {
		p.depth = float32(max(0, min(1, ((c2-d*math.Sqrt(dot(a2, a2)))/w+1)/2)))
	}
	if above {
		// Rows y: (c1 − y·c3)² = r²·|a1 − y·a3|².
		A := c3*c3 - r*r*dot(a3, a3)
		B := c1*c3 - r*r*dot(a1, a3)
		C := c1*c1 - r*r*dot(a1, a1)
		disc := B*B - A*C
		if !(A > 0) || disc < 0 {
			return bodyPoint{}, false
		}
		top := (B + math.Sqrt(disc)) / A
		p.y = float32((1 - top) / 2 * float64(h))
	}
	return p, true
}

// bodyRadius is the radius of a body's bounding sphere for AboveBody: its
// Scale's largest component, the zero Scale being 1.
func bodyRadius(s mgl32.Vec3) float32 {
	if s == (mgl32.Vec3{}) {
		return 1
	}
	return max(abs32(s[0]), abs32(s[1]), abs32(s[2]))
}

func abs32(x float32) float32 { return float32(math.Abs(float64(x))) }

// drawScene lays out the overlay of plan.Next and draws its depth-tested
// items into the scene's target, before it is resolved, each at its depth
// against the scene's depth buffer (without writing it): the HUD
// program's quads lie at NDC z 0, which a depth range of [d, d] puts at
// depth d. draw draws the rest once the frame is resolved.
func (o *overlayPass) drawScene(plan *Plan, viewProj *mgl32.Mat4, width, height int) {
	o.build(plan, viewProj, width, height)
	o.built = true
	o.drawRuns(width, height, true)
}

// draw draws the overlay of plan.Next, but for its depth-tested items
// (drawScene), over the resolved frame.
func (o *overlayPass) draw(plan *Plan, viewProj *mgl32.Mat4, width, height int) {
	if !o.built {
		o.build(plan, viewProj, width, height)
	}
	o.built = false
	o.drawRuns(width, height, false)
}

// drawRuns draws the runs laid out whose tested is tested.
func (o *overlayPass) drawRuns(width, height int, tested bool) {
	has := false
	for i := range o.runs {
		has = has || o.runs[i].tested == tested
	}
	if !has {
		return
	}
	h := o.hud
	stride := int(unsafe.Sizeof(hudVertex{}))
	gl.BindVertexArray(uint32(o.vao))
	gl.BindBuffer(gl.ARRAY_BUFFER, uint32(o.vbo))
	if !o.uploaded {
		if len(o.verts) > o.cap {
			o.cap = cap(o.verts)
			gl.BufferData(gl.ARRAY_BUFFER, o.cap*stride, nil, gl.STREAM_DRAW)
		}
		gl.BufferSubData(gl.ARRAY_BUFFER, 0, len(o.verts)*stride, unsafe.Pointer(&o.verts[0]))
		o.uploaded = true
	}
	if tested {
		gl.Enable(gl.DEPTH_TEST)
		gl.DepthFunc(gl.LEQUAL)
		gl.DepthMask(false)
	} else {
		gl.Disable(gl.DEPTH_TEST)
	}
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
		if run.tested != tested {
			continue
		}
		if tested {
			gl.DepthRange(float64(run.depth), float64(run.depth))
		}
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
	if tested {
		gl.DepthRange(0, 1)
		gl.DepthFunc(gl.LESS)
		gl.DepthMask(true)
	}
}

func (o *overlayPass) delete() {
	o.vao.Delete()
	o.vbo.Delete()
}
