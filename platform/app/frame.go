package app

import (
	"context"
	"runtime/trace"
	"time"

	"github.com/tickframe/tickframe/platform"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/renderer/interp"
)

// frameState is one frame of Run: its display time and its trace task.
type frameState struct {
	at    time.Duration   // the display time the frame is planned for
	start time.Duration   // when its work started
	poll  time.Duration   // when its input was polled
	since time.Duration   // at, since the first frame
	ctx   context.Context // carries the frame's trace task
	task  *trace.Task
}

func (f *frameState) end() {
	if f.task != nil {
		f.task.End()
	}
}

// running reports whether Run goes on: not after the window's close, Esc,
// ctx, the world's end or Config.Duration.
func (a *App) running(ctx context.Context) bool {
	if a.quit || ctx.Err() != nil || a.win.ShouldClose() {
		return false
	}
	select {
	case <-a.sim.Done():
		return false // the world failed or reached its last tick
	default:
		return true
	}
}

// pace is the pacing step: it waits, with software pacing, for the next
// vblank, and returns the frame it is the display time of.
func (a *App) pace(ctx, rctx context.Context) (frameState, bool) {
	f := frameState{ctx: rctx}
	if trace.IsEnabled() {
		f.ctx, f.task = trace.NewTask(rctx, "frame")
	}
	// The lead: how long before its display time the frame starts. Low
	// latency starts it just in time; throughput a whole period ahead.
	var lead time.Duration
	if a.pacer != nil {
		lead = a.pacer.Period()
		if a.cfg.Latency == LowLatency && a.pacer.Software() {
			lead = a.jit.next(a.pacer.Period())
		}
		at, err := a.pacer.FrameAt(ctx, lead)
		if err != nil {
			f.end()
			return f, false
		}
		f.at = at
	} else {
		f.at = a.clock.Now()
	}
	a.planner.SetLead(lead)
	a.stats.Lead = lead
	f.start = a.clock.Now()
	f.since = f.at - a.start
	// Config.Duration is wall time from the start: the frame's display
	// time lies its lead ahead.
	if a.cfg.Duration > 0 && f.start-a.start >= a.cfg.Duration {
		a.quit = true // this frame is the last
	}
	return f, true
}

// plan is the planning and measuring step, the frame's work up to the GL
// calls: acquire the newest snapshot, plan the interpolation, measure it.
// It does not allocate.
func (a *App) plan(f *frameState) interp.Plan {
	plan := a.pipe.Plan(f.at)
	a.metered = false
	if plan.Ready {
		a.metered = a.pipe.Measure(f.at, &plan)
		a.stats.frame(a.sim.Clock().Now(), &plan)
	}
	return plan
}

// periodic refreshes the HUD four times a second and marks the end of the
// warm-up.
func (a *App) periodic(f *frameState, plan *interp.Plan) {
	if f.at >= a.hudNext {
		a.updateHUD(f.at, plan)
		a.hudNext = f.at + 250*time.Millisecond
	}
	if a.warmAt == 0 && f.since >= warmup {
		a.warmAt, a.warm, a.warmFrames = f.at, a.gc.read(), a.stats.Frames
		a.warm.SchedAllocs = a.schedAllocs()
		a.lat.Mark()
		tel := a.sim.Telemetry().Read()
		a.warmTicks, a.warmPaused = tel.Ticks, tel.PausedTotal
	}
}

// present is the drawing step: draw the plan, swap, and account for the
// frames the GPU has finished since. A hidden window draws nothing: it
// polls at a gentle rate instead (the renderer uploads by sequence number,
// so the frames it skipped leave nothing stale).
func (a *App) present(f *frameState, plan *interp.Plan) error {
	if a.iconified {
		a.clock.SleepUntil(f.ctx, a.clock.Now()+20*time.Millisecond)
		a.collectShown(false)
		return nil
	}
	a.stats.InFlight = max(a.stats.InFlight, a.rend.InFlight())
	if a.cfg.Latency == LowLatency {
		// At most one frame in flight: the GPU has finished the last
		// frame before this one's GL work starts.
		if w := a.rend.WaitInFlight(1, inFlightTimeout); w > 0 {
			a.stats.InFlightWait.Record(int64(w))
		}
	}
	a.latchCamera(plan)
	drawn, err := a.draw(f.ctx, plan)
	if err != nil {
		return err
	}
	if a.shotRequested {
		a.shotRequested = false
		a.saveShot(a.shotPath(), false)
	}
	probe := a.measuring != nil && len(a.measuring)%2 == 1
	if probe {
		// Hold every other measured frame back: see MeasureRefresh.
		a.clock.SleepUntil(f.ctx, a.clock.Now()+platform.ProbeDelay)
	}
	presentAt := a.clock.Now()
	region := trace.StartRegion(f.ctx, "render.swap")
	a.win.Swap()
	region.End()
	a.rend.Presented()
	interval := a.swapped(probe)
	a.jit.add(a.stats.lastSwap - f.start)
	if drawn {
		id := a.rend.Frames()
		a.swaps[id%swapRing] = swapRecord{id: id, poll: f.poll, present: presentAt, done: a.stats.lastSwap}
		if a.metered {
			a.meter.Track(id)
		}
	}
	if plan.Ready {
		x := Sample{At: f.since, Interval: float32(interval) / 1e6, Alpha: plan.Alpha,
			NewTicks: uint8(min(plan.NewTicks, 255)), PosErr: nan32, AnimErr: nan32}
		if a.metered { // past the meter's warm-up
			x.PosErr, x.AnimErr = float32(a.meter.LastPos), float32(a.meter.LastAnim)
		}
		a.stats.Series.add(x)
	}
	a.collectShown(false)
	return nil
}

