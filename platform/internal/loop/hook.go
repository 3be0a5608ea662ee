package loop

import (
	"context"
	"runtime/trace"
	"time"

	"github.com/tickframe/tickframe/renderer"
)

// Frame is one frame of Run, as the hooks see it: its times, its plan and
// its swap, filled in step by step. The loop reuses it: a hook must not
// keep it past its call.
type Frame struct {
	// At is the display time the frame is planned for, Since the same
	// since the first frame's, Lead how long before At it started.
	At, Since, Lead time.Duration
	// Start is when its work started, Poll when its input was polled.
	Start, Poll time.Duration
	// Ctx carries the frame's trace task.
	Ctx context.Context
	// Plan is what it shows (Planned on).
	Plan *renderer.Plan
	// InFlight is how many presented frames the GPU had not finished
	// when the frame's drawing started, and InFlightWait how long it then
	// waited for them (low latency; 0 without a wait).
	InFlight     int
	InFlightWait time.Duration
	// Drawn says the frame was drawn (not when the window is minimised to
	// nothing); ID is then the renderer's frame number (Renderer.Frames).
	Drawn bool
	ID    uint64
	// Present is when the swap was called, Swap when it returned, and
	// Interval the time since the previous frame's swap returned (0 for
	// the first).
	Present, Swap, Interval time.Duration

	task *trace.Task
}

func (f *Frame) end() {
	if f.task != nil {
		f.task.End()
	}
}

// A Hook is called by the frame loop at its seams: the instruments that
// measure the run (package app's), what draws into a frame for an
// observer, the faults tests inject. The loop has no branch of its own for
// what any of them does. Hooks are called on the render thread, in the
// order attached (App.Attach), and must not allocate. Embed NoHook to
// implement only some.
type Hook interface {
	// Started is called once the simulation runs, before the first frame.
	Started(a *App)
	// BeforePace is asked before the pacer waits for the next frame: a
	// hook may give the frame's display time itself (take: the frame
	// starts at once, for that time), or ask for it to start a whole
	// period ahead (ahead).
	BeforePace() (at time.Duration, take, ahead bool)
	// Paced sees the display time chosen for the frame.
	Paced(f *Frame)
	// Planned sees the frame's plan, before anything is drawn.
	Planned(f *Frame)
	// BeforeSwap runs once the frame is drawn (or not: f.Drawn), just
	// before its swap.
	BeforeSwap(f *Frame)
	// Swapped runs once the swap has returned.
	Swapped(f *Frame)
	// Ended runs at the end of the frame.
	Ended(f *Frame)
	// Stopped is called once, when the simulation has stopped at the end
	// of Run (end: when Run stopped it), on every path out.
	Stopped(end time.Duration)
}

// NoHook implements Hook with methods that do nothing: its zero value is
// ready to use, embedded in a hook that implements only some of them.
type NoHook struct{}

func (NoHook) Started(*App)                            {}
func (NoHook) BeforePace() (time.Duration, bool, bool) { return 0, false, false }
func (NoHook) Paced(*Frame)                            {}
func (NoHook) Planned(*Frame)                          {}
func (NoHook) BeforeSwap(*Frame)                       {}
func (NoHook) Swapped(*Frame)                          {}
func (NoHook) Ended(*Frame)                            {}
func (NoHook) Stopped(time.Duration)                   {}
