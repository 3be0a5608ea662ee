package verify

import (
	"math"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/tickframe/tickframe/platform/internal/refworld"
	"github.com/tickframe/tickframe/platform/internal/stats"
	"github.com/tickframe/tickframe/renderer"
)

// BounceStats is what a row measured of the bouncer (refworld.BounceBody),
// a ball bouncing elastically on a floor, after the warm-up, on the
// frames that drew it (paused ones aside), as renderer.BodyPose draws it in
// the row's motion mode (the shader's CPU reference, to which the
// renderer's GL tests hold the GPU pose for pose).
type BounceStats struct {
	Frames uint64 `json:"frames"`
	// Past counts the frames that drew it below its floor
	// (refworld.BounceFloor, less float32 rounding), Deepest the most by
	// which one did, in metres.
	Past    uint64  `json:"past_floor"`
	Deepest float64 `json:"deepest_m"`
	// Away counts the frames whose bracket holds no bounce (both
	// snapshots, and the frame's time, on one arc of the parabola); of
	// them, Apex those whose pair Hermite's guard (renderer.Consistent) did
	// not follow, across an apex (the velocity reverses), Refused those
	// it did not follow elsewhere. Err is the position error of the
	// others against the closed form at the frame's time, as drawn in the
	// row's mode, LerpErr that of the lerp of the same snapshots, in
	// ticks of the bouncer's speed at a bounce. Only non-extrapolated,
	// unclamped frames count.
	Away    uint64 `json:"away_frames"`
	Apex    uint64 `json:"apex"`
	Refused uint64 `json:"refused"`
	Err     Stat   `json:"err_ticks"`
	LerpErr Stat   `json:"lerp_err_ticks"`
}

// bounceFloorTol is how far below the floor a drawn position may lie for
// float32 rounding of a position near 0.5 m: a few ulps.
const bounceFloorTol = 1e-6

// bounceCheck follows the bouncer through a row's frames.
type bounceCheck struct {
	// pose is what the renderer draws (renderer.BodyPose when nil); a
	// test puts a renderer without Hermite's guard in its place.
	pose      func(plan *renderer.Plan, i int, c *renderer.Correction) (renderer.Pose, bool, error)
	corr      renderer.Correction // its extrapolation offset
	err, lerp stats.Histogram     // away frames' errors, in millionths of a tick
	stats     BounceStats
}

// hasBouncer reports whether a row's world has the bouncer (see newWorld).
func hasBouncer(bodies int) bool { return bodies > refworld.BounceBody }

// follow folds the plan's correction in (extrapolate), for every plan, as
// the renderer does.
func (b *bounceCheck) follow(plan *renderer.Plan) {
	b.corr.Follow(plan, refworld.BounceBody)
}

// frame measures one warm, unpaused frame of a row at sim Hz.
func (b *bounceCheck) frame(plan *renderer.Plan, sim int) {
	pose := b.pose
	if pose == nil {
		pose = renderer.BodyPose
	}
	p, ok, err := pose(plan, refworld.BounceBody, &b.corr)
	if !ok || err != nil {
		return
	}
	b.stats.Frames++
	if below := refworld.BounceFloor - float64(p.Pos[1]); below > bounceFloorTol {
		b.stats.Past++
		b.stats.Deepest = max(b.stats.Deepest, below)
	}
	if plan.Motion == renderer.MotionExtrapolate || (plan.Late || plan.Early) || plan.Prev == plan.Next {
		return
	}
	rate := float64(sim)
	ta, tb := float64(plan.Prev.Tick)/rate, float64(plan.Next.Tick)/rate
	t := ta + (plan.RenderTime - plan.Prev.Time).Seconds()
	if refworld.LastBounce(tb) > ta { // the bracket holds a bounce
		return
	}
	b.stats.Away++
	from, to := &plan.Prev.Bodies[refworld.BounceBody], &plan.Next.Bodies[refworld.BounceBody]
	if !renderer.Consistent(to.Pos.Sub(from.Pos), from.Vel, to.Vel, plan.Span) {
		// At an apex the velocity reverses within the pair (by twice
		// itself), which the guard cannot tell from a contact's: it
		// lerps, off by at most g·Span²/8.
		if math.Floor(tb/refworld.BouncePeriod) > math.Floor(ta/refworld.BouncePeriod) {
			b.stats.Apex++
		} else {
			b.stats.Refused++
		}
		return
	}
	truth := refworld.BouncePosition(t)
	tick := refworld.BounceSpeed / rate
	off := func(v [3]float32) float64 {
		return mgl64.Vec3{float64(v[0]), float64(v[1]), float64(v[2])}.Sub(truth).Len() / tick
	}
	b.err.Record(int64(off(p.Pos) * 1e6))
	b.lerp.Record(int64(off(renderer.Lerp(from.Pos, to.Pos, plan.Alpha)) * 1e6))
}

