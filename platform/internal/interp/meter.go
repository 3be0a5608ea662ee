package interp

import (
	"math"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/tickframe/tickframe/platform/internal/stats"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/simthread"
)

// Meter measures, frame by frame, how far the motion on screen is from the
// truth. It follows one reference body (index Body of every snapshot) whose
// exact path is known, and measures two things:
//
//   - Position error: the displayed position of the reference body against
//     Truth at the simulated time the frame should show, in units of the
//     body's displacement per tick. The simulated time a frame should show
//     is its render time mapped onto the simulation's timeline: tick k
//     stands at its nominal time t_k, and time runs at one tick per step in
//     between.
//   - PresentMon's animation error: between consecutive frames, the
//     advance of the displayed simulated time minus the advance of the
//     display time, in nanoseconds. It is zero when motion on screen runs
//     exactly as fast as the display's clock.
//
// Frames whose render time lies across a discontinuity of the simulation's
// timeline (a pause, clamped or discarded time) have no defined truth and
// are counted in Skipped instead, and frames of a pause (Plan.Paused) in
// Paused: neither is measured, neither is hidden.
//
// A Meter belongs to the render thread. Its histograms are read through
// read-only views (PosErr, AnimErr, RotErr, Correction, Drawn) from any
// goroutine; only the meter writes them. Its settings are NewMeter's,
// fixed for its life; its exported fields are its counts, which only the
// meter writes. A zero Meter measures nothing: get one from NewMeter.
type Meter struct {
	// Its settings, fixed by NewMeter: the simulation's ticks per second
	// and the reference it follows.
	rate int
	ref  Reference

	// posErr is the position error in millionths of a tick's
	// displacement; animErr PresentMon's animation error, absolute, in ns.
	posErr, animErr stats.Histogram
	// Skipped counts frames with no defined truth.
	Skipped uint64
	// Paused counts frames of a pause, which show no motion to measure.
	Paused uint64
	// Backwards counts frames whose displayed simulated time was earlier
	// than the previous frame's.
	Backwards uint64
	// LastPos and LastAnim are the last frame's position error (ticks) and
	// signed animation error (ms), NaN where that frame had none.
	LastPos, LastAnim float64

	// rotErr is the angle between SpinBody's drawn orientation and the
	// truth, in microradians.
	rotErr stats.Histogram
	// Spins counts the frames whose turn since the previous frame was
	// judged (both measured, on one segment of the timeline, the truth
	// turning by 0.001 rad to 0.9 π: more is ambiguous, a half turn
	// either way being the same), WrongWay those among them whose drawn
	// orientation turned the other way than the truth, by more than
	// 0.001 rad: a spin of more than half a turn per tick, slerped.
	Spins, WrongWay uint64

	// correction is, in Extrapolate mode, the correction folded in for
	// Body at each switch of basis that blends (see Meter.Correction).
	// Corrections counts them, Snaps the switches that showed theirs at
	// once (after a render stall; see Plan.Switched).
	correction  stats.Histogram
	Corrections uint64
	Snaps       uint64
	// LastCorr is the last frame's correction in ticks, NaN where that
	// frame switched no basis.
	LastCorr float64

	// The drawn and shown measurement; see Track, Shown and Drawn.
	drawn drawnStats

	// corr and spinCorr mirror the renderer's correction offsets of Body
	// and SpinBody (Extrapolate mode).
	corr, spinCorr renderer.Correction
	spin           struct {
		have         bool
		shown, truth mgl64.Quat
		seg          float64
	}

	have      bool
	lastFrame time.Duration
	lastSim   float64 // displayed simulated time, seconds
	lastSeg   float64 // timeline offset of the last frame's segment

	cur     tracked // the last Frame's figures, for Track
	pending [trackDepth]tracked
	shown   struct {
		have    bool
		at, sim float64 // display time, displayed simulated time (s)
		seg     float64
		id      uint64
	}
}

// Reference is the body a Meter follows and its exact path.
type Reference struct {
	// Body is the reference body's index in every snapshot; Truth its
	// exact position at a simulated time in seconds, Speed its speed per
	// second.
	Body  int
	Truth func(simSeconds float64) mgl64.Vec3
	Speed float64
	// SpinTruth, if set, is the exact orientation of body SpinBody at a
	// simulated time in seconds (refworld's spinner): the meter then
	// measures how far the drawn orientation is from it, and which way it
	// turns.
	SpinBody  int
	SpinTruth func(simSeconds float64) mgl64.Quat
}

