package window

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"
)

// Clock is the time source a Pacer runs on: a monotonic timeline in
// durations since an origin. simthread's clocks satisfy it, so the pacer
// and the simulation can share one without this package knowing of the
// simulation.
type Clock interface {
	// Now reports the current time.
	Now() time.Duration
	// SleepUntil blocks until Now() >= t or ctx is done, and returns
	// ctx.Err() in the second case.
	SleepUntil(ctx context.Context, t time.Duration) error
}

// MaxRefresh bounds the refresh rates a Pacer accepts.
const MaxRefresh = 10000

// Pacer decides when frames start and which display time each frame
// shows. It runs in one of two modes:
//
//   - Software pacing emulates a display of a given refresh rate where
//     there is none that paces (Xvfb, vsync off): Frame sleeps until the
//     emulated display's next vblank and returns that vblank's time, so
//     frame times are exact and free of wake-up jitter.
//   - Hardware pacing lets the driver's vsync pace the frames (Swap
//     blocks) and snaps each measured frame start to the display's grid,
//     following slow drift, so the render time does not carry the
//     scheduling jitter of Swap's return.
//
// A frame that misses its vblank skips to the next one after it, counted
// in Missed, as a real display would.
type Pacer struct {
	clock    Clock
	hz       float64
	software bool

	started bool
	origin  time.Duration // time of vblank 0
	k       int64         // index of the last vblank returned
	last    time.Duration
	missed  uint64
	idle    bool // see Idle
}

// NewPacer returns a pacer for a display of hz frames per second, software
// (sleeping on clock until each vblank) or hardware (snapping to the grid).
func NewPacer(clock Clock, hz float64, software bool) (*Pacer, error) {
	if !(hz >= 1 && hz <= MaxRefresh) {
		return nil, fmt.Errorf("window: refresh rate %v Hz out of range [1, %d]", hz, MaxRefresh)
	}
	return &Pacer{clock: clock, hz: hz, software: software}, nil
}

// Hz reports the paced refresh rate.
func (p *Pacer) Hz() float64 { return p.hz }

// Software reports whether the pacer sleeps to emulate the display.
func (p *Pacer) Software() bool { return p.software }

// Period returns the nominal frame period.
func (p *Pacer) Period() time.Duration { return time.Duration(1e9 / p.hz) }

// Missed reports how many vblanks were skipped because a frame came late.
func (p *Pacer) Missed() uint64 { return p.missed }

// Idle tells the pacer that no frame is drawn until the next Frame or
// FrameAt (a hidden window rests instead): the vblanks that call skips
// were not missed by a late frame, and do not count in Missed.
func (p *Pacer) Idle() { p.idle = true }

func (p *Pacer) vblank(k int64) time.Duration {
	return p.origin + time.Duration(math.Round(float64(k)*1e9/p.hz))
}

// DisplayAt returns when a frame whose image is complete at time t reaches
// the display: the first vblank of the pacer's grid at or after t (t
// itself before the first frame). It is the "displayed" time PresentMon
// would report for a present that completes at t.
func (p *Pacer) DisplayAt(t time.Duration) time.Duration {
	if !p.started {
		return t
	}
	k := int64(math.Ceil(float64(t-p.origin) * p.hz / 1e9))
	for p.vblank(k) < t { // float rounding
		k++
	}
	for p.vblank(k-1) >= t {
		k--
	}
	return p.vblank(k)
}

