package app

import (
	"runtime"
	"strconv"
	"time"

	"github.com/tickframe/tickframe/renderer/interp"
)

// The HUD's lines, rebuilt four times a second with strconv's appenders
// into the HUD's own buffers, so that updating it allocates nothing.
const (
	hudFrame = iota
	hudSim
	hudAlpha
	hudLate
	hudGC
	hudSched
	hudErr
	hudBeat
	hudKeys
	hudLineCount
)

func appendF(b []byte, v float64, prec int) []byte { return strconv.AppendFloat(b, v, 'f', prec, 64) }

func appendMs(b []byte, ns int64, prec int) []byte { return appendF(b, float64(ns)/1e6, prec) }

func appendPct(b []byte, n, total uint64) []byte {
	if total == 0 {
		return append(b, '-')
	}
	b = strconv.AppendUint(b, (n*100+total/2)/total, 10)
	return append(b, '%')
}

func (a *App) updateHUD(now time.Duration, plan *interp.Plan) {
	h := a.rend.HUD()
	tel := a.sim.Telemetry().Read()
	span := (now - a.hudLast.at).Seconds()
	var fps, tps float64
	if a.hudLast.at > 0 && span > 0 {
		fps = float64(a.stats.Frames-a.hudLast.frames) / span
		tps = float64(tel.Ticks-a.hudLast.ticks) / span
	}
	a.hudLast = hudSample{at: now, frames: a.stats.Frames, ticks: tel.Ticks}
	fi := &a.stats.FrameInterval

	b := h.Line(hudFrame)
	*b = append(*b, "fps "...)
	*b = appendF(*b, fps, 1)
	*b = append(*b, "  frame p50 "...)
	*b = appendMs(*b, fi.Quantile(0.5), 2)
	*b = append(*b, " p99 "...)
	*b = appendMs(*b, fi.Quantile(0.99), 2)
	*b = append(*b, " max "...)
	*b = appendMs(*b, fi.Max(), 2)
	*b = append(*b, " ms  display "...)
	*b = appendF(*b, a.refreshHz, 2)
	*b = append(*b, " Hz "...)
	*b = append(*b, a.refreshSource...)

	b = h.Line(hudSim)
	*b = append(*b, "sim "...)
	*b = strconv.AppendInt(*b, int64(a.sim.Config().Rate), 10)
	*b = append(*b, " Hz  ticks/s "...)
	*b = appendF(*b, tps, 1)
	*b = append(*b, "  ticks/frame"...)
	var total, sum uint64
	for i, n := range a.stats.TicksPerFrame {
		total += n
		sum += uint64(i) * n
	}
	if total > 0 {
		*b = append(*b, " mean "...)
		*b = appendF(*b, float64(sum)/float64(total), 2)
	}
	for i, n := range a.stats.TicksPerFrame[:4] {
		*b = append(*b, ' ')
		*b = strconv.AppendInt(*b, int64(i), 10)
		*b = append(*b, ':')
		*b = appendPct(*b, n, total)
	}

	b = h.Line(hudAlpha)
	*b = append(*b, "alpha "...)
	*b = appendF(*b, float64(a.stats.Alpha.Quantile(0.5))/1e6, 3)
	*b = append(*b, "  clamped "...)
	*b = strconv.AppendUint(*b, a.stats.Clamped, 10)
	*b = append(*b, "  render delay "...)
	*b = appendMs(*b, int64(a.stats.Delay), 2)
	*b = append(*b, " ms (1 tick + "...)
	*b = appendMs(*b, int64(a.stats.Delay-a.sim.Step()), 2)
	*b = append(*b, ')')

	b = h.Line(hudLate)
	*b = append(*b, "wake late p50 "...)
	*b = appendMs(*b, tel.Lateness.P50, 3)
	*b = append(*b, " p99 "...)
	*b = appendMs(*b, tel.Lateness.P99, 3)
	*b = append(*b, " ms  step "...)
	*b = appendMs(*b, tel.StepTime.P50, 3)
	*b = append(*b, " ms  discarded "...)
	*b = strconv.AppendUint(*b, tel.DiscardedTicks, 10)
	*b = append(*b, " ticks"...)
	if tel.DiscardedTicks > 0 {
		h.Highlight(hudLate)
	}

	b = h.Line(hudGC)
	*b = append(*b, "GC "...)
	*b = strconv.AppendUint(*b, a.gc.cycles(), 10)
	*b = append(*b, " cycles  vsync "...)
	*b = appendOnOff(*b, a.win.VSync())
	*b = append(*b, "  paused "...)
	*b = appendOnOff(*b, a.simPaused)
	if plan.Ready {
		*b = append(*b, "  bodies "...)
		*b = strconv.AppendInt(*b, int64(len(plan.Next.Bodies)), 10)
	}

	b = h.Line(hudSched)
	if a.hudLat != nil {
		// Over the last HUD period: marked each update.
		l := a.hudLat.Read()
		a.hudLat.Mark()
		*b = append(*b, "sched p99 "...)
		*b = appendMs(*b, int64(l.P99), 3)
		*b = append(*b, " max "...)
		*b = appendMs(*b, int64(l.Max), 3)
		*b = append(*b, " ms  Ps "...)
		*b = strconv.AppendInt(*b, int64(runtime.GOMAXPROCS(0)), 10)
		*b = append(*b, "  nice "...)
		*b = strconv.AppendInt(*b, int64(a.simPrio.Nice), 10)
		*b = append(*b, '/')
		*b = strconv.AppendInt(*b, int64(a.renderPrio.Nice), 10)
		*b = append(*b, "  inputs lost "...)
		*b = strconv.AppendUint(*b, a.InputsDropped(), 10)
		if l.P99 > 2*time.Millisecond {
			h.Highlight(hudSched)
		}
	}

	b = h.Line(hudErr)
	if m := a.meter; m != nil && m.PosErr().Count() > 0 {
		// What was drawn (read back from the GPU) when it was shown, and
		// beside it what was planned (the CPU's figure).
		d := m.Drawn()
		*b = append(*b, "drawn p99 "...)
		if d.PosErrGPU.Count() > 0 {
			*b = appendF(*b, float64(d.PosErrGPU.Quantile(0.99))/1e6, 4)
			*b = append(*b, " tick, "...)
			*b = appendMs(*b, d.AnimErrShown.Quantile(0.99), 3)
			*b = append(*b, " ms"...)
		} else {
			*b = append(*b, '-')
		}
		*b = append(*b, "  planned "...)
		*b = appendF(*b, m.PosErrTicks(0.99), 4)
		*b = append(*b, " tick, "...)
		*b = appendF(*b, m.AnimErrMs(0.99), 3)
		*b = append(*b, " ms  paused "...)
		*b = strconv.AppendUint(*b, m.Paused, 10)
	}

	b = h.Line(hudBeat)
	if a.stats.Beat.Beating() {
		*b = append(*b, "beat: ticks per frame alternate (e.g. 0/2); interpolation hides it"...)
		h.Highlight(hudBeat)
	}

	b = h.Line(hudKeys)
	*b = appendKeysHelp(*b, a.cfg.Keys, !a.cfg.NoMouseCamera)
	h.SetLines(hudLineCount)
}

func appendOnOff(b []byte, on bool) []byte {
	if on {
		return append(b, "on"...)
	}
	return append(b, "off"...)
}
