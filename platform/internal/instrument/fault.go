package instrument

import (
	"fmt"
	"math"
	"time"

	"github.com/tickframe/tickframe/platform/loop"
	"github.com/tickframe/tickframe/renderer/interp"
	"github.com/tickframe/tickframe/simthread"
)

// PresentFault breaks the present path on purpose, so that tests can see
// that what measures it (the app's figures and an outside observer) notices.
// Its zero value breaks nothing.
type PresentFault struct {
	// Hold, if above 0, holds a swap back by Hold once every HoldEvery (0
	// means a second): the frame reaches the screen late.
	Hold, HoldEvery time.Duration
	// DropEvery, if above 0, follows every DropEvery-th frame at once by
	// the next, without waiting for the vblank: the next replaces it
	// before its vblank, and it is never shown.
	DropEvery int
}

// Hook returns the hook that carries the fault out; attach it after the
// marker.
func (f PresentFault) Hook() loop.Hook { return &fault{cfg: f} }

// Validate reports a setting out of range.
func (f PresentFault) Validate() error {
	if f.Hold < 0 || f.HoldEvery < 0 || f.DropEvery < 0 || f.Hold > time.Second {
		return fmt.Errorf("instrument: present fault %+v out of range", f)
	}
	return nil
}

// Marker returns the hook that draws each drawn frame's marker
// (renderer.DrawMarker) for an observer outside the app (package
// observe): attach it before any hook that holds a swap back.
func Marker(a *loop.App) loop.Hook { return marker{a: a} }

type marker struct {
	loop.NoHook
	a *loop.App
}

func (m marker) BeforeSwap(f *loop.Frame) {
	if f.Drawn {
		w, h := m.a.Window().FramebufferSize()
		m.a.Renderer().DrawMarker(f.ID, w, h)
	}
}

// fault carries out a PresentFault on the render thread: a loop.Hook.
type fault struct {
	loop.NoHook
	clock    simthread.Clock
	cfg      PresentFault
	nextHold time.Duration // when the next swap is held back
	frames   uint64
	again    bool          // the next frame replaces this one: no pacing
	replaces bool          // this frame replaces the one before
	lastAt   time.Duration // the last frame's display time
	Holds    uint64
	Drops    uint64
}

// beforePace starts the frame that follows a dropped one at once, for
// the same display time; the frame its successor replaces starts a whole
// period ahead, so that both make its vblank.
func (f *fault) BeforePace() (at time.Duration, take, ahead bool) {
	if f.again {
		f.again, f.replaces = false, true
		return f.lastAt, true, false
	}
	f.replaces = false
	return 0, false, f.cfg.DropEvery > 0 && (f.frames+1)%uint64(f.cfg.DropEvery) == 0
}

// Started takes the App's clock.
func (f *fault) Started(a *loop.App) { f.clock = a.Clock() }

// Paced records a frame's display time and decides whether the next
// frame is to replace it.
func (f *fault) Paced(fr *loop.Frame) {
	f.lastAt = fr.At
	f.frames++
	if f.cfg.DropEvery > 0 && f.frames%uint64(f.cfg.DropEvery) == 0 {
		f.again = true
		f.Drops++
	}
}

// BeforeSwap holds the swap back when it is due.
func (f *fault) BeforeSwap(fr *loop.Frame) {
	if f.cfg.Hold <= 0 {
		return
	}
	clock := f.clock
	now := clock.Now()
	if f.nextHold == 0 {
		f.nextHold = now + f.every()
		return
	}
	if now < f.nextHold || f.again || f.replaces {
		// Not yet; or a frame the next replaces, or its replacement:
		// held, it would make no hitch that shows (a held frame that is
		// never shown, or one that takes its dropped predecessor's
		// place), and the run would miss the hitch it is there to make
		// (a 3 s run read an animation error of 7 ms for its 20 ms
		// holds). The next frame is held instead.
		return
	}
	f.nextHold += f.every()
	f.Holds++
	clock.SleepUntil(fr.Ctx, now+f.cfg.Hold)
}

func (f *fault) every() time.Duration {
	if f.cfg.HoldEvery > 0 {
		return f.cfg.HoldEvery
	}
	return time.Second
}

// simOf is what the frame log says a frame shows: its displayed simulated
// time and timeline segment, ok for the frames the meter measures (past
// its warm-up, not paused, not across a discontinuity, not clamped early),
// as interp.Meter does.
func simOf(plan *interp.Plan, rate int, metered bool) simShown {
	if !plan.Ready || plan.Paused || rate <= 0 || plan.Prev == nil || plan.Next == nil {
		return simShown{}
	}
	r := float64(rate)
	segPrev := plan.Prev.Time.Seconds() - float64(plan.Prev.Tick)/r
	segNext := plan.Next.Time.Seconds() - float64(plan.Next.Tick)/r
	return simShown{at: plan.SimTick / r, seg: segNext,
		ok: metered && math.Abs(segPrev-segNext) < 1e-6 && plan.Clamp != interp.Early}
}