// NewMeter returns a meter for a simulation of rate ticks per second
// following ref, with nothing measured yet: LastPos, LastAnim and
// LastCorr are NaN until its first measured frame.
func NewMeter(rate int, ref Reference) *Meter {
	return &Meter{rate: rate, ref: ref, LastPos: math.NaN(), LastAnim: math.NaN(), LastCorr: math.NaN()}
}

// Reset empties every histogram and count, keeping what the next frame is
// compared with (the last frame's displayed time and orientation, the
// correction mirrors), so that the first frame after a Reset is measured
// exactly as it would have been without it. Frames drawn before the
// Reset and not yet shown are no longer tracked. It must be called by the
// meter's owner (the render thread), not while another goroutine reads.
func (m *Meter) Reset() {
	m.posErr.Reset()
	m.animErr.Reset()
	m.rotErr.Reset()
	m.correction.Reset()
	m.Skipped, m.Paused, m.Backwards = 0, 0, 0
	m.Spins, m.WrongWay, m.Corrections, m.Snaps = 0, 0, 0, 0
	m.drawn.reset()
	m.pending = [trackDepth]tracked{}
}

// Hist is a read-only view of one of a Meter's histograms: it may be read
// from any goroutine while the meter's owner writes.
type Hist struct{ h *stats.Histogram }

// Count reports how many samples were recorded.
func (v Hist) Count() uint64 { return v.h.Count() }

// Max reports the largest sample exactly, 0 when empty.
func (v Hist) Max() int64 { return v.h.Max() }

// Mean reports the mean sample, 0 when empty.
func (v Hist) Mean() float64 { return v.h.Mean() }

// Quantile reports the q-quantile to within about 3 % (stats.Histogram).
func (v Hist) Quantile(q float64) int64 { return v.h.Quantile(q) }

// Summary reads the count, mean, median, 99th percentile and maximum.
func (v Hist) Summary() stats.Summary { return v.h.Summary() }

// PosErr is the position error in millionths of a tick's displacement.
func (m *Meter) PosErr() Hist { return Hist{&m.posErr} }

// AnimErr is PresentMon's animation error, absolute, in ns.
func (m *Meter) AnimErr() Hist { return Hist{&m.animErr} }

// RotErr is the angle between SpinBody's drawn orientation and the truth,
// in microradians.
func (m *Meter) RotErr() Hist { return Hist{&m.rotErr} }

// Correction is, in Extrapolate mode, the correction folded in for Body at
// each switch of basis that blends: what the old basis predicted for the
// frame minus what the new one does, in millionths of a tick's
// displacement (see interp.Correction).
func (m *Meter) Correction() Hist { return Hist{&m.correction} }

// segment returns the offset of s on the simulation's timeline: t_k − k·step,
// which stays the same (to a nanosecond) until a discontinuity.
func segment(s *simthread.Snapshot, rate int) float64 {
	return s.Time.Seconds() - float64(s.Tick)/float64(rate)
}

