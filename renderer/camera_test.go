package renderer_test

import (
	"fmt"
	"image/color"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/renderer/internal/gltest"
	"github.com/tickframe/tickframe/simthread"
)

var (
	up    = mgl32.Vec3{0, 1, 0}
	right = mgl32.Vec3{1, 0, 0}
)

// yawPitch is the orientation a world without roll gives its camera:
// yaw about the vertical axis, then pitch about the camera's own
// horizontal axis. Its view is (−sin yaw·cos pitch, sin pitch,
// −cos yaw·cos pitch).
func yawPitch(yaw, pitch float32) mgl32.Quat {
	return mgl32.QuatRotate(yaw, up).Mul(mgl32.QuatRotate(pitch, right))
}

// thirdPerson is a pose Boom behind subject, as a world would publish it.
func thirdPerson(subject mgl32.Vec3, yaw, pitch, boom float32) simthread.CameraPose {
	rot := yawPitch(yaw, pitch)
	return simthread.CameraPose{Valid: true, Pos: subject.Sub(rot.Rotate(mgl32.Vec3{0, 0, -1}).Mul(boom)),
		Rot: rot, Boom: boom, FOV: 1}
}

func nearVec(a, b mgl32.Vec3, tol float32) bool { return a.Sub(b).Len() <= tol }

// nearQuat compares orientations: q and −q are the same one.
func nearQuat(a, b mgl32.Quat, tol float32) bool {
	return 1-float32(math.Abs(float64(a.Dot(b)))) <= tol
}

func nearMat(a, b mgl32.Mat4, tol float32) bool {
	for i := range a {
		if math.Abs(float64(a[i]-b[i])) > float64(tol) {
			return false
		}
	}
	return true
}

// TestPoseView checks that a posed camera sees what a look-at camera at
// the same eye, looking at the same point, sees, and that without a valid
// pose the orbit camera is unchanged.
func TestPoseView(t *testing.T) {
	for _, tc := range []struct{ yaw, pitch float32 }{{0, 0}, {0.7, -0.3}, {-2.5, 0.4}, {3.1, -1.2}} {
		eye := mgl32.Vec3{1, 2, 3}
		rot := yawPitch(tc.yaw, tc.pitch)
		c := renderer.DefaultCamera()
		c.Pose = simthread.CameraPose{Valid: true, Pos: eye, Rot: rot.Scale(3)} // not unit: normalised
		target := eye.Add(rot.Rotate(mgl32.Vec3{0, 0, -1}).Mul(5))
		if got, want := c.View(), mgl32.LookAtV(eye, target, up); !nearMat(got, want, 1e-5) {
			t.Errorf("yaw %v pitch %v: view\n%v\nwant the look-at view\n%v", tc.yaw, tc.pitch, got, want)
		}
		if x, y, ok := project(c, target, 640, 480); !ok || math.Abs(float64(x-320)) > 0.01 || math.Abs(float64(y-240)) > 0.01 {
			t.Errorf("yaw %v pitch %v: the point ahead projects to (%v, %v, %v), want the centre", tc.yaw, tc.pitch, x, y, ok)
		}
		if c.Eye() != eye {
			t.Errorf("Eye %v, want the pose's %v", c.Eye(), eye)
		}
	}

	orbit := renderer.DefaultCamera()
	want := mgl32.Perspective(orbit.FovY, 1.5, orbit.Near, orbit.Far).Mul4(mgl32.LookAtV(orbit.Eye(), orbit.Target, up))
	orbit.Pose = simthread.CameraPose{Pos: mgl32.Vec3{9, 9, 9}, Rot: yawPitch(1, 1), FOV: 2} // not Valid
	if got := orbit.ViewProj(1.5); got != want {
		t.Errorf("an invalid pose changed the orbit camera's view")
	}

	// A pose's FOV replaces the camera's; 0 keeps it; a bad Rot is the identity.
	c := renderer.DefaultCamera()
	c.Pose = simthread.CameraPose{Valid: true, Rot: mgl32.Quat{W: float32(math.NaN())}}
	if got, want := c.ViewProj(1), mgl32.Perspective(c.FovY, 1, c.Near, c.Far); got != want {
		t.Errorf("NaN rotation, FOV 0: view-projection\n%v\nwant the identity view with the camera's FovY\n%v", got, want)
	}
	c.Pose.FOV = 1.2
	if got, want := c.ViewProj(1), mgl32.Perspective(1.2, 1, c.Near, c.Far); got != want {
		t.Errorf("FOV 1.2: the pose's field of view was not used")
	}
}

