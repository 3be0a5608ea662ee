package renderer_test

import (
	"fmt"
	"image"
	"math"
	"os"
	"testing"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/renderer/internal/gltest"
	"github.com/tickframe/tickframe/simthread"
)

// shadowScene is what the shadow tests draw: the default cube, 2 m on a
// side, its centre at shadowCube, above the plain ground, seen from above
// at an angle, lit by a white sun of intensity 1.9 and the full sky.
type shadowScene struct {
	r     *renderer.Renderer
	cam   renderer.Camera
	seq   uint64
	snaps [3]simthread.Snapshot
}

var shadowCube = mgl32.Vec3{0, 3, 0}

// cubeHalf is the cube's half-extent, metres.
const cubeHalf = 1

func newShadowScene(r *renderer.Renderer) *shadowScene {
	cam := renderer.DefaultCamera()
	cam.Target, cam.Yaw, cam.Pitch, cam.Distance = mgl32.Vec3{0, 0, 0}, 0.3, 1.1, 9
	return &shadowScene{r: r, cam: cam}
}

// sun is a white sun of intensity 1.9 towards dir, shadows on or off,
// over a radius of 8 m about the origin.
func sun(dir mgl32.Vec3, shadows bool) simthread.DirLight {
	return simthread.DirLight{Dir: dir, Color: mgl32.Vec3{1, 1, 1}, Intensity: 1.9, Shadows: shadows, ShadowRadius: 8}
}

// cubeAt is the default cube of half-extent cubeHalf centred at p.
func cubeAt(p mgl32.Vec3) simthread.Body {
	return simthread.Body{Pos: p, Rot: ident, Scale: simthread.UniformScale(cubeHalf), Color: simthread.White}
}

// frame draws the cube at prevPos then at nextPos (alpha between them)
// under light and reads the frame back.
func (sc *shadowScene) frame(prevPos, nextPos mgl32.Vec3, alpha float32, light simthread.DirLight) (*image.RGBA, error) {
	prev, next := &sc.snaps[sc.seq%3], &sc.snaps[(sc.seq+1)%3]
	sc.seq += 2
	for i, s := range []*simthread.Snapshot{prev, next} {
		s.Bodies = append(s.Bodies[:0], cubeAt([]mgl32.Vec3{prevPos, nextPos}[i]))
		s.Lights.Reset()
		s.Lights.Sun = light
	}
	prev.Tick, next.Tick = sc.seq-1, sc.seq
	plan := renderer.Plan{Prev: prev, Next: next, PrevSeq: sc.seq - 1, NextSeq: sc.seq, Alpha: alpha, Ready: true, Span: 0.01}
	return render(sc.r, plan, sc.cam)
}

// groundLit is the red channel, linear, of the plain ground at p (the
// middle of a grid cell) as ground.frag shades it: its base 0.16 × (the
// sky's 0.45 + 0.9 × the sun's n·l × share, the share 1 lit and 0 in
// shadow, for a white sun of intensity 1.9), then the fog towards the
// eye.
func groundLit(p, eye, dir mgl32.Vec3, share float64) float64 {
	nl := math.Max(float64(dir.Normalize()[1]), 0)
	c := 0.16 * (0.45 + 0.9*nl*share)
	f := math.Min(float64(p.Sub(eye).Len())/90, 1)
	return c + (0.055-c)*f*f
}

// inShadow reports whether the ray from p towards the sun (dir) meets the
// cube centred at c (half-extent cubeHalf), by the slab test.
func inShadow(p, dir, c mgl32.Vec3) bool {
	lo, hi := 0.0, math.Inf(1)
	for k := range 3 {
		a, b := float64(c[k]-cubeHalf-p[k]), float64(c[k]+cubeHalf-p[k])
		if d := float64(dir[k]); d == 0 {
			if a > 0 || b < 0 {
				return false
			}
		} else {
			t0, t1 := a/d, b/d
			lo, hi = math.Max(lo, math.Min(t0, t1)), math.Min(hi, math.Max(t0, t1))
		}
	}
	return lo <= hi
}

