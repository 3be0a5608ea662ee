package loop

import (
	"context"
	"runtime/trace"
	"time"

	"github.com/tickframe/tickframe/platform/internal/interp"
	"github.com/tickframe/tickframe/platform/internal/present"
	"github.com/tickframe/tickframe/platform/internal/sched"
	"github.com/tickframe/tickframe/platform/internal/sim"
	"github.com/tickframe/tickframe/platform/internal/window"
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

// View is the run as the hooks see it, handed to Started: the App's
// parts, how it was made, and functions for what changes during the run.
// The loop fills it once; a hook may keep it until the App is closed and
// must not change it. Its functions do not allocate, and must be called
// on the render thread (Sched once Run has returned, or between frames).
type View struct {
	// Config is the configuration the App was made with.
	Config Config
	// Clock is the clock every time of the run is on; Start is when Run
	// started its first frame, on it.
	Clock *sim.RealClock
	Start time.Duration
	// Sim is the simulation, Pipeline the chain from it to the plans
	// (with the meter a hook asked for in Open), Window the window and
	// Renderer the renderer.
	Sim      *sim.Sim
	Pipeline *interp.Pipeline
	Window   *window.Window
	Renderer *renderer.Renderer
	// Present follows the display system's word on the frames (package
	// present); where it says nothing (not Measured), PresentWhy says why.
	Present    *present.Tracker
	PresentWhy string
	// SimPriority and RenderPriority are the priorities the simulation
	// and render threads got, as their registration read them back when
	// the simulation started.
	SimPriority, RenderPriority sched.ThreadPriority
	// ScreenshotName is the stem screenshots are named with (FileStem of
	// the title).
	ScreenshotName string
	// Pacing is how the frames are paced now.
	Pacing func() Pacing
	// Paused reports whether the simulation is paused now (App.Paused).
	Paused func() bool
	// Sched reports what the scheduling design did so far (all of Run,
	// once it has returned).
	Sched func() SchedReport
	// SchedAllocs is what the scheduling governor's GOMAXPROCS changes
	// allocated so far (the runtime's own P state, not the application's).
	SchedAllocs func() uint64
}

// A Hook is called by the frame loop at its seams: the instruments that
// measure the run (package instrument), what draws into a frame for an
// observer, the faults tests inject. It is given to New, and hands them
// what they read: they ask for what they measure in Open, and keep the
// run's View from Started. The loop has no branch of its own for what any
// of them does. Hooks are called on the render thread, in the order given
// to New; the calls per frame must not allocate. Embed NoHook to
// implement only some.
type Hook interface {
	// Open is called by New before it builds the pipeline and the
	// renderer, with their configuration to add to: a hook that measures
	// asks there for the meter's reference body (pipe.Reference) or the
	// renderer's read-back (rend.Probe). NewHeadless calls it too, with
	// options of a renderer it never makes.
	Open(pipe *interp.PipelineConfig, rend *renderer.Options)
	// Started is called once the simulation runs, before the first frame,
	// with the view of the run the hook reads from then on.
	Started(v *View)
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

func (NoHook) Open(*interp.PipelineConfig, *renderer.Options) {}
func (NoHook) Started(*View)                                  {}
func (NoHook) BeforePace() (time.Duration, bool, bool)        { return 0, false, false }
func (NoHook) Paced(*Frame)                                   {}
func (NoHook) Planned(*Frame)                                 {}
func (NoHook) BeforeSwap(*Frame)                              {}
func (NoHook) Swapped(*Frame)                                 {}
func (NoHook) Ended(*Frame)                                   {}
func (NoHook) Stopped(time.Duration)                          {}
