package loop

import (
	"context"
	"runtime/trace"
	"time"

	"github.com/tickframe/tickframe/platform/internal/window"
	"github.com/tickframe/tickframe/renderer"
)

// running reports whether Run goes on: not after the window's close, Esc,
// ctx, the world's end or Config.Duration.
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
func (a *App) pace(ctx, rctx context.Context) (*Frame, bool) {
	a.frame = Frame{Ctx: rctx, Plan: &a.plan}
	f := &a.frame
	if trace.IsEnabled() {
		f.Ctx, f.task = trace.NewTask(rctx, "frame")
	}
	at, lead, err := a.pacing.frameAt(ctx, a.clock, a.hooks)
	if err != nil {
		f.end()
		return f, false
	}
	f.At, f.Lead = at, lead
	a.pipe.Planner().SetLead(lead)
	f.Start = a.clock.Now()
	f.Since = f.At - a.start
	// Config.Duration is wall time from the start: the frame's display
	// time lies its lead ahead.
	if a.cfg.Duration > 0 && f.Start-a.start >= a.cfg.Duration {
		a.ctl.quit = true // this frame is the last
	}
	for _, h := range a.hooks {
		h.Paced(f)
	}
	return f, true
}

// input is the input step: the window's events.
func (a *App) input(f *Frame) {
	a.poll()
	f.Poll = a.clock.Now()
}

// planFrame is the planning step, the frame's work up to the GL calls:
// acquire the newest snapshot and plan the interpolation. It does not
// allocate.
func (a *App) planFrame(f *Frame) {
	a.plan = a.pipe.Plan(f.At)
	for _, h := range a.hooks {
		h.Planned(f)
	}
}

// draw is the drawing step: draw the plan, swap, and record the swap. A
// hidden window draws nothing: it polls at a gentle rate instead (the
// renderer uploads by sequence number, so the frames it skipped leave
// nothing stale).
func (a *App) draw(f *Frame) error {
	if a.ctl.iconified {
		if a.pacing.pacer != nil {
			a.pacing.pacer.Idle() // the vblanks it rests through are not missed
		}
		a.clock.SleepUntil(f.Ctx, a.clock.Now()+20*time.Millisecond)
		return nil
	}
	f.InFlight = a.rend.InFlight()
	if a.cfg.Display.Latency == LowLatency {
		// At most one frame in flight: the GPU has finished the last
		// frame before this one's GL work starts, and where the display
		// system reports frames, the last one is on the screen: the one
		// about to be drawn is the only one not yet there.
		w := a.rend.WaitInFlight(1, inFlightTimeout)
		if a.measured() {
			w += a.src.WaitReported(0, inFlightTimeout)
		}
		f.InFlightWait = w
	}
	a.latchCamera(&a.plan)
	drawn, err := a.drawPlan(f.Ctx, &a.plan)
	if err != nil {
		return err
	}
	if a.shots.requested {
		a.shots.requested = false
		a.shots.save(a.win, a.shots.path(), true)
	}
	a.swap(f, drawn)
	return nil
}

// measured reports whether the display system reports the frames.
func (a *App) measured() bool { return a.src != nil && a.src.Measured() }

// swap presents the frame and records when: for the display system's
// tracker, the pacing's refresh measurement and the just-in-time lead.
func (a *App) swap(f *Frame, drawn bool) {
	probe := a.pacing.probing()
	if probe {
		// Hold every other measured frame back: see MeasureRefresh.
		a.clock.SleepUntil(f.Ctx, a.clock.Now()+window.ProbeDelay)
	}
	f.Drawn = drawn
	if drawn {
		f.ID = a.rend.Frames() // Draw counted it
	}
	for _, h := range a.hooks {
		h.BeforeSwap(f)
	}
	if drawn && a.src != nil {
		a.src.Swapping() // the swap's own commit takes its feedback (Wayland)
	}
	f.Present = a.clock.Now()
	region := trace.StartRegion(f.Ctx, "render.swap")
	a.win.Swap()
	region.End()
	a.rend.Presented()
	now := a.clock.Now()
	if a.swapped {
		f.Interval = now - a.lastSwap
		a.pacing.swapped(a.clock, f.Interval, probe)
	}
	f.Swap, a.lastSwap, a.swapped = now, now, true
	a.pacing.jit.add(now - f.Start)
	if drawn && a.src != nil {
		// The display system's tracker learns of the swap (on the
		// software path it makes its round trip here).
		a.src.Swapped(f.ID, f.Present)
	}
	for _, h := range a.hooks {
		h.Swapped(f)
	}
}

// drawPlan draws the plan unless the window is minimised to nothing, and
// reports whether it drew.
func (a *App) drawPlan(ctx context.Context, plan *renderer.Plan) (bool, error) {
	region := trace.StartRegion(ctx, "render.draw")
	defer region.End()
	w, h := a.win.FramebufferSize()
	if w <= 0 || h <= 0 {
		return false, nil // minimised to nothing
	}
	a.showPause()
	return true, a.rend.Draw(plan, &a.ctl.cam, w, h)
}
