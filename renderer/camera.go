package renderer

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/simthread"
)

// Camera is the view a frame is drawn from: the render thread's own orbit
// camera, which looks at Target from Distance away, turned by Yaw about
// the vertical axis and raised by Pitch; or, while Pose.Valid, a camera
// the simulation published, interpolated (LerpPose) and turned by the
// newest mouse motion (Latch). The orbit's fields are kept while a pose
// is shown, for when there is none again. A Camera belongs to the render
// thread: it is drawn from, never fed back into the simulation.
type Camera struct {
	Target     mgl32.Vec3
	Yaw, Pitch float32 // radians
	Distance   float32 // metres
	FovY       float32 // vertical field of view, radians
	Near, Far  float32 // clip planes, metres
	// Follow, while true, makes the orbit turn about body FollowBody of
	// the snapshots drawn (its index in Snapshot.Bodies, the only name a
	// body has) instead of a fixed point: before every frame the render
	// loop (platform/internal/loop) sets Target to the body's place in that frame,
	// the interpolated place it is drawn at, so the body stays at the
	// window's centre between ticks. While no such body is drawn, Target
	// stays where it was. Drag and wheel still turn and zoom the orbit,
	// paused or not.
	Follow     bool
	FollowBody int
	// Pose, while Pose.Valid, places the camera instead of the orbit: at
	// Pose.Pos, looking along Pose.Rot·(0, 0, −1) with Pose.Rot·(0, 1, 0)
	// up, with Pose.FOV unless it is 0. A Rot that cannot be normalised
	// (zero, infinite, NaN) is taken as the identity, as a body's is.
	Pose simthread.CameraPose
}

// Camera limits: never under the ground, never flipped over the top.
const (
	minPitch    = 0.03
	maxPitch    = 1.45
	minDistance = 2
	maxDistance = 200
)

// defaultLookPitch bounds a posed view's elevation when its Look gives no
// limits: 1.5 rad, 86°, short of straight up or down, where yaw would
// spin the view about its own axis.
const defaultLookPitch = 1.5

// DefaultCamera frames the reference world: an orbit 26 m from (0, 1.5,
// 0), turned 0.6 rad and raised 0.42 rad, with a 50° vertical field of
// view and clip planes at 0.1 m (Near) and 400 m (Far), the ground's
// default square's side. A scene larger than 400 m, or one seen from
// closer than 0.1 m, sets them (an app: Config.Camera, or -near and -far);
// keep Far/Near within about 10⁵ for the 24-bit depth buffer.
func DefaultCamera() Camera {
	return Camera{
		Target:   mgl32.Vec3{0, 1.5, 0},
		Yaw:      0.6,
		Pitch:    0.42,
		Distance: 26,
		FovY:     mgl32.DegToRad(50),
		Near:     0.1,
		Far:      400,
	}
}

// Orbit turns the orbit camera by a pointer drag of dx, dy pixels.
func (c *Camera) Orbit(dx, dy float32) {
	const radPerPixel = 0.006
	c.Yaw += dx * radPerPixel
	c.Pitch = min(max(c.Pitch+dy*radPerPixel, minPitch), maxPitch)
}

// Zoom moves the orbit camera in (steps > 0) or out by scroll steps.
func (c *Camera) Zoom(steps float32) {
	c.Distance = min(max(c.Distance*float32(math.Pow(0.9, float64(steps))), minDistance), maxDistance)
}

// Eye returns the camera's position.
func (c Camera) Eye() mgl32.Vec3 {
	if c.Pose.Valid {
		return c.Pose.Pos
	}
	sy, cy := math.Sincos(float64(c.Yaw))
	sp, cp := math.Sincos(float64(c.Pitch))
	d := float64(c.Distance)
	return c.Target.Add(mgl32.Vec3{float32(d * cp * sy), float32(d * sp), float32(d * cp * cy)})
}

// View returns the view matrix: world to camera coordinates.
func (c Camera) View() mgl32.Mat4 {
	if c.Pose.Valid {
		p := c.Pose.Pos
		return unitQuat(c.Pose.Rot).Conjugate().Mat4().Mul4(mgl32.Translate3D(-p[0], -p[1], -p[2]))
	}
	return mgl32.LookAtV(c.Eye(), c.Target, mgl32.Vec3{0, 1, 0})
}

