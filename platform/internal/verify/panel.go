package verify

import (
	"fmt"
	"math"
	"time"

	"github.com/tickframe/tickframe/renderer"
)

// A Panel row is a variable-refresh display (G-Sync, FreeSync, HDMI VRR)
// driven by the pacing policy tickframe uses for one, on the virtual
// clock:
//
//   - The panel scans a frame out when it is presented, but no sooner
//     than 1/MaxHz after the last scan-out began (its fastest scan). When
//     no frame comes within 1/MinHz, it scans the last one out again (low
//     framerate compensation) every 1/MinHz, and a frame presented during
//     such a repeat waits for the repeat's scan to end (1/MaxHz).
//   - Its present feedback is the scan-out time of each frame, with no
//     refresh period (a VRR output reports refresh 0): there is no grid to
//     snap to, only the times frames were shown.
//   - The policy: frames are capped a few Hz below the maximum
//     (panelCapBelow, as G-Sync's guidance says: at the maximum, a frame
//     that comes early waits as on a fixed display), and each frame is
//     animated to its predicted present time: the frame starts, predicts
//     its cost as the largest of the last panelWindow frames' (at most
//     the slowest interval) plus panelMargin, targets its present at that
//     (no sooner than the cap after the last scan-out), holds its present
//     until the target, and predicts where the panel scans it out,
//     repeats included. The interpolation is planned for that predicted
//     scan-out, a constant lead ahead of the frame's start
//     (panelPlanLead).
//
// A frame that costs more than predicted is presented when ready and
// shown late by as much: the steady and jittery costs never do once their
// window has seen them (the maximum errors are bounded), the heavy-tailed
// ones do now and then (their p99 is). The broken variant (-break
// vrr-grid) plans each frame for a fixed grid at the maximum rate, as an
// app that took the panel for a fixed display would, and must fail.

// panelNotes explain the panel rows under the table.
const panelNotes = `Panels (-vrr): a variable-refresh panel scans a frame out when it is presented, at least 1/MAX after the last
scan-out; after 1/MIN without one it repeats the last frame (low framerate compensation), and a frame presented during
a repeat waits for its scan (1/MAX). Its feedback is each frame's scan-out, no refresh period. The policy: frames
capped 3 Hz below MAX; each predicts its cost (the largest of the last 256, at most 1/MIN, plus 0.5 ms), holds its
present until then, and is animated to the scan-out the panel model predicts for that present (a constant lead
ahead of its start: 1/MIN + 0.5 ms + 1/MAX). Costs: steady, the interval at the harmonic mean of the range; jitter,
0.5 to 1.5 times that; heavy, lognormal around 0.8 times it, and one frame in 400 two to four times. Bounds: p99 as
every row; the max too on steady and jitter costs. -break vrr-grid animates each frame to a fixed MAX grid instead.
`

// breakVRRGrid is -break's name for the broken variant of the Panel rows.
const breakVRRGrid = "vrr-grid"

// The frame costs of a Panel row (Pattern.Costs).
const (
	PanelSteady = "steady" // every frame costs the nominal cost
	PanelJitter = "jitter" // uniform between half and 1.5 times the nominal cost
	PanelHeavy  = "heavy"  // lognormal around 0.8 of it, and one frame in 400 two to four times it
)

// DefaultPanelMaxHz is a panel's highest rate by default (its lowest is
// DefaultVRRMinHz).
const DefaultPanelMaxHz = 144

// The pacing policy's figures.
const (
	panelCapBelow = 3                      // Hz below the panel's highest rate
	panelWindow   = 256                    // frames whose costs the prediction covers
	panelMargin   = 500 * time.Microsecond // added to the largest cost of the window
)

// panelMotions are the motion modes of the VRR matrix: lerp and hermite.
// Extrapolate predicts at most its reach (interp.MaxAhead steps, or the
// delay and a step) past the newest snapshot, and the policy plans a
// frame up to the slowest interval and a scan ahead of its start: beyond
// the reach at simulation rates above 60 Hz, where such frames hold the
// newest pose (clamped late). -motion extrapolate runs it anyway.
var panelMotions = []renderer.MotionMode{renderer.MotionLerp, renderer.MotionHermite}

// panelRows are the displays of the VRR matrix (-vrr).
var panelRows = []string{
	"panel:48:144:steady", "panel:48:144:jitter", "panel:48:144:heavy",
	"panel:48:360:steady", "panel:48:360:jitter", "panel:48:360:heavy",
}