// TestLerpPose checks LerpPose against renderer.Lerp and renderer.Slerp, the
// interpolation bodies get, and its cuts.
func TestLerpPose(t *testing.T) {
	a := simthread.CameraPose{Valid: true, Pos: mgl32.Vec3{0, 2, 0}, Rot: yawPitch(0.2, -0.1), FOV: 1, Epoch: 3,
		Look: simthread.MouseLook{X: 10, Y: -4, Scale: 0.01}}
	b := simthread.CameraPose{Valid: true, Pos: mgl32.Vec3{1, 2, -3}, Rot: yawPitch(0.5, -0.2), FOV: 1.2, Epoch: 3,
		Look: simthread.MouseLook{X: 30, Y: 6, Scale: 0.01}}
	for _, alpha := range []float32{0, 0.25, 0.5, 0.999, 1} {
		got := renderer.LerpPose(&a, &b, alpha)
		rot, err := renderer.Slerp(a.Rot, b.Rot, alpha)
		if err != nil {
			t.Fatal(err)
		}
		if got.Pos != renderer.Lerp(a.Pos, b.Pos, alpha) || got.Rot != rot || !got.Valid || got.Epoch != 3 {
			t.Errorf("alpha %v: pose %+v, want Pos %v, Rot %v", alpha, got, renderer.Lerp(a.Pos, b.Pos, alpha), rot)
		}
		if want := 1 + 0.2*alpha; math.Abs(float64(got.FOV-want)) > 1e-6 {
			t.Errorf("alpha %v: FOV %v, want %v", alpha, got.FOV, want)
		}
		if wx, wy := 10+20*float64(alpha), -4+10*float64(alpha); math.Abs(got.Look.X-wx) > 1e-5 || math.Abs(got.Look.Y-wy) > 1e-5 {
			t.Errorf("alpha %v: Look sums (%v, %v), want (%v, %v)", alpha, got.Look.X, got.Look.Y, wx, wy)
		}
	}
	if got := renderer.LerpPose(&a, &b, 7); got.Pos != b.Pos {
		t.Errorf("alpha 7: Pos %v, want b's %v (clamped)", got.Pos, b.Pos)
	}
	if got := renderer.LerpPose(&a, &b, float32(math.NaN())); got.Pos != a.Pos {
		t.Errorf("alpha NaN: Pos %v, want a's %v", got.Pos, a.Pos)
	}

	// Cuts: b as it is.
	cut := b
	cut.Epoch++
	noA := a
	noA.Valid = false
	noB := b
	noB.Valid = false
	badA := a
	badA.Rot = mgl32.Quat{}
	for name, c := range map[string]struct{ a, b simthread.CameraPose }{
		"epoch": {a, cut}, "a invalid": {noA, b}, "b invalid": {a, noB}, "bad rotation": {badA, b},
	} {
		if got := renderer.LerpPose(&c.a, &c.b, 0.5); got != c.b {
			t.Errorf("%s: pose %+v, want b %+v as it is", name, got, c.b)
		}
	}
	// FOV 0 (the renderer's) is not lerped towards.
	zero := a
	zero.FOV = 0
	if got := renderer.LerpPose(&zero, &b, 0.5); got.FOV != b.FOV {
		t.Errorf("FOV from 0: %v, want b's %v", got.FOV, b.FOV)
	}
}