// checkGround reads the middle of every grid cell from −4 to 4 m in x and
// z: each the cube shadows (by the projection along the sun, a cell 15 cm
// or more inside the shadow's edge) reads groundLit with no sun, each
// other one (15 cm or more outside) groundLit in full sun. Cells the cube
// hides from the camera (or nearly) are skipped; it returns how many shadowed cells
// it read. With shadows false, every cell reads full sun.
func (sc *shadowScene) checkGround(img *image.RGBA, cube, dir mgl32.Vec3, shadows bool) (shadowed int, err error) {
	eye := sc.cam.Eye()
	for i := -4; i < 4; i++ {
		for k := -4; k < 4; k++ {
			p := mgl32.Vec3{float32(i) + 0.5, 0, float32(k) + 0.5}
			x, y, ok := project(sc.cam, p, width, height)
			if !ok || x < 0 || y < 0 || x >= width || y >= height {
				continue
			}
			hidden := false
			for _, d := range [][2]float32{{0, 0}, {0.15, 0}, {-0.15, 0}, {0, 0.15}, {0, -0.15}} {
				q := p.Add(mgl32.Vec3{d[0], 0, d[1]})
				hidden = hidden || inShadow(q, eye.Sub(q), cube) // the cube is between it and the eye
			}
			if hidden {
				continue
			}
			in := shadows && inShadow(p, dir, cube)
			edge := false
			for _, d := range [][2]float32{{0.15, 0}, {-0.15, 0}, {0, 0.15}, {0, -0.15}} {
				if shadows && inShadow(p.Add(mgl32.Vec3{d[0], 0, d[1]}), dir, cube) != in {
					edge = true
				}
			}
			if edge {
				continue
			}
			share := 1.0
			if in {
				share, shadowed = 0, shadowed+1
			}
			want := groundLit(p, eye, dir, share)
			got := srgbToLinear(img.RGBAAt(int(x), int(y)).R)
			if !closeTo(got, want) {
				err = fmt.Errorf("sun %v: ground at %v (shadowed %v) reads %.4f, want %.4f%s", dir, p, in, got, want, saveFailure(img))
			}
		}
	}
	return shadowed, err
}

// TestShadowOnTheGround: with shadows on, the cube casts its shadow on
// the ground where the projection along the sun puts it, for a sun
// straight down and two slanting ones; the shadowed ground reads the
// ground's shading without the sun's term (the sky's alone), the rest
// with it, each within an 8-bit step or two of the closed form. The same
// frames with shadows off read full sun everywhere. It draws with the
// default map (1024² on llvmpipe) and a 2048² one; New refuses a map of
// -1, 8 or 2³⁰ texels a side.
func TestShadowOnTheGround(t *testing.T) {
	onMain(t, func(*gltest.Window) error {
		for _, size := range []int{0, 2048} {
			r, err := renderer.New(simthread.DefaultHistory, renderer.Options{Samples: -1, ShadowMap: size})
			if err != nil {
				return err
			}
			r.HUD().Visible = false
			err = shadowsOnTheGround(t, r, size)
			r.Delete()
			if err != nil {
				return err
			}
		}
		// A map too small or larger than the driver's textures is refused.
		for _, size := range []int{-1, 8, 1 << 30} {
			if r, err := renderer.New(simthread.DefaultHistory, renderer.Options{Samples: -1, ShadowMap: size}); err == nil {
				r.Delete()
				t.Errorf("a shadow map of %d texels a side is accepted", size)
			}
		}
		return nil
	})
}

func shadowsOnTheGround(t *testing.T, r *renderer.Renderer, size int) error {
	sc := newShadowScene(r)
	for _, dir := range []mgl32.Vec3{{0, 1, 0}, {1, 2, 0}, {-1, 2, 1}} {
		img, err := sc.frame(shadowCube, shadowCube, 1, sun(dir, true))
		if err != nil {
			return err
		}
		n, err := sc.checkGround(img, shadowCube, dir, true)
		if err != nil {
			t.Errorf("map %d: %v", size, err)
		}
		if n == 0 {
			t.Errorf("map %d, sun %v: no shadowed cell in view", size, dir)
		}
		t.Logf("map %d, sun %v: %d shadowed cells read", size, dir, n)
		if img, err = sc.frame(shadowCube, shadowCube, 1, sun(dir, false)); err != nil {
			return err
		}
		if _, err := sc.checkGround(img, shadowCube, dir, false); err != nil {
			t.Errorf("map %d, shadows off: %v", size, err)
		}
	}
	return nil
}