// Next waits, in software mode, for the next vblank, and returns the
// display time of the frame about to be drawn. It returns ctx.Err() if ctx
// is done while it waits.
func (p *Pacer) Next(ctx context.Context) (time.Duration, error) {
	now := p.clock.Now()
	if !p.started {
		p.started = true
		p.origin, p.k, p.last = now, 0, now
		return now, nil
	}
	next := p.k + 1
	if t := p.vblank(next); now > t {
		// Late: the next vblank we can make is the first one after now
		// (in software mode) or the one now is nearest to (hardware).
		behind := int64(float64(now-t) * p.hz / 1e9)
		if p.software {
			behind++
		} else if now-p.vblank(next+behind) > p.Period()/2 {
			behind++
		}
		next += behind
		if !p.idle {
			p.missed += uint64(behind)
		}
	}
	p.idle = false
	t := p.vblank(next)
	if p.software {
		if err := p.clock.SleepUntil(ctx, t); err != nil {
			return 0, err
		}
	} else {
		// Follow the display: if the measured start is far from the grid
		// (a mode change, a stall), re-anchor the grid on it; otherwise
		// pull the grid an eighth of the way towards it.
		switch d := now - t; {
		case d > p.Period()/4 || d < -p.Period()/4:
			p.origin, next, t = now, 0, now
		default:
			p.origin += d / 8
			t = p.vblank(next)
		}
	}
	p.k, p.last = next, t
	return t, nil
}

// FrameAt is Frame for a frame that starts lead before the vblank it is
// displayed at and returns that vblank: the first one at least lead after
// now. In software mode it sleeps until the vblank minus lead; a frame
// that cannot start by then takes the next vblank, and the ones skipped
// count in Missed. In hardware mode (the swap waits for the display) it
// snaps the start to the grid as Frame does and returns the vblank after
// it. lead is at most one period.
func (p *Pacer) FrameAt(ctx context.Context, lead time.Duration) (time.Duration, error) {
	lead = min(max(lead, 0), p.Period())
	if !p.software {
		t, err := p.Next(ctx)
		return t + p.Period(), err
	}
	now := p.clock.Now()
	if !p.started {
		// The first frame is displayed lead from now: vblank 0 of the
		// grid, so that the next starts a period after this one.
		p.started = true
		p.origin, p.k, p.last = now+lead, 0, now+lead
		return now + lead, nil
	}
	next := p.k + 1
	if start := p.vblank(next) - lead; now > start {
		behind := int64(float64(now-start)*p.hz/1e9) + 1
		next += behind
		if !p.idle {
			p.missed += uint64(behind)
		}
	}
	p.idle = false
	t := p.vblank(next)
	if err := p.clock.SleepUntil(ctx, t-lead); err != nil {
		return 0, err
	}
	p.k, p.last = next, t
	return t, nil
}

// SwapSample is one measured frame: the time since the previous swap
// returned, and whether the frame was held back by ProbeDelay before its
// swap.
type SwapSample struct {
	Interval time.Duration
	Delayed  bool
}

// ProbeDelay is how long MeasureRefresh wants every other measured frame
// held back before its swap: a display's vblank absorbs it, a loop that
// merely takes the same time every frame does not.
const ProbeDelay = 1500 * time.Microsecond

// MeasureRefresh estimates the refresh rate from buffer swaps made with
// vsync on, every other one held back by ProbeDelay. It reports ok only
// when the swaps look paced by a display: a median interval of 2 to 50 ms
// (500 to 20 Hz), at least three quarters of the undelayed intervals within
// 10 % of it, and delayed frames no longer than the others by more than a
// quarter of the delay. The last test tells a display from a render-bound
// loop whose frames just take the same time each (Xvfb, or a driver that
// ignores the swap interval): there the delay adds to every delayed frame.
func MeasureRefresh(samples []SwapSample) (hz float64, ok bool) {
	var plain, delayed []time.Duration
	for _, s := range samples {
		if s.Delayed {
			delayed = append(delayed, s.Interval)
		} else {
			plain = append(plain, s.Interval)
		}
	}
	if len(plain) < 8 || len(delayed) < 8 {
		return 0, false
	}
	slices.Sort(plain)
	slices.Sort(delayed)
	med := plain[len(plain)/2]
	if med < 2*time.Millisecond || med > 50*time.Millisecond {
		return 0, false
	}
	near := 0
	for _, d := range plain {
		if math.Abs(float64(d-med)) <= 0.1*float64(med) {
			near++
		}
	}
	if near*4 < len(plain)*3 {
		return 0, false
	}
	if delayed[len(delayed)/2]-med > ProbeDelay/4 {
		return 0, false
	}
	return 1e9 / float64(med), true
}
