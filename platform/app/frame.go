package app

import (
	"context"
	"runtime/trace"
	"time"

	"github.com/tickframe/tickframe/platform"
	"github.com/tickframe/tickframe/renderer/interp"
)

// frameState is one frame of Run: its display time and its trace task.
type frameState struct {
	at      time.Duration   // the display time the frame is planned for
	start   time.Duration   // when its work started
	poll    time.Duration   // when its input was polled
	since   time.Duration   // at, since the first frame
	metered bool            // the meter measured it, past its warm-up
	ctx     context.Context // carries the frame's trace task
	task    *trace.Task
}

func (f *frameState) end() {
	if f.task != nil {
		f.task.End()
	}
}

// running reports whether Run goes on: not after the window's close, Esc,
// ctx, the world's end or Config.Tools.Duration.
func (a *App) running(ctx context.Context) bool {
	if a.ctl.quit || ctx.Err() != nil || a.win.ShouldClose() {
		return false
	}
	select {
	case <-a.pipe.Sim().Done():
		return false // the world failed or reached its last tick
	default:
		return true
	}
}

// pace is the pacing step: it waits, with software pacing, for the next
// vblank, and returns the frame it is the display time of; false when ctx
// is done first.
func (a *App) pace(ctx, rctx context.Context) (frameState, bool) {
	f := frameState{ctx: rctx}
	if trace.IsEnabled() {
		f.ctx, f.task = trace.NewTask(rctx, "frame")
	}
	at, lead, err := a.pacing.frameAt(ctx, a.clock, a.hooks)
	if err != nil {
		f.end()
		return f, false
	}
	f.at = at
	for _, h := range a.hooks {
		h.paced(at)
	}
	a.pipe.Planner().SetLead(lead)
	a.stats.Lead = lead
	f.start = a.clock.Now()
	f.since = f.at - a.steady.start
	// Config.Tools.Duration is wall time from the start: the frame's display
	// time lies its lead ahead.
	if a.cfg.Tools.Duration > 0 && f.start-a.steady.start >= a.cfg.Tools.Duration {
		a.ctl.quit = true // this frame is the last
	}
	return f, true
}

// input is the input step: the window's events, and the tests' hook.
func (a *App) input(f *frameState) {
	a.poll()
	f.poll = a.clock.Now()
	if a.ctl.testFrame != nil {
		a.ctl.testFrame() // tests inject events here, through handle
	}
}

// plan is the planning step, the frame's work up to the GL calls: acquire
// the newest snapshot, plan the interpolation, measure it. It does not
// allocate.
func (a *App) plan(f *frameState) interp.Plan {
	plan := a.pipe.Plan(f.at)
	f.metered = false
	if plan.Ready {
		f.metered = a.pipe.Measure(f.at, &plan)
		a.stats.frame(a.pipe.Sim().Clock().Now(), &plan)
	}
	return plan
}

// account is the accounting step: the HUD four times a second, the end
// of the warm-up, and when the frames the GPU finished were shown.
func (a *App) account(f *frameState, plan *interp.Plan) {
	if a.hud.due(f.at) {
		a.hud.update(a, f.at, plan)
	}
	if a.steady.due(f.since) {
		tel := a.pipe.Sim().Telemetry().Read()
		a.steady.mark(f.at, a.stats.Frames, &tel, a.sched.allocs())
		a.sched.lat.Mark()
	}
	a.present.collect(a.rend, a.pacing.pacer, false)
}

// draw is the drawing step: draw the plan, swap, and record the swap. A
// hidden window draws nothing: it polls at a gentle rate instead (the
// renderer uploads by sequence number, so the frames it skipped leave
// nothing stale).
func (a *App) draw(f *frameState, plan *interp.Plan) error {
	if a.ctl.iconified {
		if a.pacing.pacer != nil {
			a.pacing.pacer.Idle() // the vblanks it rests through are not missed
		}
		a.clock.SleepUntil(f.ctx, a.clock.Now()+20*time.Millisecond)
		return nil
	}
	a.stats.InFlight = max(a.stats.InFlight, a.rend.InFlight())
	if a.cfg.Display.Latency == LowLatency {
		// At most one frame in flight: the GPU has finished the last
		// frame before this one's GL work starts, and where the display
		// system reports frames, the last one is on the screen: the one
		// about to be drawn is the only one not yet there.
		w := a.rend.WaitInFlight(1, inFlightTimeout)
		if a.present.measured() {
			w += a.present.src.WaitReported(0, inFlightTimeout)
		}
		if w > 0 {
			a.stats.InFlightWait.Record(int64(w))
		}
	}
	a.latchCamera(plan)
	drawn, err := a.drawPlan(f.ctx, plan)
	if err != nil {
		return err
	}
	if a.shots.requested {
		a.shots.requested = false
		a.shots.save(a.win, a.shots.path(), true)
	}
	a.swap(f, plan, drawn)
	return nil
}

// swap presents the frame and records when: for the present tracker, the
// pacing's refresh measurement, the just-in-time lead and the series.
func (a *App) swap(f *frameState, plan *interp.Plan, drawn bool) {
	probe := a.pacing.probing()
	if probe {
		// Hold every other measured frame back: see MeasureRefresh.
		a.clock.SleepUntil(f.ctx, a.clock.Now()+platform.ProbeDelay)
	}
	for _, h := range a.hooks {
		h.beforeSwap(f.ctx, a.clock, drawn)
	}
	waited := a.present.waited()
	presentAt := a.clock.Now()
	region := trace.StartRegion(f.ctx, "render.swap")
	a.win.Swap()
	region.End()
	a.rend.Presented()
	interval := a.swapped(probe)
	a.pacing.jit.add(a.stats.lastSwap - f.start)
	if drawn {
		id := a.rend.Frames()
		a.present.swapped(id, f.poll, presentAt, a.stats.lastSwap, simOf(plan, a.pipe.Sim().Config().Rate, f.metered))
		a.stats.Present.SwapWait.Record(int64(a.present.waited() - waited))
		if f.metered {
			a.pipe.Meter().Track(id)
		}
	}
	if plan.Ready {
		x := frameSample{At: f.since, Interval: float32(interval) / 1e6, Alpha: plan.Alpha,
			NewTicks: uint8(min(plan.NewTicks, 255)), PosErr: nan32, AnimErr: nan32}
		if f.metered {
			m := a.pipe.Meter()
			x.PosErr, x.AnimErr = float32(m.LastPos), float32(m.LastAnim)
		}
		a.stats.Series.add(x)
	}
}

// drawPlan draws the plan unless the window is minimised to nothing, and
// reports whether it drew.
func (a *App) drawPlan(ctx context.Context, plan *interp.Plan) (bool, error) {
	region := trace.StartRegion(ctx, "render.draw")
	defer region.End()
	w, h := a.win.FramebufferSize()
	if w <= 0 || h <= 0 {
		return false, nil // minimised to nothing
	}
	a.showPause()
	return true, a.rend.Draw(plan, &a.ctl.cam, w, h)
}

// swapped accounts for a swap, delayed by a refresh-rate probe or not, and
// returns the time since the previous one.
func (a *App) swapped(probed bool) (d time.Duration) {
	now := a.clock.Now()
	if a.stats.haveSwap {
		d = now - a.stats.lastSwap
		a.rend.HUD().AddFrame(float32(d) / 1e6)
		a.pacing.swapped(a.clock, d, probed)
	}
	a.stats.swapped(now)
	if a.pacing.hz > 0 {
		a.rend.HUD().SetTarget(float32(1000 / a.pacing.hz))
	}
	return d
}
