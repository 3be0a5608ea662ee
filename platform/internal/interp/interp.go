// Package interp decides what the renderer draws at a given time, without
// any GL: it picks the two snapshots whose tick times bracket the render
// time, derives the interpolation factor from their timestamps, adapts the
// render delay to the simulation's publish jitter, and measures what was
// planned and drawn against a known truth. It is the only reader of the
// snapshot history: the renderer gets a renderer.Plan, whose pose maths
// (renderer.BodyPose) it and the meter share.
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
// (renderer.MotionMode): lerp and slerp, the default; Hermite, which uses
// the velocities the bodies publish to follow curves and fast spins; or
// Extrapolate, which drops the render delay and predicts from the newest
// snapshot, blending its corrections in over CorrectionTime.
//
// Everything here is allocation-free and safe to call every frame.
package interp

import (
	"math"
	"time"
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