// viewProj returns projection × view for a viewport of the given aspect.
func (c Camera) viewProj(aspect float32) mgl32.Mat4 {
	if !(aspect > 0) {
		aspect = 1
	}
	return mgl32.Perspective(c.fov(), aspect, c.Near, c.Far).Mul4(c.View())
}

// fov returns the vertical field of view drawn: the pose's, if it has one.
func (c Camera) fov() float32 {
	if c.Pose.Valid && c.Pose.FOV > 0 {
		return c.Pose.FOV
	}
	return c.FovY
}

// Projection is a frame's projection: the camera it was drawn from, as drawn
// (the posed or followed camera of that frame, turned by that frame's
// drag and latched mouse motion), and its framebuffer's size in pixels.
// platform/internal/loop's App.Projection returns the last frame's. The zero
// Projection projects nothing.
type Projection struct {
	Camera        Camera
	Width, Height int
}

// Project returns where world point p is drawn in the view: x, y in
// pixels from the framebuffer's top left corner (pixel (i, j) covers
// [i, i+1) × [j, j+1)), and depth, the value the depth buffer holds
// there (0 at the near plane, 1 at the far one). ok is false when p is
// not in front of the eye, or the view is empty; x and y may lie outside
// the framebuffer, and depth outside [0, 1], where p is outside the
// frustum.
func (v Projection) Project(p mgl32.Vec3) (x, y, depth float32, ok bool) {
	if v.Width <= 0 || v.Height <= 0 {
		return 0, 0, 0, false
	}
	clip := v.Camera.viewProj(float32(v.Width) / float32(v.Height)).Mul4x1(p.Vec4(1))
	if !(clip[3] > 0) {
		return 0, 0, 0, false
	}
	ndc := clip.Vec3().Mul(1 / clip[3])
	return (ndc[0] + 1) / 2 * float32(v.Width), (1 - ndc[1]) / 2 * float32(v.Height), (ndc[2] + 1) / 2, true
}

// Ray returns the ray through the point x, y pixels from the framebuffer's
// top left corner (Project's pixels: a cursor's position in window
// coordinates is scaled by the framebuffer's size over the window's
// first): origin, on the near plane, is the nearest point drawn there,
// and dir is unit. Every point p that Project puts at x, y lies on it.
// A zero Projection gives the ray along the camera's view.
func (v Projection) Ray(x, y float32) (origin, dir mgl32.Vec3) {
	c := &v.Camera
	nx, ny, aspect := float32(0), float32(0), float32(1)
	if v.Width > 0 && v.Height > 0 {
		nx, ny = 2*x/float32(v.Width)-1, 1-2*y/float32(v.Height)
		aspect = float32(v.Width) / float32(v.Height)
	}
	t := float32(math.Tan(float64(c.fov()) / 2))
	// The view matrix's rotation is orthonormal: its transpose turns the
	// camera's axes into the world's.
	view := c.View()
	side, up, back := view.Row(0).Vec3(), view.Row(1).Vec3(), view.Row(2).Vec3()
	d := side.Mul(nx * t * aspect).Add(up.Mul(ny * t)).Sub(back)
	return c.Eye().Add(d.Mul(c.Near)), d.Normalize()
}

// LerpPose returns the camera pose between a (alpha 0) and b (alpha 1),
// a the older: the same interpolation a body gets (Lerp, and
// a slerp on the shorter arc), done on the CPU as there is one
// camera. What is lerped is the pose's subject, the point Boom ahead of
// the eye, so that a subject that moves as a body stays put on the screen
// while the camera turns about it; with Boom 0 it is the eye. Boom, FOV
// and Look's sums are lerped too.
//
// It returns b as it is when b is not valid, a is not, their Epochs
// differ (a cut), or a Rot cannot be normalised; an alpha outside [0, 1]
// is clamped (NaN counts as 0). It does not allocate.
func LerpPose(a, b *simthread.CameraPose, alpha float32) simthread.CameraPose {
	if !a.Valid || !b.Valid || a.Epoch != b.Epoch {
		return *b
	}
	rot, err := slerp(a.Rot, b.Rot, alpha)
	if err != nil {
		return *b
	}
	t := alpha
	if !(t >= 0) {
		t = 0 // and NaN
	}
	t = min(t, 1)
	p := *b
	p.Rot = rot
	p.Boom = a.Boom + (b.Boom-a.Boom)*t
	subject := Lerp(subject(a), subject(b), t)
	p.Pos = subject.Sub(forward(rot).Mul(p.Boom))
	if a.FOV > 0 && b.FOV > 0 {
		p.FOV = a.FOV + (b.FOV-a.FOV)*t
	}
	p.Look.X = a.Look.X + (b.Look.X-a.Look.X)*float64(t)
	p.Look.Y = a.Look.Y + (b.Look.Y-a.Look.Y)*float64(t)
	return p
}