// TestShadowFollowsTheInterpolatedPose: the cube moves from x = −4 to
// x = 4 between two snapshots, drawn half-way; its shadow, under a sun
// straight down, is under x = 0, where the frame draws it, not under
// either snapshot's pose: the depth pass draws the interpolation pass's
// output. (A shadow pass drawing the newer snapshot's pose was checked to
// fail.)
func TestShadowFollowsTheInterpolatedPose(t *testing.T) {
	onMain(t, func(*gltest.Window) error {
		r, err := newTestRenderer()
		if err != nil {
			return err
		}
		defer r.Delete()
		sc := newShadowScene(r)
		from, to := shadowCube.Add(mgl32.Vec3{-4, 0, 0}), shadowCube.Add(mgl32.Vec3{4, 0, 0})
		dir := mgl32.Vec3{0, 1, 0}
		img, err := sc.frame(from, to, 0.5, sun(dir, true))
		if err != nil {
			return err
		}
		if n, err := sc.checkGround(img, shadowCube, dir, true); err != nil || n == 0 {
			return fmt.Errorf("cube drawn half-way: %d shadowed cells read (%v)", n, err)
		}
		return nil
	})
}

// TestShadowNoAcne: under a slanting sun, the faces of the cube that face
// it read the same with shadows on as off (within an 8-bit step), at
// nine points of each: no surface shadows itself. With the normal and
// depth offsets off, the same test fails (acne), which proves that it
// can.
func TestShadowNoAcne(t *testing.T) {
	onMain(t, func(*gltest.Window) error {
		r, err := newTestRenderer()
		if err != nil {
			return err
		}
		defer r.Delete()
		sc := newShadowScene(r)
		dir := mgl32.Vec3{1, 2, 0.5}
		acne := func() (int, error) {
			on, err := sc.frame(shadowCube, shadowCube, 1, sun(dir, true))
			if err != nil {
				return 0, err
			}
			on = copyImage(on)
			off, err := sc.frame(shadowCube, shadowCube, 1, sun(dir, false))
			if err != nil {
				return 0, err
			}
			bad := 0
			for _, face := range []mgl32.Vec3{{0, 1, 0}, {1, 0, 0}, {0, 0, 1}} { // the top, the sunward side, the side facing the camera
				for i := -1; i <= 1; i++ {
					for k := -1; k <= 1; k++ {
						// Two axes across the face, 0.6 m apart.
						u := mgl32.Vec3{face[1] + face[2], face[0], 0}
						w := face.Cross(u)
						p := shadowCube.Add(face.Mul(cubeHalf)).Add(u.Mul(0.6 * float32(i))).Add(w.Mul(0.6 * float32(k)))
						a, err := pixelAt(on, sc.cam, p)
						if err != nil {
							return 0, err
						}
						b, _ := pixelAt(off, sc.cam, p)
						if !near(a, b, 1) {
							bad++
						}
					}
				}
			}
			return bad, nil
		}
		bad, err := acne()
		if err != nil {
			return err
		}
		if bad != 0 {
			t.Errorf("%d of 27 points on the sunlit faces read darker with shadows on", bad)
		}
		r.SetShadowOffsets(false)
		if bad, err = acne(); err != nil {
			return err
		}
		t.Logf("acne without offsets: %d", bad)
		if bad == 0 {
			t.Errorf("without offsets no point shows acne: the test cannot fail")
		}
		return nil
	})
}

// TestShadowStaticBodies: a static body (Registry.AddStatic) casts its
// shadow as a snapshot's body does.
func TestShadowStaticBodies(t *testing.T) {
	onMain(t, func(*gltest.Window) error {
		r, err := newTestRenderer()
		if err != nil {
			return err
		}
		defer r.Delete()
		sc := newShadowScene(r)
		r.Registry().AddStatic(cubeAt(shadowCube))
		dir := mgl32.Vec3{-1, 2, 1}
		far := mgl32.Vec3{40, 2, 40} // the snapshot's cube, out of the map and of view
		img, err := sc.frame(far, far, 1, sun(dir, true))
		if err != nil {
			return err
		}
		if n, err := sc.checkGround(img, shadowCube, dir, true); err != nil || n == 0 {
			return fmt.Errorf("static cube: %d shadowed cells read (%v)", n, err)
		}
		return nil
	})
}