// TestLerpPoseFollowsPath moves a third-person camera along a known path,
// its subject in a straight line while it turns steadily, and checks that
// the pose LerpPose gives between ticks k and k+1 is the path's at k+α:
// the subject, lerped like a body, stays exactly ahead of the eye.
func TestLerpPoseFollowsPath(t *testing.T) {
	path := func(tick float32) simthread.CameraPose {
		return thirdPerson(mgl32.Vec3{0.05 * tick, 1.5, -0.1 * tick}, 0.02*tick, -0.3, 4)
	}
	for k := float32(0); k < 40; k += 3 {
		a, b := path(k), path(k+1)
		for _, alpha := range []float32{0, 0.3, 0.75, 1} {
			got, want := renderer.LerpPose(&a, &b, alpha), path(k+alpha)
			if !nearVec(got.Pos, want.Pos, 2e-5) || !nearQuat(got.Rot, want.Rot, 1e-6) || got.Boom != 4 {
				t.Errorf("tick %v + %v: pose %v %v, want the path's %v %v", k, alpha, got.Pos, got.Rot, want.Pos, want.Rot)
			}
			if s, ws := renderer.Subject(&got), renderer.Lerp(renderer.Subject(&a), renderer.Subject(&b), alpha); !nearVec(s, ws, 2e-5) {
				t.Errorf("tick %v + %v: subject %v, want the lerp %v", k, alpha, s, ws)
			}
		}
	}
}

// TestTurn checks the late latch's turn: about the subject, by the given
// angles, stopped at the pitch limits.
func TestTurn(t *testing.T) {
	subject := mgl32.Vec3{2, 1.5, -1}
	for _, tc := range []struct {
		name                 string
		pitch0, yaw, pitch   float32
		wantPitch            float32
		minPitch, maxPitchIn float32
	}{
		{"yaw", -0.3, 0.4, 0, -0.3, -1, 0.5},
		{"pitch", -0.3, 0, 0.2, -0.1, -1, 0.5},
		{"both", 0.1, -1.3, -0.6, -0.5, -1, 0.5},
		{"stops at the top", 0.3, 0.1, 0.5, 0.5, -1, 0.5},
		{"stops at the bottom", -0.3, 0, -2, -1, -1, 0.5},
		{"outside stays, goes no further", 0.8, 0, 0.1, 0.8, -1, 0.5},
		{"outside comes back in", 0.8, 0, -0.5, 0.3, -1, 0.5},
	} {
		c := renderer.DefaultCamera()
		c.Pose = thirdPerson(subject, 1, tc.pitch0, 4)
		c.Turn(tc.yaw, tc.pitch, tc.minPitch, tc.maxPitchIn)
		want := thirdPerson(subject, 1+tc.yaw, tc.wantPitch, 4)
		if !nearVec(c.Pose.Pos, want.Pos, 1e-4) || !nearQuat(c.Pose.Rot, want.Rot, 1e-6) {
			t.Errorf("%s: pose %v %v, want %v %v", tc.name, c.Pose.Pos, c.Pose.Rot, want.Pos, want.Rot)
		}
		if x, y, _ := project(c, subject, 640, 480); math.Abs(float64(x-320)) > 0.05 || math.Abs(float64(y-240)) > 0.05 {
			t.Errorf("%s: the subject moved off the centre, to (%v, %v)", tc.name, x, y)
		}
	}
	orbit := renderer.DefaultCamera()
	orbit.Turn(1, 1, -1, 1)
	if orbit != renderer.DefaultCamera() {
		t.Error("Turn changed an orbit camera")
	}
}

