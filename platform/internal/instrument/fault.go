package instrument

import (
	"fmt"
	"math"
	"time"

	"github.com/tickframe/tickframe/platform"
	"github.com/tickframe/tickframe/platform/internal/loop"
	palette "github.com/tickframe/tickframe/platform/internal/marker"
	"github.com/tickframe/tickframe/platform/internal/present"
	"github.com/tickframe/tickframe/platform/internal/sim"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/simthread"
)

// PresentFault breaks the present path on purpose, so that tests can see
// that what measures it (the app's figures and an outside observer) notices.
// Its zero value breaks nothing.
type PresentFault struct {
	// Hold, if above 0, holds a swap back until Hold past the display
	// time its frame was planned for, once every HoldEvery (0 means a
	// second): the frame reaches the screen at least Hold late, however
	// far ahead of its vblank the app started it (a deeper queue, a
	// longer lead under load, would otherwise absorb a hold counted from
	// the swap, and the hitch would not show).
	Hold, HoldEvery time.Duration
	// DropEvery, if above 0, follows every DropEvery-th frame at once by
	// the next, without waiting for the vblank: the next replaces it
	// before its vblank, and it is never shown.
	DropEvery int
	// InputLate draws in every frame the input the frame before polled,
	// as a pipeline one frame deeper would: an input reaches the screen
	// a frame later (a period, where the app keeps up with the display),
	// which the observer's input-to-photon figure and the app's input
	// age must both show. The reaction patch shows the presses counted
	// at the frame before's poll, and the frame's Poll is that poll's
	// time (input_age_ms counts from it).
	InputLate bool
}

// Hook returns the hook that carries the fault out, on the presses r
// counts for the marker (nil: no marker); attach it after the marker.
func (f PresentFault) Hook(r *Reactions) loop.Hook {
	if f.InputLate && r != nil {
		r.late = true
	}
	return &fault{cfg: f}
}

// Validate reports a setting out of range.
func (f PresentFault) Validate() error {
	if f.Hold < 0 || f.HoldEvery < 0 || f.DropEvery < 0 || f.Hold > time.Second {
		return fmt.Errorf("instrument: present fault %+v out of range", f)
	}
	return nil
}

// Marker returns the hook that draws each drawn frame's marker (package
// marker's colour for its id, with renderer.DrawMarker) for an observer
// outside the app (package observe): attach it before any hook that holds
// a swap back. Beside the marker it draws the reaction patch for the
// presses of ReactKey that r had seen when the frame polled its input:
// the poll reaction, what input_age_ms times (from the poll to the
// screen). Wrap the app's Input with r.Input.
func Marker(r *Reactions) loop.Hook { return &marker{r: r} }

type marker struct {
	loop.NoHook
	run     *loop.View // the window and the renderer it draws with
	r       *Reactions
	presses uint64 // r's count at the poll whose input the frame draws
}

// Started keeps the run's view.
func (m *marker) Started(v *loop.View) { m.run = v }

// Planned takes the count the frame's poll left (the loop polls its
// input, then plans), or, late (PresentFault.InputLate), the one the
// frame before's poll left.
func (m *marker) Planned(*loop.Frame) {
	if m.r.late {
		m.presses, m.r.last = m.r.last, m.r.presses
		return
	}
	m.presses = m.r.presses
}

func (m *marker) BeforeSwap(f *loop.Frame) {
	if f.Drawn {
		w, h := m.run.Window.FramebufferSize()
		r := m.run.Renderer
		r.DrawMarker(0, palette.Width, palette.Color(f.ID), w, h)
		r.DrawMarker(palette.ReactionX, palette.Width, palette.Color(m.presses), w, h)
	}
}

// ReactKey is the key whose presses the reaction patch counts: the one an
// observer measuring input to photon presses (tickframe observe -inputs).
// It reaches the app's Input as any other key does.
const ReactKey platform.Key = 'I'

// Reactions counts the presses of ReactKey the app polls, for the
// reaction patch. It belongs to the render thread; its zero value counts
// from 0.
type Reactions struct {
	presses uint64
	// late (PresentFault.InputLate) draws the count a frame late: last
	// is the count at the frame before's poll.
	late bool
	last uint64
}

// Input returns next (nil: none) with the count taken on the way: the
// loop calls it on every event it polls that is not a reserved key's.
func (r *Reactions) Input(next func(platform.Event) (simthread.Input, bool)) func(platform.Event) (simthread.Input, bool) {
	return func(e platform.Event) (simthread.Input, bool) {
		if e.Pressed(ReactKey) {
			r.presses++
		}
		if next == nil {
			return simthread.Input{}, false
		}
		return next(e)
	}
}

// fault carries out a PresentFault on the render thread: a loop.Hook.
type fault struct {
	loop.NoHook
	clock    sim.Clock
	cfg      PresentFault
	nextHold time.Duration // when the next swap is held back
	frames   uint64
	again    bool             // the next frame replaces this one: no pacing
	replaces bool             // this frame replaces the one before
	lastAt   time.Duration    // the last frame's display time
	lastPoll time.Duration    // the last frame's poll (InputLate)
	src      *present.Tracker // the display system's reports (nil: none)
	held     bool             // the last swap was held back
	Holds    uint64
	Drops    uint64
}

// beforePace starts the frame that follows a dropped one at once, for
// the same display time; the frame its successor replaces starts a whole
// period ahead, so that both make its vblank. The frame after a held one
// starts once the display system has reported it on the screen: started
// sooner, on a pacer whose lead is longer than the held frame's margin
// before the vblank it missed, it would replace it there, and the hitch
// would be a repeat without the animation error the hold is there to make
// (a CI run under load held three swaps and saw none).
func (f *fault) BeforePace() (at time.Duration, take, ahead bool) {
	if f.held {
		f.held = false
		if f.src != nil {
			f.src.WaitReported(0, time.Second/10)
		}
	}
	if f.again {
		f.again, f.replaces = false, true
		return f.lastAt, true, false
	}
	f.replaces = false
	return 0, false, f.cfg.DropEvery > 0 && (f.frames+1)%uint64(f.cfg.DropEvery) == 0
}

// Planned gives a frame that draws the input the frame before polled
// (InputLate) that poll's time: the input it draws is that old.
func (f *fault) Planned(fr *loop.Frame) {
	if !f.cfg.InputLate {
		return
	}
	poll := fr.Poll
	if f.lastPoll > 0 {
		fr.Poll = f.lastPoll
	}
	f.lastPoll = poll
}

// Started takes the run's clock and, where the display system reports
// the frames, its tracker.
func (f *fault) Started(v *loop.View) {
	f.clock = v.Clock
	if src := v.Present; src != nil && src.Measured() {
		f.src = src
	}
}

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
	f.held = true
	clock.SleepUntil(fr.Ctx, max(now, fr.At)+f.cfg.Hold)
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
func simOf(plan *renderer.Plan, rate int, metered bool) simShown {
	if !plan.Ready || plan.Paused || rate <= 0 || plan.Prev == nil || plan.Next == nil {
		return simShown{}
	}
	r := float64(rate)
	segPrev := plan.Prev.Time.Seconds() - float64(plan.Prev.Tick)/r
	segNext := plan.Next.Time.Seconds() - float64(plan.Next.Tick)/r
	return simShown{at: plan.SimTick / r, seg: segNext,
		ok: metered && math.Abs(segPrev-segNext) < 1e-6 && !plan.Early}
}
