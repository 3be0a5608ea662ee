package renderer

import (
	"errors"
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/simthread"
)

// MotionMode says how the renderer moves bodies between and beyond
// snapshots. An app picks one for its planner; every Plan carries it, and
// the renderer's interpolation pass and the CPU reference, BodyPose,
// follow it.
type MotionMode uint8

const (
	// MotionLerp interpolates between the two snapshots that bracket the render
	// time, which lags the frame time by the render delay: positions
	// linearly, orientations along the shorter arc (slerp). It ignores
	// velocities: a curved path is cut into chords, and a body that turns
	// more than half a turn per tick is shown turning backwards. The zero
	// value, and what tickframe did before velocities existed.
	MotionLerp MotionMode = iota
	// MotionHermite interpolates the same bracket with the velocities the
	// bodies publish (simthread.Body.Vel and AngVel): positions along the
	// cubic Hermite curve whose end tangents are the velocities times the
	// simulated time between the snapshots, orientations by as many turns,
	// and in the direction, that the angular velocity says (see
	// hermiteRot). A body with no linear velocity in either snapshot is
	// lerped, one with no angular velocity in either slerped: zero means
	// unknown or at rest. So is a body whose velocities do not explain
	// its motion between the two snapshots (Consistent: a bounce, a
	// collision, a teleport without a new Epoch), where the cubic would
	// swing beyond both ends. Same latency as MotionLerp.
	MotionHermite
	// MotionExtrapolate adds no render delay: each frame shows the simulation at
	// its own display time, predicted from the newest snapshot (the
	// basis) and its velocities, never further past it than its reach,
	// Plan.Reach (beyond, the pose holds and the frame counts as
	// Plan.Late). When a new snapshot becomes the basis, the prediction
	// jumps by what the old basis got wrong; that correction is not
	// snapped but blended in over the planner's correction time (see
	// Correction). A teleport (Epoch change) is shown
	// at once, never blended. The latency saved is the whole render delay
	// (a tick and a margin); the price is the prediction's error, which a
	// velocity change the snapshots did not announce (a kick) makes as
	// large as the change times the prediction's reach.
	MotionExtrapolate
)

// String returns "lerp", "hermite" or "extrapolate", the names the
// -motion flag reads and reports print.
func (m MotionMode) String() string {
	switch m {
	case MotionLerp:
		return "lerp"
	case MotionHermite:
		return "hermite"
	case MotionExtrapolate:
		return "extrapolate"
	}
	return fmt.Sprintf("MotionMode(%d)", uint8(m))
}

// Lerp is the position interpolation the vertex shader does: a + (b−a)·t.
func Lerp(a, b mgl32.Vec3, t float32) mgl32.Vec3 {
	return mgl32.Vec3{a[0] + (b[0]-a[0])*t, a[1] + (b[1]-a[1])*t, a[2] + (b[2]-a[2])*t}
}

// errBadQuat is the error of slerp and BodyPose for a quaternion that
// cannot be normalised.
var errBadQuat = errors.New("renderer: quaternion is zero, infinite or NaN")

// slerp is the orientation interpolation the vertex shader does: mathgl's
// QuatSlerp (normalise both ends, take the shorter arc, fall back to a
// normalised lerp when the ends are within about 1.8°), with its inputs
// checked. t is clamped to [0, 1] (NaN counts as 0). The result is a unit
// quaternion, or an error when an end is zero, infinite or NaN.
func slerp(a, b mgl32.Quat, t float32) (mgl32.Quat, error) {
	if !usable(a) || !usable(b) {
		return mgl32.Quat{}, errBadQuat
	}
	if !(t >= 0) {
		t = 0
	}
	t = min(t, 1)
	q := mgl32.QuatSlerp(unit(a), unit(b), t).Normalize()
	if !usable(q) {
		return mgl32.Quat{}, errBadQuat
	}
	return q, nil
}

