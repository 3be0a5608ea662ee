package renderer_test

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"testing"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/renderer/internal/gltest"
	"github.com/tickframe/tickframe/simthread"
)

var lineRed = simthread.RGB(255, 0, 0)

// isLineRed reports whether a pixel is the lines' pure red (no body, sky
// or ground is).
func isLineRed(c color.RGBA) bool { return c.R > 200 && c.G < 60 && c.B < 60 }

// redRun returns the number of red pixels in column x (or row y, with
// across false) of img, and their mean row (column).
func redRun(img *image.RGBA, at int, column bool) (n int, mean float64) {
	lim := img.Rect.Dy()
	if !column {
		lim = img.Rect.Dx()
	}
	for i := range lim {
		x, y := at, i
		if !column {
			x, y = i, at
		}
		if isLineRed(img.RGBAAt(x, y)) {
			n++
			mean += float64(i)
		}
	}
	if n > 0 {
		mean /= float64(n)
	}
	return n, mean
}

// linesFrame draws one frame of snapshots a (older) and b at alpha and
// reads it back.
func linesFrame(r *renderer.Renderer, cam renderer.Camera, seq *uint64, a, b *simthread.Snapshot, alpha float32) (*image.RGBA, error) {
	*seq += 2
	a.Tick, b.Tick = *seq-1, *seq
	plan := renderer.Plan{Prev: a, Next: b, PrevSeq: *seq - 1, NextSeq: *seq, Alpha: alpha, Ready: true, Span: 0.01}
	return render(r, plan, cam)
}

// keepPNG writes img to $TICKFRAME_LINES_PNG when it is set, to look at.
func keepPNG(img image.Image) {
	if path := os.Getenv("TICKFRAME_LINES_PNG"); path != "" {
		if f, err := os.Create(path); err == nil {
			png.Encode(f, img)
			f.Close()
		}
	}
}

// TestLineWidthInPixels draws lines of 1, 3 and 6 pixels, level and
// upright, 5 m and 50 m from the camera, and counts the red pixels across
// each on the read-back frame: exactly the width at both distances. (A
// line whose quad is sized in world units is ten times thinner at 50 m.)
func TestLineWidthInPixels(t *testing.T) {
	onMain(t, func(*gltest.Window) error {
		r, err := newTestRenderer()
		if err != nil {
			return err
		}
		defer r.Delete()
		r.SetGroundVisible(false)
		cam := frontCamera() // the eye at (0, 5, 10), looking along −z
		var seq uint64
		for _, dist := range []float32{5, 50} {
			for _, w := range []float32{1, 3, 6} {
				z := 10 - dist
				// Off the pixel grid, so that no pixel centre lies on an edge.
				y0, x0 := 5+0.0123*dist, 0.0217*dist
				s := &simthread.Snapshot{}
				s.Lines.Segment(simthread.LineEnd{Pos: mgl32.Vec3{-dist, y0, z}}, simthread.LineEnd{Pos: mgl32.Vec3{dist, y0, z}}, w, lineRed)
				s.Lines.Polyline([]mgl32.Vec3{{x0, -dist, z}, {x0, 5 + dist, z}}, w, lineRed)
				img, err := linesFrame(r, cam, &seq, s, s, 1)
				if err != nil {
					return err
				}
				if dist == 50 && w == 3 {
					keepPNG(img)
				}
				// Across the level line, away from the upright one, and
				// across the upright line, away from the level one.
				for _, c := range []struct {
					at     int
					column bool
				}{{100, true}, {380, true}, {60, false}, {260, false}} {
					if n, _ := redRun(img, c.at, c.column); n != int(w) {
						return fmt.Errorf("a %v px line %v m away is %d px wide (column %v at %d)%s", w, dist, n, c.column, c.at, saveFailure(img))
					}
				}
			}
		}
		return gl2err(gl.GetError())
	})
}

