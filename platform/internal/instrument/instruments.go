// Package instrument measures a tickframe run from the runtime's seams
// (package loop): a Set is a loop.Hook that keeps the frame statistics,
// when each drawn frame reached the display (the present tracker, on the
// display system's word where it has one), the HUD's figures, the steady
// state (warm-up, GC, allocations, scheduling latency) and the frame log,
// and makes the timing report (Report) and its plot of them. The marker an
// outside observer reads and the faults tests inject (PresentFault) are
// hooks of their own. Package app's Main gives them to loop.New from the
// flags every app has; an app that wants none of them runs a loop.App
// alone and links none of this. They ask for what they measure through
// the hook (Open: the meter's reference body, the renderer's read-back)
// and read the run from the view it hands them (Started).
package instrument

import (
	"math"
	"time"

	"github.com/tickframe/tickframe/platform/internal/framelog"
	"github.com/tickframe/tickframe/platform/internal/interp"
	"github.com/tickframe/tickframe/platform/internal/loop"
	"github.com/tickframe/tickframe/platform/internal/present"
	"github.com/tickframe/tickframe/platform/internal/sched"
	"github.com/tickframe/tickframe/renderer"
)

// Options configures a Set.
type Options struct {
	// FrameLog, if above 0, is how many frames the frame log holds
	// (Set.FrameLog); frames past it are counted lost.
	FrameLog int
	// Reference, if set, is the body whose animation error the meter
	// measures against its exact position (interp.Reference): the Set
	// asks the loop for the pipeline's meter to follow it, and for the
	// renderer to read that body back (body 0 without one).
	Reference *interp.Reference
}

// Set is the instruments of one App, given to it as a loop.Hook
// (loop.New): the frame statistics, when each drawn frame was shown
// (present.go), the HUD's figures (hud.go), the steady state (steady.go)
// and the frame log. It belongs to the render thread and allocates
// nothing per frame. Read it (Report, WritePlot, FrameLog) once Run has
// returned.
type Set struct {
	loop.NoHook
	ref     *interp.Reference // Options.Reference
	run     *loop.View        // what it reads, from Started on
	keys    loop.KeyMap       // for the HUD's help line
	camera  bool              // the mouse moves the orbit camera (the help line says so)
	stats   frameStats
	present presentTracker
	hud     hudModel
	steady  steadyState
	frames  *framelog.Log        // nil without Options.FrameLog
	lat     *sched.Latency       // the scheduling latency since the end of the warm-up
	latency sched.LatencySummary // its reading at the end
	metered bool                 // the meter measured this frame, past its warm-up
	waited  time.Duration        // the render thread's wait for a CPU before this swap
}

// New builds the instruments of an App: give it to loop.New, and Close it
// once the App has returned from Run (before closing the App).
func New(o Options) *Set {
	in := &Set{ref: o.Reference, steady: newSteadyState()}
	if o.FrameLog > 0 {
		in.frames = framelog.New(o.FrameLog)
	}
	return in
}

// Open asks for the meter to follow the reference body, if there is one,
// and for the renderer to read that body back and time each frame on the
// GPU (renderer.Options.Probe), so that what was drawn and when it was
// shown are measured, not assumed.
func (in *Set) Open(pipe *interp.PipelineConfig, rend *renderer.Options) {
	pipe.Reference = in.ref
	rend.Probe, rend.ProbeBody = true, 0
	if in.ref != nil {
		rend.ProbeBody = in.ref.Body
	}
}

// Started keeps the run's view, follows its present source, and starts
// the steady state's clock and the scheduling latency, on the render
// thread.
func (in *Set) Started(v *loop.View) {
	in.run = v
	in.keys, in.camera = v.Config.Keys, !v.Config.Mouse.NoMouseCamera
	in.present = presentTracker{stats: &in.stats, meter: v.Pipeline.Meter(), log: in.frames, src: v.Present, err: v.PresentWhy, pacing: v.Pacing}
	in.present.wait, _ = sched.OpenThreadWait() // nil where the kernel keeps no account: its figure is absent
	in.present.mono = present.MonotonicOffset(v.Clock.Now)
	in.present.handOff = v.Window.XWayland()
	in.steady.start = v.Start
	in.lat = sched.NewLatency()
	in.hud.lat = sched.NewLatency()
}