// usable reports whether q is finite and not zero.
func usable(q mgl32.Quat) bool {
	nonzero := false
	for _, c := range [4]float32{q.W, q.V[0], q.V[1], q.V[2]} {
		if c != c || c > math.MaxFloat32 || c < -math.MaxFloat32 {
			return false
		}
		nonzero = nonzero || c != 0
	}
	return nonzero
}

// unit normalises q in float64, where no finite non-zero float32
// quaternion overflows or underflows.
func unit(q mgl32.Quat) mgl32.Quat {
	w, x, y, z := float64(q.W), float64(q.V[0]), float64(q.V[1]), float64(q.V[2])
	l := math.Sqrt(w*w + x*x + y*y + z*z)
	return mgl32.Quat{W: float32(w / l), V: mgl32.Vec3{float32(x / l), float32(y / l), float32(z / l)}}
}

// hermiteCurve is the position interpolation the vertex shader does in Hermite
// mode: the cubic Hermite curve from p0 to p1 with end tangents v0·dt and
// v1·dt (velocities in units per second, dt the seconds between the two
// ends), at t in [0, 1]. It is evaluated as the lerp plus a correction,
//
//	p0 + t·D + t(1−t)·((1−t)(v0·dt − D) − t(v1·dt − D)),  D = p1 − p0,
//
// which is the textbook basis-function form rearranged: in float32 the
// correction is small, so the result is as precise as the lerp (the
// shader computes the same expression). With v·dt = D it is the lerp.
func hermiteCurve(p0, v0, p1, v1 mgl32.Vec3, dt, t float32) mgl32.Vec3 {
	var out mgl32.Vec3
	s := 1 - t
	ts := t * s
	for k := range 3 {
		d := p1[k] - p0[k]
		m0 := v0[k]*dt - d
		m1 := v1[k]*dt - d
		out[k] = p0[k] + d*t + (m0*s-m1*t)*ts
	}
	return out
}

// Consistent reports whether the velocities v0 and v1 (units per second)
// at the ends of a step of dt seconds explain its displacement d, which is
// when Hermite mode follows them (BodyPose lerps a pair they do not
// explain). Two tests, both free of units:
//
//   - along each axis, the trapezoid rule, ½(v0 + v1)·dt, which is exact
//     for any constant acceleration, gives d within a sixteenth of the
//     distance the axis's speeds cover, ½(|v0| + |v1|)·dt: a smooth
//     path's residual is of the order of its jerk times dt³ (a uniform
//     circle turning up to 45° a step passes everywhere);
//   - the velocity changes over the step by no more than √2 times the
//     larger speed: a turn of up to 90°, a start from rest or a stop (a
//     change of 1 times the speed) pass, a head-on reversal (up to 2
//     times) does not.
//
// A contact fails them: a bounce off a wall along the world's axes,
// at any angle, whose cubic would pass the wall (the residual along the
// wall's normal is |2f − 1| of that axis's distance, for a bounce at the
// fraction f of the step; the cubic passes the wall only beyond 0.68), a
// head-on reversal (a velocity change of twice the speed), a push-out or
// a velocity killed by a collision solver, a teleport without a new
// Epoch. Hermite's cubic on such a pair can swing far beyond both ends
// (x = 3.70 m at +600 m/s, then 3.725 m at −480 m/s, over 1/120 s,
// draws 4.84 m half-way; its residual is 0.106); the lerp stays on the
// segment between them. On a pair that passes, the cubic is within
// ⅛·|v1 − v0|·dt + 0.003·(|v0| + |v1|)·dt of the segment: the
// excursion of a body under the constant acceleration (v1 − v0)/dt.
//
// What it cannot see is a contact that leaves numbers a smooth path could
// have too: a world that puts a body onto the wall it reached (the
// contact point, the velocity reflected) rather than where the bounce
// would have taken it in the rest of the step publishes, for some
// fractions of the step, a pair that reads as a hard deceleration, whose
// cubic passes the wall by up to a quarter of a step's normal travel.
// Reflect the distance travelled past the wall (times the restitution),
// as examples/bounce does, and the pair is a true bounce, which the tests
// above catch. The shader's hermiteConsistent computes the same in
// float32.
func Consistent(d, v0, v1 mgl32.Vec3, dt float32) bool {
	var cc float32
	for k := range 3 {
		r := d[k] - 0.5*(v0[k]+v1[k])*dt
		if abs32(r) > hermiteSlack*(abs32(v0[k])+abs32(v1[k]))*dt {
			return false
		}
		c := v1[k] - v0[k]
		cc += c * c
	}
	top := max(v0.Len(), v1.Len())
	return cc <= 2*top*top
}