// TestLineDepth draws a cube with a line behind it, one in front and one
// on its front face: where the cube covers the line behind, the cube is
// drawn; the other two are drawn over it.
func TestLineDepth(t *testing.T) {
	onMain(t, func(*gltest.Window) error {
		r, err := newTestRenderer()
		if err != nil {
			return err
		}
		defer r.Delete()
		r.SetGroundVisible(false)
		cam := frontCamera()
		var seq uint64
		blue := simthread.RGB(0, 0, 255)
		for _, c := range []struct {
			name  string
			z     float32
			shown bool
		}{{"behind", -3, false}, {"in front", 3, true}, {"on the face", 1, true}} {
			s := &simthread.Snapshot{Bodies: []simthread.Body{{Pos: mgl32.Vec3{0, 5, 0}, Color: blue}}}
			s.Lines.Segment(simthread.LineEnd{Pos: mgl32.Vec3{-8, 5.01, c.z}}, simthread.LineEnd{Pos: mgl32.Vec3{8, 5.01, c.z}}, 3, lineRed)
			img, err := linesFrame(r, cam, &seq, s, s, 1)
			if err != nil {
				return err
			}
			if c.name == "behind" {
				keepPNG(img)
			}
			// The cube's face, 9 m away, spans columns 202 to 278; the line
			// behind it 28 to 452.
			if n, _ := redRun(img, 240, true); (n > 0) != c.shown {
				return fmt.Errorf("a line %s the cube: %d red pixels where the cube is, want shown %v%s", c.name, n, c.shown, saveFailure(img))
			}
			if n, _ := redRun(img, 60, true); n != 3 {
				return fmt.Errorf("a line %s the cube: %d red pixels beside the cube, want 3%s", c.name, n, saveFailure(img))
			}
		}
		return gl2err(gl.GetError())
	})
}