// TestLatch checks that the latch shows the motion the world has not
// consumed as the world will apply it: a world at look sums (x0, y0)
// latched with sums (x1, y1) is drawn as the world at (x1, y1).
func TestLatch(t *testing.T) {
	const scale = 0.003
	world := func(x, y float64) simthread.CameraPose {
		p := thirdPerson(mgl32.Vec3{1, 1.6, 2}, float32(-x*scale), float32(-y*scale), 3.5)
		p.Look = simthread.MouseLook{X: x, Y: y, Scale: scale, MinPitch: -1.2, MaxPitch: 0.4}
		return p
	}
	c := renderer.DefaultCamera()
	c.Pose = world(120, 40)
	c.Latch(150, 10)
	want := world(150, 10)
	if !nearVec(c.Pose.Pos, want.Pos, 1e-4) || !nearQuat(c.Pose.Rot, want.Rot, 1e-6) {
		t.Errorf("latched pose %v %v, want the world's after the motion %v %v", c.Pose.Pos, c.Pose.Rot, want.Pos, want.Rot)
	}
	// Past the world's limit: held at it (y = −400 would look up 1.2 rad).
	c.Pose = world(0, 0)
	c.Latch(0, -400)
	if want := world(0, -0.4/scale); !nearQuat(c.Pose.Rot, want.Rot, 1e-6) {
		t.Errorf("latched past MaxPitch: %v, want held at 0.4 rad %v", c.Pose.Rot, want.Rot)
	}
	// Nothing sent beyond the pose's sums, or no Scale: unchanged.
	c.Pose = world(5, 5)
	before := c.Pose
	if c.Latch(5, 5); c.Pose.Pos != before.Pos || !nearQuat(c.Pose.Rot, before.Rot, 1e-7) {
		t.Errorf("a latch of no motion moved the camera: %+v", c.Pose)
	}
	c.Pose.Look.Scale = 0
	still := c.Pose
	if c.Latch(500, 500); c.Pose != still {
		t.Errorf("a latch with Scale 0 moved the camera: %+v", c.Pose)
	}
}

// TestCameraFrameDoesNotAllocate is the render thread's camera work for a
// frame: interpolate, latch, build the matrix.
func TestCameraFrameDoesNotAllocate(t *testing.T) {
	a, b := thirdPerson(mgl32.Vec3{}, 0, -0.2, 4), thirdPerson(mgl32.Vec3{1, 0, 0}, 0.1, -0.2, 4)
	a.Look.Scale, b.Look.Scale = 0.002, 0.002
	c := renderer.DefaultCamera()
	var sink mgl32.Mat4
	alpha := float32(0)
	if n := testing.AllocsPerRun(200, func() {
		alpha += 0.001
		c.Pose = renderer.LerpPose(&a, &b, alpha)
		c.Latch(12, -3)
		sink = c.ViewProj(1.5)
	}); n != 0 {
		t.Fatalf("a frame's camera work allocates %.1f times", n)
	}
	_ = sink
}

// TestPosedCameraDraws draws a red cube from a posed camera looking
// straight at it: it fills the centre of the frame; the orbit camera,
// pointed elsewhere, does not show it there.
func TestPosedCameraDraws(t *testing.T) {
	onMain(t, func(*gltest.Window) error {
		r, err := renderer.New(2, renderer.Options{})
		if err != nil {
			return err
		}
		defer r.Delete()
		r.HUD().Visible = false
		cube := mgl32.Vec3{6, 1, -8}
		s := newScene()
		s.publish(1, []simthread.Body{{Pos: cube, Rot: mgl32.QuatIdent(), Scale: simthread.UniformScale(0.5),
			Color: simthread.RGB(230, 20, 20)}})
		cam := renderer.DefaultCamera()
		cam.Target = mgl32.Vec3{-20, 1, 20}
		orbit, err := render(r, s.newest(), cam)
		if err != nil {
			return err
		}
		cam.Pose = thirdPerson(cube, 0.9, -0.25, 6)
		posed, err := render(r, s.newest(), cam)
		if err != nil {
			return err
		}
		isRed := func(c [4]uint8) bool { return c[0] > 90 && int(c[0]) > int(c[1])+50 && int(c[0]) > int(c[2])+50 }
		centre := func(pix []uint8, stride int) [4]uint8 {
			i := height/2*stride + width/2*4
			return [4]uint8(pix[i : i+4])
		}
		if c := centre(posed.Pix, posed.Stride); !isRed(c) {
			return fmt.Errorf("posed camera: centre pixel %v, want the red cube", c)
		}
		if c := centre(orbit.Pix, orbit.Stride); isRed(c) {
			return fmt.Errorf("orbit camera looking away: centre pixel %v is red", c)
		}
		return nil
	})
}