// consistentTurn is Consistent for a rotation vector phi: the trapezoid
// rule on the vector as a whole (a rotation has no walls; its axes are
// the body's, not the world's).
func consistentTurn(phi, w0, w1 mgl32.Vec3, dt float32) bool {
	var rr, cc float32
	for k := range 3 {
		r := phi[k] - 0.5*(w0[k]+w1[k])*dt
		c := w1[k] - w0[k]
		rr += r * r
		cc += c * c
	}
	l0, l1 := w0.Len(), w1.Len()
	reach := hermiteSlack * (l0 + l1) * dt
	top := max(l0, l1)
	return rr <= reach*reach && cc <= 2*top*top
}

// hermiteSlack is the share of a step's travel, ½(|v0| + |v1|)·dt, by
// which the trapezoid rule may miss the displacement (Consistent): 1/16
// (here with the ½ folded in), above the residual of smooth motion and
// below that of the contacts that make the cubic overshoot (0.106 for
// the 600 m/s bounce above).
const hermiteSlack = 1.0 / 32

// hermiteRot is the orientation interpolation the vertex shader does in
// Hermite mode, from q0 to q1 (unit quaternions) with world-frame angular
// velocities w0 and w1 (rad/s; dq/dt = ½ (0, w) ⊗ q) over dt seconds, at t
// in [0, 1].
//
// The rotation from q0 to q1, r = q1 ⊗ q0⁻¹, is known only up to whole
// turns: slerp takes the shorter arc, so a body spinning 240° a tick is
// shown turning 120° backwards. hermiteRot takes the turns from the
// angular velocity instead: of the rotation vectors (θ + 2πn)·u that give
// r (θ ∈ [0, π] about u), the one closest along u to ½(w0 + w1)·dt.
// Between the ends it follows the cubic Hermite curve on that rotation
// vector, φ(t), with end tangents w0·dt and w1·dt, and returns
// exp(φ(t)) ⊗ q0. It ends on q1 (as a rotation: ±q1), is exact for a
// constant spin about a fixed axis however many turns a tick, and close
// to the truth for a tumbling body whose axis moves little in a tick.
// With w0 = w1 the angular velocity of the shorter arc it is the slerp;
// with w0 = w1 = 0 (a body at rest at both ends) the slerp's path eased
// in and out.
//
// It returns errBadQuat when q0 or q1 is zero, infinite or NaN. Non-finite
// velocities count as zero.
func hermiteRot(q0 mgl32.Quat, w0 mgl32.Vec3, q1 mgl32.Quat, w1 mgl32.Vec3, dt, t float32) (mgl32.Quat, error) {
	if !usable(q0) || !usable(q1) {
		return mgl32.Quat{}, errBadQuat
	}
	if !finiteVec(w0) || !finiteVec(w1) {
		w0, w1 = mgl32.Vec3{}, mgl32.Vec3{}
	}
	a, b := unit(q0), unit(q1)
	phi := winding(b.Mul(a.Conjugate()), w0.Add(w1).Mul(0.5*dt))
	p := hermiteCurve(mgl32.Vec3{}, w0, phi, w1, dt, t)
	return quatExp(p).Mul(a).Normalize(), nil
}