// TestLineFollowsInterpolatedBody draws a segment from a fixed point to a
// point above body 0 while the body moves between two snapshots (the
// body a sphere, listed before a cube: the renderer groups them, so its
// pose is not where its index says), at alpha 0.25: the line's far end
// must be where the camera projects the body's interpolated position, not
// the newer snapshot's. The same with Hermite motion, and free ends:
// lerped vertex by vertex while the two snapshots hold as many segments,
// the newer snapshot's when they do not.
func TestLineFollowsInterpolatedBody(t *testing.T) {
	onMain(t, func(*gltest.Window) error {
		r, err := newTestRenderer()
		if err != nil {
			return err
		}
		defer r.Delete()
		r.SetGroundVisible(false)
		sphere, err := r.AddMesh(renderer.SphereMesh(12, 6))
		if err != nil {
			return err
		}
		cam := frontCamera()
		var seq uint64
		black := simthread.RGB(0, 0, 0)
		from, to := mgl32.Vec3{-2, 4, 0}, mgl32.Vec3{2, 6, 0}
		fixed, off := mgl32.Vec3{-4, 2.5, 0}, mgl32.Vec3{0, 0.8, 0}
		snap := func(p mgl32.Vec3) *simthread.Snapshot {
			s := &simthread.Snapshot{Bodies: []simthread.Body{
				{Pos: p, Mesh: sphere, Color: black, Scale: simthread.UniformScale(0.15)},
				{Pos: mgl32.Vec3{0, -50, 0}, Color: black}, // a cube, out of sight
			}}
			s.Lines.Segment(simthread.LineEnd{Pos: fixed}, simthread.LineEnd{OnBody: true, Body: 0, Pos: off}, 3, lineRed)
			return s
		}
		for _, motion := range []renderer.MotionMode{renderer.MotionLerp, renderer.MotionHermite} {
			const alpha = 0.25
			a, b := snap(from), snap(to)
			seq += 2
			a.Tick, b.Tick = seq-1, seq
			plan := renderer.Plan{Prev: a, Next: b, PrevSeq: seq - 1, NextSeq: seq, Alpha: alpha, Ready: true, Span: 0.01, Motion: motion}
			img, err := render(r, plan, cam)
			if err != nil {
				return err
			}
			if motion == renderer.MotionLerp {
				keepPNG(img)
			}
			fx, fy, _ := project(cam, fixed, width, height)
			// The red pixel farthest from the fixed end is the far end's
			// cap: within half the width (and a pixel) of the end.
			far, best := image.Point{}, -1.0
			for y := range height {
				for x := range width {
					if isLineRed(img.RGBAAt(x, y)) {
						if d := math.Hypot(float64(x)+0.5-float64(fx), float64(y)+0.5-float64(fy)); d > best {
							far, best = image.Pt(x, y), d
						}
					}
				}
			}
			end := func(p mgl32.Vec3) float64 {
				ex, ey, _ := project(cam, p.Add(off), width, height)
				// The cap reaches 1.5 px past the end along the line.
				return math.Hypot(float64(far.X)+0.5-float64(ex), float64(far.Y)+0.5-float64(ey))
			}
			if d := end(renderer.Lerp(from, to, alpha)); best < 0 || d > 3 {
				return fmt.Errorf("%v: the tied end is drawn at %v, %.1f px from the body's interpolated place%s", motion, far, d, saveFailure(img))
			}
			if d := end(to); d < 20 {
				return fmt.Errorf("%v: the check cannot tell the interpolated place from the newer snapshot's (%.1f px apart)", motion, d)
			}
		}

		// Free ends: a level segment from y = 3 to y = 7.
		level := func(y float32, extra bool) *simthread.Snapshot {
			s := &simthread.Snapshot{}
			s.Lines.Segment(simthread.LineEnd{Pos: mgl32.Vec3{-3, y, 0}}, simthread.LineEnd{Pos: mgl32.Vec3{3, y, 0}}, 3, lineRed)
			if extra {
				s.Lines.Segment(simthread.LineEnd{Pos: mgl32.Vec3{0, -90, 0}}, simthread.LineEnd{Pos: mgl32.Vec3{1, -90, 0}}, 3, lineRed)
			}
			return s
		}
		for _, c := range []struct {
			name  string
			extra bool
			wantY float32
		}{{"as many segments", false, 4}, {"one more segment", true, 7}} {
			img, err := linesFrame(r, cam, &seq, level(3, false), level(7, c.extra), 0.25)
			if err != nil {
				return err
			}
			_, wy, _ := project(cam, mgl32.Vec3{0, c.wantY, 0}, width, height)
			if n, y := redRun(img, 240, true); n != 3 || math.Abs(y+0.5-float64(wy)) > 1 {
				return fmt.Errorf("free ends, %s: %d red pixels about row %.1f, want 3 about %.1f%s", c.name, n, y+0.5, wy, saveFailure(img))
			}
		}
		return gl2err(gl.GetError())
	})
}

// linesWorld writes ten orbits, a 64-point trail tied to body 0, a box and
// a ray into s's lines, reusing their memory.
func linesWorld(s *simthread.Snapshot, phase float32, trail []mgl32.Vec3) {
	l := &s.Lines
	l.Reset()
	for i := range 10 {
		r := float32(i + 1)
		l.Ellipse(mgl32.Vec3{0, 5, 0}, mgl32.Vec3{r, 0, 0}, mgl32.Vec3{0, 0.3 * r, 0.8 * r}, 1+float32(i%3), simthread.RGB(80, 120, 255))
	}
	for i := range trail {
		t := phase - float32(len(trail)-i)*0.05
		trail[i] = mgl32.Vec3{3 * float32(math.Cos(float64(t))), 5, 3 * float32(math.Sin(float64(t)))}
	}
	l.Polyline(trail, 3, simthread.RGB(255, 200, 0))
	l.Segment(simthread.LineEnd{Pos: trail[len(trail)-1]}, simthread.LineEnd{OnBody: true}, 3, simthread.RGB(255, 200, 0))
	l.Box(mgl32.Vec3{-1, 4, -1}, mgl32.Vec3{1, 6, 1}, 2, 0)
	l.Ray(simthread.LineEnd{OnBody: true}, mgl32.Vec3{0, 1, -1}, 1, lineRed)
	s.Bodies = append(s.Bodies[:0], simthread.Body{Pos: mgl32.Vec3{3 * float32(math.Cos(float64(phase))), 5, 3 * float32(math.Sin(float64(phase)))}, Scale: simthread.UniformScale(0.2)})
}