func costsArg(dst *string) argParser {
	return func(s string) error {
		switch s {
		case PanelSteady, PanelJitter, PanelHeavy:
			*dst = s
			return nil
		}
		return fmt.Errorf("frame costs %q: want %s, %s or %s", s, PanelSteady, PanelJitter, PanelHeavy)
	}
}

// panelCost is the nominal frame cost: the interval at the harmonic mean
// of the panel's range (10.4 ms on 48–144 Hz, 4.9 ms on 48–360 Hz), so
// that the frames vary within the range.
func (p Pattern) panelCost() time.Duration {
	return time.Duration(2 / (p.MinHz + p.MaxHz) * float64(time.Second))
}

// panelFrame is one frame of a Panel row: when it started (the frame's
// event: it is planned then), the scan-out the policy predicted for it
// (what it is animated to), when the panel scanned it out, and the fixed
// grid's time (the broken variant's).
type panelFrame struct {
	start, planned, shown, grid time.Duration
}

// panelState is a Panel row's panel and policy.
type panelState struct {
	costs     [panelWindow]time.Duration
	nCosts    int
	start     time.Duration // the next frame's start
	lastShown time.Duration // the last scan-out's start
	started   bool
	// cur is the frame next() returned before the last one: the one the
	// row handles while the next one's time is known (the row reads a
	// frame's time ahead of handling it).
	cur, gen panelFrame
}

// scan returns when the panel scans out a frame presented at t, after the
// last scan-out: no sooner than its fastest interval after that scan, or
// after the low framerate compensation's repeat that t falls behind.
func (f *frames) scan(t time.Duration) time.Duration {
	ps := &f.panel
	if !ps.started {
		return t
	}
	fastest := time.Duration(float64(time.Second) / f.p.MaxHz)
	slowest := time.Duration(float64(time.Second) / f.p.MinHz)
	last := ps.lastShown
	for t > last+slowest {
		last += slowest // the panel scanned the last frame out again
	}
	return max(t, last+fastest)
}

// panelNext makes the next frame: its start is its event's time.
func (f *frames) panelNext() time.Duration {
	ps := &f.panel
	ps.cur = ps.gen
	if !ps.started && f.n == 0 {
		ps.start = f.base
	}
	s := ps.start
	slowest := time.Duration(float64(time.Second) / f.p.MinHz)
	lead := slowest // before any frame was timed
	if ps.nCosts > 0 {
		lead = 0
		for _, c := range ps.costs[:min(ps.nCosts, panelWindow)] {
			lead = max(lead, c)
		}
	}
	// A frame that costs more than the slowest interval is shown late
	// whatever is predicted; predicting it would hold the frames after it
	// back for the whole window.
	target := s + min(lead, slowest) + panelMargin
	if ps.started {
		capped := time.Duration(float64(time.Second) / (f.p.MaxHz - panelCapBelow))
		target = max(target, ps.lastShown+capped)
	}
	planned := f.scan(target)

	cost := f.panelCostSample()
	ps.costs[ps.nCosts%panelWindow] = cost
	ps.nCosts++
	present := max(s+cost, target) // held until the target
	shown := f.scan(present)
	// The fixed grid at the panel's highest rate: the broken variant's
	// display time, the grid's first vblank at or after the target.
	fastest := float64(time.Second) / f.p.MaxHz
	grid := time.Duration(math.Ceil(float64(target)/fastest) * fastest)

	ps.gen = panelFrame{start: s, planned: planned, shown: shown, grid: grid}
	ps.lastShown, ps.started = shown, true
	ps.start = present // the next frame starts once this one is presented
	f.n++
	f.last = s
	return s
}

// panelPlanLead is how far ahead of its start a frame is planned, the
// planner's lead (interp.Planner.SetLead): the most a predicted scan-out
// lies after the frame's start (the slowest interval and the margin, and a
// repeat's scan). It is constant: a lead that moved with each prediction
// would move the render time against the display time, which is
// animation error.
func (p Pattern) panelPlanLead() time.Duration {
	return time.Duration(float64(time.Second)/p.MinHz) + panelMargin + time.Duration(float64(time.Second)/p.MaxHz)
}

// panelCostSample draws the next frame's cost.
func (f *frames) panelCostSample() time.Duration {
	c := float64(f.p.panelCost())
	switch f.p.Costs {
	case PanelJitter:
		c *= 0.5 + f.rng.Float64()
	case PanelHeavy:
		c *= 0.8 * math.Exp(0.25*f.rng.NormFloat64())
		if f.rng.IntN(400) == 0 {
			c *= 2.5 + 2*f.rng.Float64()
		}
	}
	return time.Duration(c)
}