// winding returns the rotation vector of the unit quaternion r whose
// number of turns along r's axis comes closest to the rotation vector
// pred: (θ + 2πn)·u with r = exp((θ·u)), θ ∈ [0, π]. Where r is too close
// to the identity for its axis to mean anything, u is pred's direction.
// The shader's quatWinding computes the same.
func winding(r mgl32.Quat, pred mgl32.Vec3) mgl32.Vec3 {
	w := r.W
	v := r.V
	if w < 0 {
		w, v = -w, v.Mul(-1)
	}
	sv := v.Len()
	theta := float32(2 * math.Atan2(float64(sv), float64(w)))
	var u mgl32.Vec3
	switch {
	case sv > axisEps:
		u = v.Mul(1 / sv)
	case pred.Len() > 0:
		u = pred.Normalize()
	default:
		return v.Mul(2) // the identity, near enough: no turns to count
	}
	n := float32(math.Floor(float64((pred.Dot(u)-theta)/(2*math.Pi)) + 0.5)) // as the shader rounds
	return u.Mul(theta + 2*math.Pi*n)
}

// axisEps is the length of a quaternion's vector part below which its axis
// is taken from elsewhere: about 2e-6 rad of rotation, where float32
// rounding leaves the direction of the vector part meaningless.
const axisEps = 1e-6

// quatExp returns the unit quaternion of the rotation vector phi (|phi|
// radians about phi's direction): (cos |phi|/2, sin(|phi|/2)·phi/|phi|).
func quatExp(phi mgl32.Vec3) mgl32.Quat {
	a := float64(phi.Len())
	h := 0.5 * a
	s := 0.5 - a*a/48 // sin(h)/a near 0
	if a > 1e-4 {
		s = math.Sin(h) / a
	}
	return mgl32.Quat{W: float32(math.Cos(h)), V: phi.Mul(float32(s))}
}

// quatLog returns the rotation vector of the unit quaternion q along the
// shorter arc: |result| ≤ π.
func quatLog(q mgl32.Quat) mgl32.Vec3 {
	w, v := q.W, q.V
	if w < 0 {
		w, v = -w, v.Mul(-1)
	}
	sv := v.Len()
	if sv <= axisEps {
		return v.Mul(2)
	}
	theta := float32(2 * math.Atan2(float64(sv), float64(w)))
	return v.Mul(theta / sv)
}

// quatPow returns q to the power k along the shorter arc: the rotation by
// k times q's angle about q's axis (k in [0, 1] blends from the identity
// to q).
func quatPow(q mgl32.Quat, k float32) mgl32.Quat { return quatExp(quatLog(q).Mul(k)) }

// extrapolate is the position prediction of Extrapolate mode: p moved on
// by its velocity v (units per second) for ahead seconds.
func extrapolate(p, v mgl32.Vec3, ahead float32) mgl32.Vec3 {
	if !finiteVec(v) {
		return p
	}
	return mgl32.Vec3{p[0] + v[0]*ahead, p[1] + v[1]*ahead, p[2] + v[2]*ahead}
}

// extrapolateRot is the orientation prediction of Extrapolate mode: q
// turned on by its world-frame angular velocity w (rad/s) for ahead
// seconds, exp(w·ahead) ⊗ q, normalised. It returns errBadQuat when q is
// zero, infinite or NaN; a non-finite w counts as zero.
func extrapolateRot(q mgl32.Quat, w mgl32.Vec3, ahead float32) (mgl32.Quat, error) {
	if !usable(q) {
		return mgl32.Quat{}, errBadQuat
	}
	if !finiteVec(w) || w == (mgl32.Vec3{}) {
		return unit(q), nil
	}
	return quatExp(w.Mul(ahead)).Mul(unit(q)).Normalize(), nil
}

// moving reports whether a body publishes a velocity in either snapshot:
// a finite, non-zero a or b.
func moving(a, b mgl32.Vec3) bool {
	return finiteVec(a) && finiteVec(b) && (a != mgl32.Vec3{} || b != mgl32.Vec3{})
}