// TestLinesFrameDoesNotAllocate draws frames that each get a new snapshot
// of 1 344 segments (orbits, a trail tied to a body, a box, a ray) and
// counts heap allocations once the buffers have grown: none.
func TestLinesFrameDoesNotAllocate(t *testing.T) {
	onMain(t, func(*gltest.Window) error {
		r, err := newTestRenderer()
		if err != nil {
			return err
		}
		defer r.Delete()
		cam := frontCamera()
		var snaps [3]simthread.Snapshot
		trail := make([]mgl32.Vec3, 64)
		var seq uint64
		frame := func() {
			a, b := &snaps[seq%3], &snaps[(seq+1)%3]
			linesWorld(b, float32(seq)*0.05, trail)
			seq += 2
			b.Tick = seq
			plan := renderer.Plan{Prev: a, Next: b, PrevSeq: seq - 1, NextSeq: seq, Alpha: 0.5, Ready: true, Span: 0.01}
			if e := r.Draw(&plan, &cam, width, height); err == nil {
				err = e
			}
		}
		for range 10 {
			frame()
		}
		if n := testing.AllocsPerRun(50, frame); n != 0 || err != nil {
			return fmt.Errorf("a frame with new lines allocates %.1f times (err %v)", n, err)
		}
		img, err := renderer.ReadFrame(nil, width, height)
		if err != nil {
			return err
		}
		keepPNG(img)
		return err
	})
}

// BenchmarkGLLines measures Renderer.Draw of frames that each get a new
// snapshot of lines (upload and draw, plus gl.Finish), a body and
// segments=N of orbits (0: the frame without lines), 320×240 without
// MSAA: 0 allocs/op. Under llvmpipe ns/op is the software GPU's.
func BenchmarkGLLines(b *testing.B) {
	if os.Getenv("DISPLAY") == "" {
		b.Skip("needs a display: run `make test`, which starts Xvfb, or set DISPLAY")
	}
	for _, orbits := range []int{0, 8, 80} {
		b.Run(fmt.Sprintf("segments=%d", orbits*128), func(b *testing.B) {
			var err error
			gltest.Call(func() {
				var w *gltest.Window
				if w, err = gltest.Open(b.Name(), 320, 240, false); err != nil {
					return
				}
				defer w.Close()
				var r *renderer.Renderer
				if r, err = newTestRenderer(); err != nil {
					return
				}
				defer r.Delete()
				cam := frontCamera()
				var snaps [3]simthread.Snapshot
				var seq uint64
				frame := func() {
					a, s := &snaps[seq%3], &snaps[(seq+1)%3]
					s.Bodies = append(s.Bodies[:0], simthread.Body{Pos: mgl32.Vec3{0, 5, 0}})
					s.Lines.Reset()
					for i := range orbits {
						k := float32(i+1) * 0.1
						s.Lines.Ellipse(mgl32.Vec3{0, 5, 0}, mgl32.Vec3{k, 0, 0}, mgl32.Vec3{0, 0.5 * k, float32(seq%7) * 0.1}, 2, 0)
					}
					seq += 2
					plan := renderer.Plan{Prev: a, Next: s, PrevSeq: seq - 1, NextSeq: seq, Alpha: 0.5, Ready: true, Span: 0.01}
					if e := r.Draw(&plan, &cam, 320, 240); e != nil {
						err = e
					}
					gl.Finish()
				}
				loopFrames(b, frame)
			})
			if err != nil {
				b.Fatal(err)
			}
		})
	}
}

// loopFrames times frame, a whole drawn frame, after five to warm the
// driver's caches and the renderer's buffers, counting allocations.
func loopFrames(b *testing.B, frame func()) {
	b.Helper()
	for range 5 {
		frame()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		frame()
	}
}