// TestRendererProjection draws a small red cube off the view's centre,
// from a posed camera and then from an orbit camera, and reads each frame
// back: before any frame Projection is the zero one; after each, it is
// that frame's camera and size, its Project puts the cube's centre on the
// centroid of the cube's pixels (within 1.5 px), and its Ray through that
// centroid passes within 5 cm of the cube's centre. (A projection kept
// from the frame before, or never recorded, misses by tens of pixels.)
func TestRendererProjection(t *testing.T) {
	onMain(t, func(*gltest.Window) error {
		r, err := newTestRenderer()
		if err != nil {
			return err
		}
		defer r.Delete()
		r.SetGroundVisible(false)
		if p := r.Projection(); p != (renderer.Projection{}) {
			return fmt.Errorf("before any frame: %+v, want the zero Projection", p)
		}
		cube := mgl32.Vec3{2, 4, -3}
		s := newScene()
		s.publish(1, []simthread.Body{{Pos: cube, Rot: ident, Scale: simthread.UniformScale(0.3), Color: simthread.RGB(230, 20, 20)}})
		posed := frontCamera()
		posed.Pose = thirdPerson(mgl32.Vec3{0, 5, 0}, 0.4, -0.2, 9)
		orbit := renderer.DefaultCamera()
		orbit.Target, orbit.Distance = mgl32.Vec3{-1, 3, 0}, 12
		red := func(c color.RGBA) bool { return c.R > 90 && int(c.R) > int(c.G)+50 && int(c.R) > int(c.B)+50 }
		for _, c := range []struct {
			name string
			cam  renderer.Camera
		}{{"posed", posed}, {"orbit", orbit}} {
			img, err := render(r, s.newest(), c.cam)
			if err != nil {
				return err
			}
			p := r.Projection()
			if p != (renderer.Projection{Camera: c.cam, Width: width, Height: height}) {
				return fmt.Errorf("%s: Projection %+v, want the frame's camera at %d×%d", c.name, p, width, height)
			}
			var cx, cy float64
			n := 0
			for y := range height {
				for x := range width {
					if red(img.RGBAAt(x, y)) {
						cx, cy, n = cx+float64(x)+0.5, cy+float64(y)+0.5, n+1
					}
				}
			}
			if n < 30 {
				return fmt.Errorf("%s: %d red pixels%s", c.name, n, saveFailure(img))
			}
			cx, cy = cx/float64(n), cy/float64(n)
			px, py, _, ok := p.Project(cube)
			if !ok || math.Hypot(float64(px)-cx, float64(py)-cy) > 1.5 {
				return fmt.Errorf("%s: the cube projects to (%v, %v) ok %v, drawn about (%.1f, %.1f)%s", c.name, px, py, ok, cx, cy, saveFailure(img))
			}
			o, d := p.Ray(float32(cx), float32(cy))
			w := cube.Sub(o)
			if miss := w.Sub(d.Mul(w.Dot(d))).Len(); miss > 0.05 {
				return fmt.Errorf("%s: the ray through the cube's pixels passes %.3f m from its centre", c.name, miss)
			}
		}
		return nil
	})
}

// BenchmarkCamera is the render thread's camera work per frame with a
// world camera: interpolate it, latch the mouse, build the matrix.
func BenchmarkCamera(b *testing.B) {
	a, c1 := thirdPerson(mgl32.Vec3{}, 0, -0.2, 4), thirdPerson(mgl32.Vec3{1, 0, 0}, 0.1, -0.2, 4)
	a.Look.Scale, c1.Look.Scale = 0.002, 0.002
	c := renderer.DefaultCamera()
	var sink mgl32.Mat4
	b.ReportAllocs()
	alpha := float32(0)
	for b.Loop() {
		alpha = float32(math.Mod(float64(alpha)+0.01, 1))
		c.Pose = renderer.LerpPose(&a, &c1, alpha)
		c.Latch(12, -3)
		sink = c.ViewProj(1.5)
	}
	_ = sink
}