// Paced keeps the frame's lead.
func (in *Set) Paced(f *loop.Frame) { in.stats.Lead = f.Lead }

// Planned measures the plan (the meter, past its warm-up) and counts it.
func (in *Set) Planned(f *loop.Frame) {
	in.metered = false
	if plan := f.Plan; plan.Ready {
		pipe := in.run.Pipeline
		in.metered = pipe.Measure(f.At, plan)
		in.stats.frame(pipe.Sim().Clock().Now(), plan)
	}
}

// BeforeSwap reads the render thread's wait for a CPU so far.
func (in *Set) BeforeSwap(*loop.Frame) { in.waited = in.present.waited() }

// Swapped accounts for the swap: the frame interval (on the HUD's graph
// too), the frames in flight, and for a drawn frame the present tracker's
// record, the meter's and the series'.
func (in *Set) Swapped(f *loop.Frame) {
	st := &in.stats
	st.InFlight = max(st.InFlight, f.InFlight)
	if f.InFlightWait > 0 {
		st.InFlightWait.Record(int64(f.InFlightWait))
	}
	if st.haveSwap {
		target := float32(0)
		if hz := in.run.Pacing().Hz; hz > 0 {
			target = float32(1000 / hz)
		}
		in.run.Renderer.HUD().AddFrame(float32(f.Interval)/1e6, target)
	}
	st.swapped(f.Swap)
	plan := f.Plan
	if f.Drawn {
		in.present.swapped(f.ID, f.Poll, f.Present, f.Swap, simOf(plan, in.run.Sim.Config().Rate, in.metered))
		st.Present.SwapWait.Record(int64(in.present.waited() - in.waited))
		if in.metered {
			in.run.Pipeline.Meter().Track(f.ID)
		}
	}
	if plan.Ready {
		x := frameSample{At: f.Since, Interval: float32(f.Interval) / 1e6, Alpha: plan.Alpha,
			NewTicks: uint8(min(plan.NewTicks, 255)), PosErr: nan32, AnimErr: nan32}
		if in.metered {
			m := in.run.Pipeline.Meter()
			x.PosErr, x.AnimErr = float32(m.LastPos), float32(m.LastAnim)
		}
		st.Series.add(x)
	}
}

// Ended rebuilds the HUD four times a second, ends the warm-up, and
// accounts for when the frames the GPU finished were shown.
func (in *Set) Ended(f *loop.Frame) {
	if in.hud.due(f.At) {
		in.hud.update(in, f.At, f.Plan)
	}
	if in.steady.due(f.Since) {
		tel := in.run.Sim.Telemetry().Read()
		in.steady.mark(f.At, in.stats.Frames, &tel, in.run.SchedAllocs())
		in.lat.Mark()
	}
	in.present.collect(in.run.Renderer, in.run.Pacing().Pacer, false)
}

// Stopped reads the final figures: the run's length, the last present
// reports, the steady state's counters and the scheduling latency.
func (in *Set) Stopped(end time.Duration) {
	in.steady.elapsed = end - in.steady.start
	in.steady.finish(in.stats.Frames, in.run.SchedAllocs())
	in.present.collect(in.run.Renderer, in.run.Pacing().Pacer, true)
	if in.lat != nil {
		in.latency = in.lat.Read()
	}
}

// FrameLog returns every drawn frame's verdict (shown or dropped, when,
// and the simulated time it showed), nil without Options.FrameLog.
func (in *Set) FrameLog() *framelog.Log { return in.frames }

// Close closes the render thread's account of its wait for a CPU.
func (in *Set) Close() {
	if in != nil {
		_ = in.present.wait.Close()
	}
}

var nan32 = float32(math.NaN())