// draw draws the plan unless the window is minimised to nothing, and
// reports whether it drew.
func (a *App) draw(ctx context.Context, plan *interp.Plan) (bool, error) {
	region := trace.StartRegion(ctx, "render.draw")
	defer region.End()
	w, h := a.win.FramebufferSize()
	if w <= 0 || h <= 0 {
		return false, nil // minimised to nothing
	}
	return true, a.rend.Frame(plan, &a.cam, w, h)
}

// swapped accounts for a swap, delayed by a refresh-rate probe or not, and
// returns the time since the previous one.
func (a *App) swapped(probed bool) (d time.Duration) {
	now := a.clock.Now()
	if a.stats.haveSwap {
		d = now - a.stats.lastSwap
		a.rend.HUD().AddFrame(float32(d) / 1e6)
		if a.measuring != nil {
			a.measuring = append(a.measuring, platform.SwapSample{Interval: d, Delayed: probed})
			if len(a.measuring) == measureFrames {
				a.afterMeasuring()
			}
		}
	}
	a.stats.swapped(now)
	if a.refreshHz > 0 {
		a.rend.HUD().SetTarget(float32(1000 / a.refreshHz))
	}
	return d
}

// swapRing is how many drawn frames' present times are kept for their
// read-backs, which come a few frames later (at most the renderer's 32
// queued records behind).
const swapRing = 64

// swapRecord is when a drawn frame was presented (the swap called) and
// when the swap returned.
type swapRecord struct {
	id                  uint64
	poll, present, done time.Duration
}

// shownFrame is a drawn frame whose display time is known.
type shownFrame struct {
	valid   bool
	probe   renderer.Probe
	poll    time.Duration
	present time.Duration
	display time.Duration
}

// collectShown takes the renderer's finished read-backs and accounts for
// when each frame reached the display, as PresentMon does: a frame is
// shown at the first vblank after the GPU finished it (the GPU timestamp,
// where the driver gives one; else when the swap returned), and a frame
// overtaken by the next one within the same vblank was dropped, never
// shown. The last frame stays pending until final is set.
func (a *App) collectShown(final bool) {
	for {
		p, ok := a.rend.Probed()
		if !ok {
			break
		}
		rec := a.swaps[p.Frame%swapRing]
		if rec.id != p.Frame {
			a.stats.Present.Unknown++
			continue
		}
		done := rec.done
		if p.HasGPUTime {
			// The image is complete when the GPU has finished and the
			// present has been issued.
			done = max(p.GPUDone, rec.present)
		}
		display := done
		if a.pacer != nil {
			display = a.pacer.DisplayAt(done)
		}
		a.shown(shownFrame{valid: true, probe: p, poll: rec.poll, present: rec.present, display: display})
	}
	if final && a.cand.valid {
		a.finishShown(a.cand)
		a.cand.valid = false
	}
}

// shown takes the next frame known shown: the previous one is final now,
// displayed unless this one replaced it within the same vblank.
func (a *App) shown(s shownFrame) {
	st := &a.stats.Present
	if st.Source == "" {
		st.Source = "swap"
		if s.probe.HasGPUTime {
			st.Source = "gpu-timestamp"
		}
		if a.pacer != nil {
			st.Source += " on the vblank grid"
		}
	}
	if a.cand.valid {
		if a.pacer != nil && s.display <= a.cand.display {
			st.Dropped++
			if a.meter != nil {
				// What it drew still counts; it was never shown.
				a.meter.Shown(interp.Shown{Frame: a.cand.probe.Frame, Pos: a.cand.probe.Pos, HasPos: a.cand.probe.Valid})
			}
		} else {
			a.finishShown(a.cand)
		}
	}
	a.cand = s
}

// finishShown accounts for a frame that was displayed.
func (a *App) finishShown(s shownFrame) {
	st := &a.stats.Present
	st.Displayed++
	st.UntilDisplayed.Record(int64(s.display - s.present))
	a.stats.InputAge.Record(int64(s.display - s.poll))
	if a.lastShown > 0 {
		st.BetweenDisplayChange.Record(int64(s.display - a.lastShown))
		if a.pacer != nil {
			// Vblanks in between showed the previous frame again.
			period := a.pacer.Period()
			if gap := int64((s.display - a.lastShown + period/2) / period); gap > 1 {
				st.Repeated += uint64(gap - 1)
			}
		}
	}
	a.lastShown = s.display
	if a.meter != nil {
		a.meter.Shown(interp.Shown{Frame: s.probe.Frame, Pos: s.probe.Pos, HasPos: s.probe.Valid, At: s.display})
	}
}