func finiteVec(v mgl32.Vec3) bool {
	for _, c := range v {
		if c != c || c > math.MaxFloat32 || c < -math.MaxFloat32 {
			return false
		}
	}
	return true
}

// Pose is where and how a body is drawn: a position and a unit
// orientation quaternion.
type Pose struct {
	Pos mgl32.Vec3
	Rot mgl32.Quat
}

// Correction is one body's extrapolation correction: the offset from the
// pose predicted from the current basis to the pose drawn, as it stood
// when that basis took over. It is the CPU mirror of what the renderer
// keeps for every body in a GPU buffer, for a meter or a test that follows
// a body. The zero value is no offset.
//
// At each switch of basis (Plan.Switched), the offset left of the old one
// (times Plan.Carry) and the correction, what the old basis predicts for
// the frame minus what the new one does, are added; the frame shows the
// new prediction plus Plan.Blend times the offset. Blend decays with time
// constant a third of the planner's correction time (50 ms) in display
// time from the last frame shown before the switch: so the motion from
// that frame to this one is the predicted motion plus the correction
// times (1 − Blend), a third of it at 144 Hz, and the rest blends in over
// the next frames (95 % within the correction time of the last frame); a display slower than the blend
// shows most of the correction at once. Orientations compose the same
// way, as rotations applied on the left (world frame). A body that jumped
// (Epoch change) or is new at the switch starts with no offset.
type Correction struct {
	Pos mgl32.Vec3
	Rot mgl32.Quat // unit, applied on the left; zero counts as the identity
}

// rot returns c's rotation offset, the identity for the zero value.
func (c *Correction) rot() mgl32.Quat {
	if c.Rot == (mgl32.Quat{}) {
		return mgl32.QuatIdent()
	}
	return c.Rot
}

// Follow updates c, the correction of body i, for plan: at a switch of
// basis it folds in the correction, which it returns with ok true (zero
// for a body that jumped or is new); otherwise c stands. Call it for
// every plan, in order, as the renderer draws them; a follower that starts
// late or skips plans converges to the renderer's offset within a few
// correction times. It does nothing outside Extrapolate mode.
func (c *Correction) Follow(plan *Plan, i int) (d mgl32.Vec3, ok bool) {
	if !plan.Ready || plan.Motion != MotionExtrapolate || !plan.Switched {
		return mgl32.Vec3{}, false
	}
	if i < 0 || i >= len(plan.Next.Bodies) || i >= len(plan.Prev.Bodies) || plan.Prev.Bodies[i].Epoch != plan.Next.Bodies[i].Epoch {
		*c = Correction{}
		return mgl32.Vec3{}, true
	}
	from, to := &plan.Prev.Bodies[i], &plan.Next.Bodies[i]
	old := extrapolated(from, plan.PrevAhead)
	now := extrapolated(to, plan.Ahead)
	k := plan.Carry
	d = old.Pos.Sub(now.Pos)
	c.Pos = c.Pos.Mul(k).Add(d)
	c.Rot = quatPow(c.rot(), k).Mul(old.Rot.Mul(now.Rot.Conjugate())).Normalize()
	return d, true
}

// extrapolated is the prediction of Extrapolate mode for body b, with an
// unusable orientation shown as the identity, as the shader does.
func extrapolated(b *simthread.Body, ahead float32) Pose {
	rot, err := extrapolateRot(bodyRot(b.Rot), b.AngVel, ahead)
	if err != nil {
		rot = mgl32.QuatIdent()
	}
	return Pose{extrapolate(b.Pos, b.Vel, ahead), rot}
}