// subject returns the point a pose's camera turns about: Boom ahead of
// the eye along its view.
func subject(p *simthread.CameraPose) mgl32.Vec3 {
	return p.Pos.Add(forward(unitQuat(p.Rot)).Mul(p.Boom))
}

// Latch turns a posed camera (Pose.Valid) by the mouse motion the world
// has not consumed yet: x and y are the sums of every cursor motion
// (DX, DY) sent to the world, and Pose.Look holds the sums the pose's
// world had consumed; the difference turns the view as the world will
// turn it, by Pose.Look.Scale radians per unit (see simthread.MouseLook), within
// Pose.Look's pitch limits. Called on an interpolated pose (LerpPose),
// whose Look is interpolated with it, the view then shows all the motion
// sent, however far the simulation is behind. It does nothing to an
// orbit camera or with a zero Scale, and does not allocate.
func (c *Camera) Latch(x, y float64) {
	look := &c.Pose.Look
	if !c.Pose.Valid || look.Scale == 0 {
		return
	}
	s := float64(look.Scale)
	lo, hi := look.MinPitch, look.MaxPitch
	if lo == 0 && hi == 0 {
		lo, hi = -defaultLookPitch, defaultLookPitch
	}
	// Positive motion turns right and down: negative yaw and pitch.
	c.Turn(float32(-(x-look.X)*s), float32(-(y-look.Y)*s), lo, hi)
}

// Turn turns a posed camera (Pose.Valid) about its subject (the
// point Pose.Boom ahead of the eye, or the eye itself when Boom is 0) by
// yaw radians about the world's vertical axis (positive turns left,
// counter-clockwise seen from above) and pitch radians about its own
// horizontal axis (positive turns up). The view's elevation is kept
// within [minPitch, maxPitch] radians of the horizon: a turn stops at the
// limit, and a view already outside it is not pulled in, only kept from
// going further. For a camera without roll, yaw and pitch add to its own
// exactly. It does nothing to an orbit camera, and does not allocate.
func (c *Camera) Turn(yaw, pitch, minPitch, maxPitch float32) {
	p := &c.Pose
	if !p.Valid {
		return
	}
	if yaw != yaw {
		yaw = 0
	}
	if pitch != pitch {
		pitch = 0
	}
	rot := unitQuat(p.Rot)
	subject := p.Pos.Add(forward(rot).Mul(p.Boom))
	elev := float32(math.Asin(float64(min(max(forward(rot)[1], -1), 1))))
	to := min(max(elev+pitch, min(minPitch, elev)), max(maxPitch, elev))
	rot = mgl32.QuatRotate(yaw, mgl32.Vec3{0, 1, 0}).Mul(rot).Mul(mgl32.QuatRotate(to-elev, mgl32.Vec3{1, 0, 0}))
	p.Rot = rot.Normalize()
	p.Pos = subject.Sub(forward(p.Rot).Mul(p.Boom))
}

// forward returns the direction a camera turned by unit quaternion q
// looks: q·(0, 0, −1).
func forward(q mgl32.Quat) mgl32.Vec3 { return q.Rotate(mgl32.Vec3{0, 0, -1}) }

// unitQuat returns q normalised, or the identity where q cannot be (zero,
// infinite or NaN), as the body shaders treat such a rotation.
func unitQuat(q mgl32.Quat) mgl32.Quat {
	l := float64(q.Len())
	if !(l > 0) || math.IsInf(l, 0) {
		return mgl32.QuatIdent()
	}
	return q.Scale(float32(1 / l))
}