// Measure measures the frame planned by plan for frameTime.
func (m *Meter) Measure(frameTime time.Duration, plan *renderer.Plan) {
	m.LastPos, m.LastAnim, m.LastCorr = math.NaN(), math.NaN(), math.NaN()
	m.cur = tracked{}
	if !plan.Ready || m.rate <= 0 {
		return
	}
	// The renderer folds a correction in at every switch of basis, paused
	// frames or not: so do the mirrors.
	d, folded := m.corr.Follow(plan, m.ref.Body)
	if m.ref.SpinTruth != nil {
		m.spinCorr.Follow(plan, m.ref.SpinBody)
	}
	if plan.Paused {
		// The frozen pose of a pause: the next frame after it starts a
		// new comparison.
		m.Paused++
		m.have, m.spin.have = false, false
		return
	}
	prev, next := plan.Prev, plan.Next
	if m.ref.Body >= len(prev.Bodies) || m.ref.Body >= len(next.Bodies) {
		m.Skipped++
		return
	}
	rate := float64(m.rate)
	segPrev, segNext := segment(prev, m.rate), segment(next, m.rate)
	continuous := math.Abs(segPrev-segNext) < 1e-6
	sim := plan.SimTick / rate // displayed simulated time, seconds

	if m.have && sim < m.lastSim-1e-9 {
		m.Backwards++
	}
	// PresentMon: only between consecutive frames both wholly on one
	// segment of the timeline; a frame across a discontinuity shows a time
	// that is on neither, so the next frame is not compared with it.
	if m.have && continuous && math.Abs(segNext-m.lastSeg) < 1e-6 {
		d := (sim - m.lastSim) - (frameTime - m.lastFrame).Seconds()
		m.animErr.Record(int64(math.Abs(d) * 1e9))
		m.LastAnim = d * 1e3
	}
	m.have, m.lastFrame, m.lastSim, m.lastSeg = continuous, frameTime, sim, segNext

	if !continuous || plan.Early {
		m.Skipped++
		m.spin.have = false
		return
	}
	perTick := m.ref.Speed / rate
	if folded && prev != next && perTick > 0 {
		c := float64(d.Len()) / perTick
		m.LastCorr = c
		if plan.Blend > 0 {
			m.correction.Record(int64(c * 1e6))
			m.Corrections++
		} else {
			m.Snaps++
		}
	}
	// The truth: the render time on the segment, as simulated seconds.
	want := float64(next.Tick)/rate + (plan.RenderTime - next.Time).Seconds()
	// The CPU reference of what the renderer draws, in the plan's mode.
	// An unusable orientation does not matter to the position.
	pose, _, _ := renderer.BodyPose(plan, m.ref.Body, &m.corr)
	shown := pose.Pos
	truth := m.ref.Truth(want)
	dist := vec64(shown).Sub(truth).Len()
	m.cur = tracked{ok: perTick > 0, frameTime: frameTime, want: want, cpu: shown, sim: sim, seg: segNext}
	if perTick > 0 {
		m.posErr.Record(int64(dist / perTick * 1e6))
		m.LastPos = dist / perTick
	}
	m.measureSpin(plan, want, segNext)
}

// Spin judging bounds, in radians: a truth turning less than spinMin
// between two frames is standing still, one turning more than spinMax
// could be turning either way; a drawn turn backwards by less than
// spinMin is rounding.
const (
	spinMin = 1e-3
	spinMax = 0.9 * math.Pi
)

// measureSpin measures SpinBody's drawn orientation against SpinTruth at
// simulated time want, and the direction it turned since the last
// measured frame on the same segment.
func (m *Meter) measureSpin(plan *renderer.Plan, want, seg float64) {
	if m.ref.SpinTruth == nil {
		return
	}
	pose, ok, err := renderer.BodyPose(plan, m.ref.SpinBody, &m.spinCorr)
	if !ok || err != nil {
		m.spin.have = false
		return
	}
	shown := mgl64.Quat{W: float64(pose.Rot.W), V: vec64(pose.Rot.V)}
	truth := m.ref.SpinTruth(want)
	m.rotErr.Record(int64(rotAngle(shown.Mul(truth.Conjugate())) * 1e6))
	if m.spin.have && math.Abs(seg-m.spin.seg) < 1e-6 {
		drawn := rotVector(shown.Mul(m.spin.shown.Conjugate()))
		turned := rotVector(truth.Mul(m.spin.truth.Conjugate()))
		if a := turned.Len(); a >= spinMin && a <= spinMax {
			m.Spins++
			if drawn.Dot(turned.Mul(1/a)) < -spinMin {
				m.WrongWay++
			}
		}
	}
	m.spin.have, m.spin.shown, m.spin.truth, m.spin.seg = true, shown, truth, seg
}

// rotVector returns the rotation vector of the rotation q along the
// shorter arc (|result| ≤ π), in float64.
func rotVector(q mgl64.Quat) mgl64.Vec3 {
	w, v := q.W, q.V
	if w < 0 {
		w, v = -w, v.Mul(-1)
	}
	s := v.Len()
	if s == 0 {
		return mgl64.Vec3{}
	}
	return v.Mul(2 * math.Atan2(s, w) / s)
}

// rotAngle returns the angle of the rotation q, in [0, π].
func rotAngle(q mgl64.Quat) float64 { return rotVector(q).Len() }

// PosErrTicks returns the q-quantile of the position error in ticks.
func (m *Meter) PosErrTicks(q float64) float64 { return float64(m.posErr.Quantile(q)) / 1e6 }

// AnimErrMs returns the q-quantile of PresentMon's animation error in ms.
func (m *Meter) AnimErrMs(q float64) float64 { return float64(m.animErr.Quantile(q)) / 1e6 }