// BodyPose returns the pose the renderer draws body i of plan.Next at, by
// the CPU references of the shader's maths in the plan's motion mode:
//
//   - a body new in Next, or whose Epoch changed, at its pose in Next as
//     it is (MotionLerp, MotionHermite);
//   - MotionLerp: Lerp and Slerp between Prev and Next at Alpha;
//   - MotionHermite: Hermite and hermiteRot with the velocities over
//     Span, or Lerp and Slerp for a body without them or whose
//     velocities do not explain its motion over the pair (Consistent:
//     positions and orientations are judged apart);
//   - MotionExtrapolate: extrapolate and extrapolateRot of Next by Ahead,
//     plus c (the body's Correction after Follow for this plan; nil:
//     none) times Blend.
//
// A zero Rot is the identity, as simthread.Body documents. ok is false
// when Next has no body i. err is non-nil when another orientation that
// enters the maths cannot be normalised (zero, infinite or NaN), where the GPU uses the
// identity (see shaders/common.glsl quatNormalize).
func BodyPose(plan *Plan, i int, c *Correction) (p Pose, ok bool, err error) {
	if !plan.Ready || i < 0 || i >= len(plan.Next.Bodies) {
		return Pose{}, false, nil
	}
	to := &plan.Next.Bodies[i]
	if plan.Motion == MotionExtrapolate {
		rot, err := extrapolateRot(bodyRot(to.Rot), to.AngVel, plan.Ahead)
		if err != nil {
			return Pose{}, true, err
		}
		p = Pose{extrapolate(to.Pos, to.Vel, plan.Ahead), rot}
		if c != nil && plan.Blend > 0 {
			p.Pos = p.Pos.Add(c.Pos.Mul(plan.Blend))
			p.Rot = quatPow(c.rot(), plan.Blend).Mul(p.Rot).Normalize()
		}
		return p, true, nil
	}
	if i >= len(plan.Prev.Bodies) || plan.Prev.Bodies[i].Epoch != to.Epoch {
		r := bodyRot(to.Rot)
		rot, err := slerp(r, r, 1)
		return Pose{to.Pos, rot}, true, err
	}
	from := &plan.Prev.Bodies[i]
	t := plan.Alpha
	p.Pos = Lerp(from.Pos, to.Pos, t)
	if plan.Motion == MotionHermite && moving(from.Vel, to.Vel) && Consistent(to.Pos.Sub(from.Pos), from.Vel, to.Vel, plan.Span) {
		p.Pos = hermiteCurve(from.Pos, from.Vel, to.Pos, to.Vel, plan.Span, t)
	}
	r0, r1 := bodyRot(from.Rot), bodyRot(to.Rot)
	if plan.Motion == MotionHermite && moving(from.AngVel, to.AngVel) && consistentRot(r0, from.AngVel, r1, to.AngVel, plan.Span) {
		p.Rot, err = hermiteRot(r0, from.AngVel, r1, to.AngVel, plan.Span, t)
	} else {
		p.Rot, err = slerp(r0, r1, t)
	}
	return p, true, err
}

// consistentRot is Consistent for orientations: whether the angular
// velocities explain the rotation from q0 to q1, taken with the turns
// hermiteRot takes. An unusable quaternion is left to Slerp, which
// reports it (the shader's quatConsistent refuses only non-finite ones:
// BodyPose has read a zero Rot as the identity already).
func consistentRot(q0 mgl32.Quat, w0 mgl32.Vec3, q1 mgl32.Quat, w1 mgl32.Vec3, dt float32) bool {
	if !usable(q0) || !usable(q1) || !finiteVec(w0) || !finiteVec(w1) {
		return false
	}
	a, b := unit(q0), unit(q1)
	return consistentTurn(winding(b.Mul(a.Conjugate()), w0.Add(w1).Mul(0.5*dt)), w0, w1, dt)
}

// bodyRot is a body's orientation with the zero quaternion read as the
// identity (simthread.Body's zero value).
func bodyRot(q mgl32.Quat) mgl32.Quat {
	if q == (mgl32.Quat{}) {
		return mgl32.QuatIdent()
	}
	return q
}