// TestShadowsOffIsTheDefaultLook: a frame with shadows off after frames
// with them on is, byte for byte, the frame of a renderer that never drew
// shadows (and the golden tests hold the default look).
func TestShadowsOffIsTheDefaultLook(t *testing.T) {
	onMain(t, func(*gltest.Window) error {
		r, err := newTestRenderer()
		if err != nil {
			return err
		}
		defer r.Delete()
		sc := newShadowScene(r)
		dir := mgl32.Vec3{1, 2, 0}
		before, err := sc.frame(shadowCube, shadowCube, 1, sun(dir, false))
		if err != nil {
			return err
		}
		before = copyImage(before)
		on, err := sc.frame(shadowCube, shadowCube, 1, sun(dir, true))
		if err != nil {
			return err
		}
		if d := diffPixels(before, on); d == 0 {
			return fmt.Errorf("shadows on changed no pixel")
		}
		after, err := sc.frame(shadowCube, shadowCube, 1, sun(dir, false))
		if err != nil {
			return err
		}
		if d := diffPixels(before, after); d != 0 {
			return fmt.Errorf("shadows turned off again: %d pixels differ from a renderer that never drew them", d)
		}
		return nil
	})
}

// shadowWorld writes a snapshot of bodies cubes in an 8-wide grid with a
// slanting sun that casts shadows about a centre that moves with t.
func shadowWorld(s *simthread.Snapshot, bodies int, t float32) {
	s.Bodies = s.Bodies[:0]
	for i := range bodies {
		s.Bodies = append(s.Bodies, simthread.Body{Pos: mgl32.Vec3{float32(i%8-4) * 1.2, 1 + float32(i/8%4)*0.6, float32(i/32) * 1.2}, Rot: ident,
			Scale: simthread.UniformScale(0.4), Color: simthread.White})
	}
	s.Lights.Reset()
	s.Lights.Sun = simthread.DirLight{Dir: mgl32.Vec3{-0.45, 0.8, 0.4}, Color: mgl32.Vec3{1, 0.96, 0.9}, Intensity: 1.9,
		Shadows: true, ShadowCenter: mgl32.Vec3{t, 0, 0}, ShadowRadius: 10}
}

// TestShadowFrameDoesNotAllocate: frames that each get a new snapshot
// with shadows on, their centre moving, allocate nothing.
func TestShadowFrameDoesNotAllocate(t *testing.T) {
	onMain(t, func(*gltest.Window) error {
		r, err := newTestRenderer()
		if err != nil {
			return err
		}
		defer r.Delete()
		r.Registry().AddStatic(cubeAt(shadowCube))
		cam := newShadowScene(r).cam
		var snaps [3]simthread.Snapshot
		var seq uint64
		frame := func() {
			a, b := &snaps[seq%3], &snaps[(seq+1)%3]
			shadowWorld(b, 64, float32(seq)*0.01)
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
			return fmt.Errorf("a frame with shadows allocates %.1f times (err %v)", n, err)
		}
		return nil
	})
}

// BenchmarkShadow measures Renderer.Draw of frames that each get a new
// snapshot of bodies=N cubes over the ground under the default sun, with
// its shadows off or drawn into a map=N texels square map over a 10 m
// radius, 320×240 without MSAA, plus gl.Finish: the shadow pass's cost is
// the difference from map=off. 0 allocs/op. Under llvmpipe ns/op is the
// software GPU's.
func BenchmarkShadow(b *testing.B) {
	if os.Getenv("DISPLAY") == "" {
		b.Skip("needs a display: run `make test`, which starts Xvfb, or set DISPLAY")
	}
	for _, bodies := range []int{64, 1024} {
		for _, size := range []int{0, 1024, 2048} {
			name := fmt.Sprintf("bodies=%d/map=%d", bodies, size)
			if size == 0 {
				name = fmt.Sprintf("bodies=%d/map=off", bodies)
			}
			b.Run(name, func(b *testing.B) {
				var err error
				gltest.Call(func() {
					var w *gltest.Window
					if w, err = gltest.Open(b.Name(), 320, 240, false); err != nil {
						return
					}
					defer w.Close()
					var r *renderer.Renderer
					if r, err = renderer.New(simthread.DefaultHistory, renderer.Options{Samples: -1, ShadowMap: size}); err != nil {
						return
					}
					defer r.Delete()
					r.HUD().Visible = false
					cam := newShadowScene(r).cam
					var snaps [3]simthread.Snapshot
					var seq uint64
					frame := func() {
						a, s := &snaps[seq%3], &snaps[(seq+1)%3]
						shadowWorld(s, bodies, 0)
						s.Lights.Sun.Shadows = size != 0
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
}