// TestProjectionRoundTrip projects random points seen by orbit and posed
// cameras in windows of several shapes and casts the ray back through the
// pixel each lands on: the ray passes within 1e-5 of the point's distance
// from the eye, its origin projects onto the same pixel (within float32
// rounding on the near plane: half a pixel) at depth 0, and a
// point projects at the depth a depth buffer holds (0 at Near, 1 at Far).
func TestProjectionRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(38, 5))
	f := func(lo, hi float64) float32 { return float32(lo + (hi-lo)*rng.Float64()) }
	sizes := [][2]int{{1280, 720}, {480, 320}, {300, 900}, {1, 1}}
	for i := range 2000 {
		c := renderer.DefaultCamera()
		c.Target = mgl32.Vec3{f(-50, 50), f(-5, 5), f(-50, 50)}
		c.Yaw, c.Pitch, c.Distance, c.FovY = f(-4, 4), f(0.03, 1.45), f(2, 200), f(0.3, 2)
		if i%2 == 1 {
			c.Pose = thirdPerson(c.Target, f(-4, 4), f(-1.4, 1.4), f(0, 10))
			c.Pose.FOV = f(0, 2) // 0: the orbit's
		}
		size := sizes[i%len(sizes)]
		v := renderer.Projection{Camera: c, Width: size[0], Height: size[1]}
		// A point in the frustum, from a random pixel and distance.
		x, y := f(0, float64(size[0])), f(0, float64(size[1]))
		o, d := v.Ray(x, y)
		if l := d.Len(); math.Abs(float64(l)-1) > 1e-5 {
			t.Fatalf("case %d: dir %v of length %v, want unit", i, d, l)
		}
		p := o.Add(d.Mul(f(0.5, 300)))
		px, py, depth, ok := v.Project(p)
		if !ok || math.Abs(float64(px-x)) > 2e-3*float64(size[0]) || math.Abs(float64(py-y)) > 2e-3*float64(size[1]) {
			t.Fatalf("case %d: %v on the ray through (%v, %v) projects to (%v, %v) ok %v", i, p, x, y, px, py, ok)
		}
		o2, d2 := v.Ray(px, py)
		w := p.Sub(o2)
		miss := w.Sub(d2.Mul(w.Dot(d2))).Len()
		if dist := p.Sub(c.Eye()).Len(); miss > 1e-5*max(dist, 1) {
			t.Fatalf("case %d: the ray through (%v, %v) passes %v from %v, %v from the eye", i, px, py, miss, p, dist)
		}
		if ox, oy, od, ok := v.Project(o2); !ok || math.Abs(float64(ox-px)) > 0.5 || math.Abs(float64(oy-py)) > 0.5 || math.Abs(float64(od)) > 1e-3 {
			t.Fatalf("case %d: the ray's origin projects to (%v, %v) depth %v ok %v, want (%v, %v) on the near plane", i, ox, oy, od, ok, px, py)
		}
		if depth <= 0 || depth >= 1 {
			t.Fatalf("case %d: a point between the clip planes at depth %v", i, depth)
		}
	}
	// Depth runs from 0 at Near to 1 at Far along the view, as the depth
	// buffer's; behind the eye nothing is drawn.
	v := renderer.Projection{Camera: renderer.DefaultCamera(), Width: 640, Height: 480}
	eye := v.Camera.Eye()
	ahead := v.Camera.Target.Sub(eye).Normalize()
	for _, c := range []struct {
		dist, depth float32
	}{{v.Camera.Near, 0}, {v.Camera.Far, 1}} {
		if x, y, d, ok := v.Project(eye.Add(ahead.Mul(c.dist))); !ok || math.Abs(float64(d-c.depth)) > 1e-4 || math.Abs(float64(x-320)) > 1e-2 || math.Abs(float64(y-240)) > 1e-2 {
			t.Fatalf("%v m ahead: (%v, %v) depth %v ok %v, want the centre at depth %v", c.dist, x, y, d, ok, c.depth)
		}
	}
	if _, _, _, ok := v.Project(eye.Sub(ahead)); ok {
		t.Fatal("a point behind the eye projects")
	}
	if _, _, _, ok := (renderer.Projection{}).Project(eye.Add(ahead)); ok {
		t.Fatal("the zero Projection projects")
	}
}

// project returns where camera c draws world point p in a w×h view, and
// whether p is in front of it: the drawn frame's Projection with c.
func project(c renderer.Camera, p mgl32.Vec3, w, h int) (x, y float32, ok bool) {
	x, y, _, ok = renderer.Projection{Camera: c, Width: w, Height: h}.Project(p)
	return x, y, ok
}
