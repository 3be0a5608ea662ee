// Package interp decides what the renderer draws at a given time, without
// any GL: it picks the two snapshots whose tick times bracket the render
// time, derives the interpolation factor from their timestamps, adapts the
// render delay to the simulation's publish jitter, and holds the CPU
// reference of the shader's interpolation maths.
//
// The render time of a frame is its display time minus a render delay. A
// snapshot of tick k has a nominal time t_k but is published a little after
// it (the simulation wakes late and its steps take time). A frame at time f
// can interpolate only if it already holds a snapshot at or after f − delay,
// which holds for every frame when delay ≥ one step + the largest publish
// delay. Delay adapts that margin at run time the way a network jitter
// buffer does: it rises quickly when publishes come later, falls slowly when
// they come earlier, and never moves fast enough to make the displayed
// simulation time run backwards.
//
// How bodies move between snapshots is the planner's motion mode
// (MotionMode): lerp and slerp, the default; Hermite, which uses the
// velocities the bodies publish to follow curves and fast spins; or
// Extrapolate, which drops the render delay and predicts from the newest
// snapshot, blending its corrections in. BodyPose is the CPU reference of
// what the renderer draws in each mode.
//
// Everything here is allocation-free and safe to call every frame.
package interp

import (
	"errors"
	"math"
	"time"

	"github.com/go-gl/mathgl/mgl32"
)

// Alpha returns where t lies between ta and tb as a factor in [0, 1]:
// (t − ta) / (tb − ta). It reports clamped when t lies outside [ta, tb] or
// the interval is empty or backwards (then alpha is 1 if t ≥ tb, else 0).
// It never returns NaN, for any inputs.
func Alpha(t, ta, tb time.Duration) (alpha float64, clamped bool) {
	// Subtract in float64: the int64 differences of extreme times overflow.
	return AlphaSeconds(float64(t), float64(ta), float64(tb))
}

// AlphaSeconds is Alpha on float timestamps (any unit). NaN or infinite
// inputs give a clamped 0 or 1, never NaN.
func AlphaSeconds(t, ta, tb float64) (alpha float64, clamped bool) {
	switch {
	case math.IsNaN(t) || math.IsNaN(ta) || math.IsNaN(tb):
		return 0, true
	case !(tb > ta):
		if t >= tb {
			return 1, true
		}
		return 0, true
	case t <= ta:
		return 0, t < ta
	case t >= tb:
		return 1, t > tb
	}
	a := (t - ta) / (tb - ta)
	if math.IsNaN(a) { // (Inf − x) / Inf
		return 0, true
	}
	return min(max(a, 0), 1), false
}

// Lerp is the position interpolation the vertex shader does: a + (b−a)·t.
func Lerp(a, b mgl32.Vec3, t float32) mgl32.Vec3 {
	return mgl32.Vec3{a[0] + (b[0]-a[0])*t, a[1] + (b[1]-a[1])*t, a[2] + (b[2]-a[2])*t}
}

// ErrBadQuat is returned by Slerp for a quaternion that cannot be normalised.
var ErrBadQuat = errors.New("interp: quaternion is zero, infinite or NaN")

// Slerp is the orientation interpolation the vertex shader does: mathgl's
// QuatSlerp (normalise both ends, take the shorter arc, fall back to a
// normalised lerp when the ends are within about 1.8°), with its inputs
// checked. t is clamped to [0, 1] (NaN counts as 0). The result is a unit
// quaternion, or ErrBadQuat when an end is zero, infinite or NaN.
func Slerp(a, b mgl32.Quat, t float32) (mgl32.Quat, error) {
	if !usable(a) || !usable(b) {
		return mgl32.Quat{}, ErrBadQuat
	}
	if !(t >= 0) {
		t = 0
	}
	t = min(t, 1)
	q := mgl32.QuatSlerp(unit(a), unit(b), t).Normalize()
	if !usable(q) {
		return mgl32.Quat{}, ErrBadQuat
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
