package interp

import (
	"math"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/tickframe/tickframe/simthread"
	"github.com/tickframe/tickframe/sync/histogram"
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
// Paused: neither is measured, neither is hidden. A Meter belongs to the render thread; its
// histograms may be read from anywhere.
type Meter struct {
	Rate  int                                 // simulation ticks per second
	Body  int                                 // the reference body's index
	Truth func(simSeconds float64) mgl64.Vec3 // its exact position
	Speed float64                             // its speed, per second

	// PosErr is the position error in millionths of a tick's displacement.
	PosErr histogram.H
	// AnimErr is PresentMon's animation error, absolute, in ns.
	AnimErr histogram.H
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

	// The drawn and shown measurement; see Track and Shown.
	Drawn DrawnStats

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

// segment returns the offset of s on the simulation's timeline: t_k − k·step,
// which stays the same (to a nanosecond) until a discontinuity.
func segment(s *simthread.Snapshot, rate int) float64 {
	return s.Time.Seconds() - float64(s.Tick)/float64(rate)
}

// Frame measures the frame planned by plan for frameTime.
func (m *Meter) Frame(frameTime time.Duration, plan *Plan) {
	m.LastPos, m.LastAnim = math.NaN(), math.NaN()
	m.cur = tracked{}
	if !plan.Ready || m.Rate <= 0 {
		return
	}
	if plan.Paused {
		// The frozen pose of a pause: the next frame after it starts a
		// new comparison.
		m.Paused++
		m.have = false
		return
	}
	prev, next := plan.Prev, plan.Next
	if m.Body >= len(prev.Bodies) || m.Body >= len(next.Bodies) {
		m.Skipped++
		return
	}
	rate := float64(m.Rate)
	segPrev, segNext := segment(prev, m.Rate), segment(next, m.Rate)
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
		m.AnimErr.Record(int64(math.Abs(d) * 1e9))
		m.LastAnim = d * 1e3
	}
	m.have, m.lastFrame, m.lastSim, m.lastSeg = continuous, frameTime, sim, segNext

	if !continuous || plan.Clamp == Early {
		m.Skipped++
		return
	}
	// The truth: the render time on the segment, as simulated seconds.
	want := float64(prev.Tick)/rate + (plan.RenderTime - prev.Time).Seconds()
	a, b := prev.Bodies[m.Body], next.Bodies[m.Body]
	shown := b.Pos
	if a.Epoch == b.Epoch {
		shown = Lerp(a.Pos, b.Pos, plan.Alpha)
	}
	truth := m.Truth(want)
	d := mgl64.Vec3{float64(shown[0]), float64(shown[1]), float64(shown[2])}.Sub(truth).Len()
	perTick := m.Speed / rate
	m.cur = tracked{ok: perTick > 0, frameTime: frameTime, want: want, cpu: shown, sim: sim, seg: segNext}
	if perTick > 0 {
		m.PosErr.Record(int64(d / perTick * 1e6))
		m.LastPos = d / perTick
	}
}

// PosErrTicks returns the q-quantile of the position error in ticks.
func (m *Meter) PosErrTicks(q float64) float64 { return float64(m.PosErr.Quantile(q)) / 1e6 }

// AnimErrMs returns the q-quantile of PresentMon's animation error in ms.
func (m *Meter) AnimErrMs(q float64) float64 { return float64(m.AnimErr.Quantile(q)) / 1e6 }