// result returns what was measured.
func (b *bounceCheck) result() BounceStats {
	s := b.stats
	stat := func(h *stats.Histogram) Stat {
		return Stat{float64(h.Quantile(0.5)) / 1e6, float64(h.Quantile(0.99)) / 1e6, float64(h.Max()) / 1e6}
	}
	s.Err, s.LerpErr = stat(&b.err), stat(&b.lerp)
	return s
}

// checkBounce adds a row's bouncer checks: in lerp and Hermite mode, on
// every row, no frame drew it below its floor (the lerp of two poses
// above it cannot; Hermite's cubic across a bounce would, but for its
// guard); in Hermite mode, on calm rows within the budget, the guard
// followed the velocities of every pair on one arc and its p99 error
// there is at most HermiteRatio of the lerp's (the arcs' chords are
// gone: the guard costs Hermite nothing away from the bounces). An
// extrapolated frame predicts from the newest snapshot, which cannot
// know of a bounce after it: its frames below the floor are counted and
// shown, not bounded (by the speed times how far past the snapshot it
// predicts).
func checkBounce(row *Row, add func(name string, ok bool, format string, args ...any)) {
	s := &row.Bounce
	if s.Frames == 0 || row.Mode != Interpolated {
		return
	}
	switch row.Motion {
	case renderer.MotionLerp.String(), renderer.MotionHermite.String():
		add("floor", s.Past == 0, "%d of %d frames drew the bouncer below its floor (the deepest %.3g m)", s.Past, s.Frames, s.Deepest)
	case renderer.MotionExtrapolate.String():
		add("floor", true, "%d of %d frames predicted the bouncer below its floor, the deepest %.3g m (a prediction cannot know of a bounce after its snapshot: shown, not bounded)",
			s.Past, s.Frames, s.Deepest)
	}
	within := time.Duration(row.Lateness.Max*1e6) <= budget(row)
	if row.Motion == renderer.MotionHermite.String() && row.LateKind == Calm && within && row.Kind != Overload && s.Away > 0 {
		// float32 rounding of the bouncer's height: 8 ulps at its apex,
		// in ticks; at high rates the lerp's own error nears it.
		top := float32(refworld.BounceFloor + refworld.BounceDrop)
		rounding := 8 * float64(math.Nextafter32(top, 10)-top) / (refworld.BounceSpeed / float64(row.Sim))
		add("arcs", s.Refused == 0 && s.Err.P99 <= max(HermiteRatio*s.LerpErr.P99, rounding),
			"of %d frames between bounces the guard lerped %d across an apex and %d elsewhere; p99 error of the rest %.2g ticks, the lerp's %.2g (at most %g of it, or float32 rounding, %.2g)",
			s.Away, s.Apex, s.Refused, s.Err.P99, s.LerpErr.P99, HermiteRatio, rounding)
	}
}

// bounceNotes explains the bouncer checks, after notes.
const bounceNotes = `Bouncer (body 2): a ball bouncing elastically on a floor every 1.28 s, its velocity reversed within a tick at each
bounce. floor: in lerp and hermite rows no frame draws it below its floor (hermite lerps a pair whose velocities do
not explain its motion: renderer.Consistent); extrap's frames below it are counted, not bounded (a prediction cannot
know of a bounce after its snapshot). arcs (hermite, calm, within the budget): between bounces the guard refuses no
pair but across an apex (the velocity reverses), and the p99 error of the rest is at most 1/100 of the lerp's (or 8
float32 ulps of the bouncer's height, where the lerp's own error nears that: 240 Hz and up).
`
