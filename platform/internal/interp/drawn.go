package interp

import (
	"math"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/tickframe/tickframe/platform/internal/stats"
)

// What was drawn and when it was shown.
//
// Measure measures what the planner asked for, computed on the CPU at the
// time the frame was meant for. That cannot see a GPU path that draws
// something else, nor a frame that reaches the screen late. So a renderer
// that can read back the reference body's pose from its interpolation pass
// (renderer.Probe) and an app that knows when each frame was displayed
// report both a few frames later, and the meter measures again from them:
//
//	m.Measure(frameTime, &plan) // what was planned
//	m.Track(id)               // the frame is drawn as id
//	…                         // frames later, from the GPU read-back:
//	m.Shown(Shown{Frame: id, Pos: probe.Pos, HasPos: probe.Valid, At: displayTime})
//
// The figures are in Meter.Drawn(): the GPU's position error at the frame's
// planned time beside the CPU's (they must agree to float32 precision:
// GPUDiff), how much later than planned each frame reached the display
// (DisplayLag: one refresh period in a double-buffered pipeline when frames
// are on time, more when they miss), and PresentMon's animation error
// between consecutive displayed frames on the real display times, which is
// where a late or dropped frame shows as judder.

// trackDepth is how many drawn frames wait for their read-back: enough
// for the 2–8 frames a read-back and a present time lag behind.
const trackDepth = 32

// tracked is one frame waiting for what the GPU drew and when it was shown.
type tracked struct {
	id        uint64
	ok        bool // the frame had a truth (not skipped or paused)
	frameTime time.Duration
	want      float64    // the truth's simulated time at frameTime, seconds
	cpu       mgl32.Vec3 // the position the CPU reference computed
	sim       float64    // the displayed simulated time, seconds
	seg       float64    // its timeline segment
}

// Shown is what the GPU drew in frame Frame and when it was displayed.
type Shown struct {
	Frame uint64
	// Pos is the reference body's position read back from the GPU, when
	// HasPos.
	Pos    mgl32.Vec3
	HasPos bool
	// At is when the frame was displayed, on the frame times' clock; 0
	// when unknown.
	At time.Duration
}

// drawnStats are the meter's figures from read-backs and present times;
// Meter.Drawn gives a read-only view of them.
type drawnStats struct {
	posErrGPU, gpuDiff, displayLag, animErrShown stats.Histogram
	gpuDiffMax                                   float64
	tracked, measured, lost                      uint64
}

func (d *drawnStats) reset() {
	d.posErrGPU.Reset()
	d.gpuDiff.Reset()
	d.displayLag.Reset()
	d.animErrShown.Reset()
	d.gpuDiffMax, d.tracked, d.measured, d.lost = 0, 0, 0, 0
}

// DrawnStats are the figures measured from read-backs and present times.
// Histograms in millionths of a tick (positions) and ns (animation error).
// The histograms are views the meter goes on writing; the counts are as of
// the call to Meter.Drawn.
type DrawnStats struct {
	// PosErrGPU is the read-back position's error against the truth at
	// the frame's intended time: the GPU's figure for Meter.PosErr.
	PosErrGPU Hist
	// GPUDiff is |read-back − CPU reference| in millionths of a tick;
	// GPUDiffMax the largest, in world units.
	GPUDiff    Hist
	GPUDiffMax float64
	// DisplayLag is when the frame reached the display minus the time it
	// was planned for, in ns (0 when earlier).
	DisplayLag Hist
	// AnimErrShown is PresentMon's animation error on the displayed
	// frames: between consecutive displayed frames, the advance of the
	// displayed simulated time minus the advance of the display time.
	AnimErrShown Hist
	// Tracked counts frames tracked, Measured those measured from a
	// read-back, Lost those whose read-back never came (or came after
	// trackDepth newer frames).
	Tracked, Measured, Lost uint64
}

// Drawn returns the figures measured from read-backs and present times.
// Its counts must be read on the meter's goroutine (or after it stopped);
// its histograms anywhere.
func (m *Meter) Drawn() DrawnStats {
	d := &m.drawn
	return DrawnStats{PosErrGPU: Hist{&d.posErrGPU}, GPUDiff: Hist{&d.gpuDiff}, GPUDiffMax: d.gpuDiffMax,
		DisplayLag: Hist{&d.displayLag}, AnimErrShown: Hist{&d.animErrShown},
		Tracked: d.tracked, Measured: d.measured, Lost: d.lost}
}

// Track records that the frame Frame last measured is drawn as frame id
// (ids increase). Call it after Frame, before the next Frame.
func (m *Meter) Track(id uint64) {
	m.drawn.tracked++
	slot := &m.pending[id%trackDepth]
	if slot.id != 0 && slot.ok {
		m.drawn.lost++ // its read-back never came
	}
	*slot = m.cur
	slot.id = id
}

// Shown measures a tracked frame from what the GPU drew and when it was
// displayed. Frames whose truth was undefined (paused, across a
// discontinuity) or that are no longer tracked are ignored.
func (m *Meter) Shown(s Shown) {
	t := &m.pending[s.Frame%trackDepth]
	if t.id != s.Frame || s.Frame == 0 {
		return
	}
	t.id = 0
	if !t.ok {
		m.shown.have = false
		return
	}
	rate := float64(m.rate)
	perTick := m.ref.Speed / rate
	if s.HasPos {
		m.drawn.measured++
		gpu := vec64(s.Pos)
		m.drawn.posErrGPU.Record(int64(gpu.Sub(m.ref.Truth(t.want)).Len() / perTick * 1e6))
		diff := gpu.Sub(vec64(t.cpu)).Len()
		m.drawn.gpuDiff.Record(int64(diff / perTick * 1e6))
		m.drawn.gpuDiffMax = max(m.drawn.gpuDiffMax, diff)
	}
	if s.At <= 0 {
		return
	}
	m.drawn.displayLag.Record(int64(max(s.At-t.frameTime, 0)))
	at := s.At.Seconds()
	if m.shown.have && s.Frame > m.shown.id && math.Abs(t.seg-m.shown.seg) < 1e-6 && at > m.shown.at {
		d := (t.sim - m.shown.sim) - (at - m.shown.at)
		m.drawn.animErrShown.Record(int64(math.Abs(d) * 1e9))
	}
	m.shown.have, m.shown.at, m.shown.sim, m.shown.seg, m.shown.id = true, at, t.sim, t.seg, s.Frame
}

func vec64(v mgl32.Vec3) mgl64.Vec3 { return mgl64.Vec3{float64(v[0]), float64(v[1]), float64(v[2])} }
