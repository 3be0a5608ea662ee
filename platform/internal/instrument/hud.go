package instrument

import (
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/tickframe/tickframe/platform/internal/loop"
	"github.com/tickframe/tickframe/platform/internal/sched"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/renderer/interp"
	"github.com/tickframe/tickframe/simthread"
)

// The HUD's lines, rebuilt four times a second with strconv's appenders
// into the HUD's own buffers, so that updating it allocates nothing. Each
// starts with its label (hudLabels); docs/hud.md says what each figure
// is, its unit, where it comes from and when to worry.
const (
	hudFrame = iota
	hudPresent
	hudSim
	hudAlpha
	hudLate
	hudGC
	hudSched
	hudPose
	hudAnim
	hudBeat
	hudKeys
	hudLineCount
)

// hudLabels are the lines' first words, as docs/hud.md lists them.
var hudLabels = [hudLineCount]string{
	hudFrame:   "frames",
	hudPresent: "display",
	hudSim:     "simulation",
	hudAlpha:   "interpolation",
	hudLate:    "sim thread",
	hudGC:      "GC",
	hudSched:   "Go scheduler",
	hudPose:    "pose error",
	hudAnim:    "animation error",
	hudBeat:    "beat",
	hudKeys:    "keys",
}

// hudPeriod is how often the HUD is rebuilt.
const hudPeriod = 250 * time.Millisecond

// hudModel is what the HUD shows, rebuilt every hudPeriod from the
// figures of the run. It belongs to the render thread.
type hudModel struct {
	next  time.Duration  // when the HUD is next rebuilt
	last  hudSample      // what the rates are computed from
	lat   *sched.Latency // the scheduling latency since the last rebuild
	grown bool           // the HUD's line buffers hold hudLineCap bytes
}

// hudLineCap is the capacity every HUD line is given on the first
// rebuild: more than the longest line can be with every count at its
// largest (the renderer cuts lines at renderer.HUDLineLen when drawing),
// so that no rebuild grows a buffer when a count gains a digit.
const hudLineCap = 256

// hudSample is what the HUD's rates are computed from.
type hudSample struct {
	at     time.Duration
	frames uint64
	ticks  uint64
}

// due reports whether the HUD is rebuilt for a frame at now.
func (m *hudModel) due(now time.Duration) bool { return now >= m.next }

func appendF(b []byte, v float64, prec int) []byte { return strconv.AppendFloat(b, v, 'f', prec, 64) }

func appendMs(b []byte, ns int64, prec int) []byte { return appendF(b, float64(ns)/1e6, prec) }

func appendPct(b []byte, n, total uint64) []byte {
	if total == 0 {
		return append(b, '-')
	}
	b = strconv.AppendUint(b, (n*100+total/2)/total, 10)
	return append(b, '%')
}

func appendOnOff(b []byte, on bool) []byte {
	if on {
		return append(b, "on"...)
	}
	return append(b, "off"...)
}

// update rebuilds the HUD from in's figures for a frame at now showing
// plan.
func (m *hudModel) update(in *Set, now time.Duration, plan *interp.Plan) {
	m.rebuild(in.a.Renderer().HUD(), in, in.a.Window().VSync(), now, plan)
}

// rebuild rebuilds h from in's figures, vsync being on or off, for a
// frame at now showing plan. It allocates on its first call only (the
// lines' buffers), whatever the counts grow to.
func (m *hudModel) rebuild(h *renderer.HUD, in *Set, vsync bool, now time.Duration, plan *interp.Plan) {
	m.next = now + hudPeriod
	if !m.grown {
		m.grown = true
		for i := range hudLineCount {
			if b := h.Line(i); cap(*b) < hudLineCap {
				*b = make([]byte, 0, hudLineCap)
			}
		}
	}
	sim, st, pacing := in.a.Sim(), &in.stats, in.a.Pacing()
	tel := sim.Telemetry().Read()
	span := (now - m.last.at).Seconds()
	var fps, tps float64
	if m.last.at > 0 && span > 0 {
		fps = float64(st.Frames-m.last.frames) / span
		tps = float64(tel.Ticks-m.last.ticks) / span
	}
	m.last = hudSample{at: now, frames: st.Frames, ticks: tel.Ticks}
	frameLine(h.Line(hudFrame), st, fps, &pacing)
	if presentLine(h.Line(hudPresent), st, &in.present, pacing.Hz) {
		h.Highlight(hudPresent)
	}
	simLine(h.Line(hudSim), st, sim.Config().Rate, tps)
	alphaLine(h.Line(hudAlpha), st, sim.Step())
	if lateLine(h.Line(hudLate), &tel) {
		h.Highlight(hudLate)
	}
	gcLine(h.Line(hudGC), in, vsync, plan)
	if m.schedLine(h.Line(hudSched), in.a) {
		h.Highlight(hudSched)
	}
	errLines(h.Line(hudPose), h.Line(hudAnim), in.a.Pipeline().Meter())
	if b := h.Line(hudBeat); st.Beat.Beating() {
		*b = append(*b, "beat: new ticks per frame alternate (e.g. 0/2); interpolation hides it"...)
		h.Highlight(hudBeat)
	}
	b := h.Line(hudKeys)
	*b = append(*b, "keys "...)
	*b = loop.AppendKeysHelp(*b, in.keys, in.camera)
	h.SetLines(hudLineCount)
}

func frameLine(b *[]byte, st *frameStats, fps float64, p *loop.Pacing) {
	fi := &st.FrameInterval
	*b = append(*b, "frames "...)
	*b = appendF(*b, fps, 1)
	*b = append(*b, "/s  p50 "...)
	*b = appendMs(*b, fi.Quantile(0.5), 2)
	*b = append(*b, " p99 "...)
	*b = appendMs(*b, fi.Quantile(0.99), 2)
	*b = append(*b, " max "...)
	*b = appendMs(*b, fi.Max(), 2)
	*b = append(*b, " ms  paced "...)
	*b = appendF(*b, p.Hz, 2)
	*b = append(*b, " Hz "...)
	src := p.Source
	if strings.HasPrefix(src, "emulated") {
		// "emulated on measured vblanks" does not fit the panel; the
		// display line below says what the vblanks are.
		src = "emulated"
	}
	*b = append(*b, src...)
}

// presentLine names where the display times come from (the display
// system's feedback, or the model) and the frames shown, dropped and
// repeated by its account. Where the display system's vblanks run at
// another rate than pacedHz, it says so and that rate (the figures are
// on the emulated display's vblanks then), and where its first source
// fell silent it says "(fallback)"; either reports true: the line is
// highlighted.
func presentLine(b *[]byte, st *frameStats, t *presentTracker, pacedHz float64) (highlight bool) {
	*b = append(*b, "display "...)
	dispHz, mismatch := t.rateMismatch(pacedHz)
	fellBack := false
	if t.measured() {
		*b = append(*b, t.src.Source()...)
		if fellBack = t.src.Fallback() != ""; fellBack {
			// Its first source fell silent (present.Tracker.Fallback).
			*b = append(*b, " (fallback)"...)
		}
		if g := t.src.Grid(); mismatch && t.rates.emulatedMost() {
			// The frame line says the figures' rate, emulated; this one
			// the display system's, highlighted (80 columns).
			*b = append(*b, ", display "...)
			*b = appendF(*b, dispHz, 2)
			*b = append(*b, " Hz"...)
		} else if g.Known() {
			*b = append(*b, " on "...)
			*b = append(*b, g.Source()...)
			*b = append(*b, ' ')
			*b = appendF(*b, g.Hz(), 2)
			*b = append(*b, " Hz"...)
		}
	} else {
		*b = append(*b, "model"...)
	}
	p := &st.Present
	*b = append(*b, "  shown "...)
	*b = strconv.AppendUint(*b, p.Displayed, 10)
	*b = append(*b, " dropped "...)
	*b = strconv.AppendUint(*b, p.Dropped, 10)
	*b = append(*b, " repeats "...)
	*b = strconv.AppendUint(*b, p.Repeated, 10)
	return mismatch || fellBack
}

func simLine(b *[]byte, st *frameStats, rate int, tps float64) {
	*b = append(*b, "simulation "...)
	*b = strconv.AppendInt(*b, int64(rate), 10)
	*b = append(*b, " Hz  ticks "...)
	*b = appendF(*b, tps, 1)
	*b = append(*b, "/s  per frame"...)
	var total, sum uint64
	for i, n := range st.TicksPerFrame {
		total += n
		sum += uint64(i) * n
	}
	if total > 0 {
		*b = append(*b, " mean "...)
		*b = appendF(*b, float64(sum)/float64(total), 2)
	}
	for i, n := range st.TicksPerFrame[:4] {
		*b = append(*b, ' ')
		*b = strconv.AppendInt(*b, int64(i), 10)
		*b = append(*b, ':')
		*b = appendPct(*b, n, total)
	}
}

func alphaLine(b *[]byte, st *frameStats, step time.Duration) {
	*b = append(*b, "interpolation alpha p50 "...)
	*b = appendF(*b, float64(st.Alpha.Quantile(0.5))/1e6, 3)
	*b = append(*b, "  unbracketed "...)
	*b = strconv.AppendUint(*b, st.Clamped, 10)
	*b = append(*b, "  delay "...)
	*b = appendMs(*b, int64(st.Delay), 2)
	*b = append(*b, " ms = tick + "...)
	*b = appendMs(*b, int64(st.Delay-step), 2)
	*b = append(*b, " ms"...)
}

// lateLine reports whether ticks were discarded (highlighted).
func lateLine(b *[]byte, tel *simthread.Stats) bool {
	*b = append(*b, "sim thread wakes late p50 "...)
	*b = appendMs(*b, tel.Lateness.P50, 3)
	*b = append(*b, " p99 "...)
	*b = appendMs(*b, tel.Lateness.P99, 3)
	*b = append(*b, " ms  step "...)
	*b = appendMs(*b, tel.StepTime.P50, 3)
	*b = append(*b, " ms  ticks dropped "...)
	*b = strconv.AppendUint(*b, tel.DiscardedTicks, 10)
	return tel.DiscardedTicks > 0
}

func gcLine(b *[]byte, in *Set, vsync bool, plan *interp.Plan) {
	*b = append(*b, "GC cycles "...)
	*b = strconv.AppendUint(*b, in.steady.gc.cycles(), 10)
	*b = append(*b, "  vsync "...)
	*b = appendOnOff(*b, vsync)
	if in.a.Paused() {
		*b = append(*b, "  world paused"...)
	} else {
		*b = append(*b, "  world running"...)
	}
	if plan.Ready {
		*b = append(*b, "  bodies "...)
		*b = strconv.AppendInt(*b, int64(len(plan.Next.Bodies)), 10)
	}
}

// schedLine shows the scheduling latency over the last HUD period, and
// reports whether its p99 passed 2 ms (highlighted).
func (m *hudModel) schedLine(b *[]byte, a *loop.App) bool {
	if m.lat == nil {
		return false
	}
	l := m.lat.Read()
	m.lat.Mark()
	*b = append(*b, "Go scheduler latency p99 "...)
	*b = appendMs(*b, int64(l.P99), 3)
	*b = append(*b, " max "...)
	*b = appendMs(*b, int64(l.Max), 3)
	*b = append(*b, " ms  Ps "...)
	*b = strconv.AppendInt(*b, int64(runtime.GOMAXPROCS(0)), 10)
	sim, render := a.Priorities()
	if runtime.GOOS == "linux" {
		*b = append(*b, "  nice "...)
		*b = strconv.AppendInt(*b, int64(sim.Nice), 10)
		*b = append(*b, '/')
		*b = strconv.AppendInt(*b, int64(render.Nice), 10)
	} else { // a nice value is Linux's: say what the platform's levers did
		*b = append(*b, "  prio "...)
		*b = append(*b, sim.How...)
		*b = append(*b, '/')
		*b = append(*b, render.How...)
	}
	*b = append(*b, "  inputs lost "...)
	*b = strconv.AppendUint(*b, a.InputsDropped(), 10)
	return l.P99 > 2*time.Millisecond
}

// errLines shows the animation error where the app gave its truth: the
// reference body's pose error in ticks of motion, drawn (read back from
// the GPU) and planned (the CPU's figure), and PresentMon's animation
// error in milliseconds, between displayed frames and as planned. Each
// label has one figure.
func errLines(pose, anim *[]byte, m *interp.WarmMeter) {
	if m == nil || m.PosErr().Count() == 0 {
		return
	}
	d := m.Drawn()
	*pose = append(*pose, "pose error p99 drawn "...)
	*anim = append(*anim, "animation error p99 shown "...)
	if d.PosErrGPU.Count() > 0 {
		*pose = appendF(*pose, float64(d.PosErrGPU.Quantile(0.99))/1e6, 4)
		*anim = appendMs(*anim, d.AnimErrShown.Quantile(0.99), 3)
	} else {
		*pose = append(*pose, '-')
		*anim = append(*anim, '-')
	}
	*pose = append(*pose, " tick  planned "...)
	*pose = appendF(*pose, m.PosErrTicks(0.99), 4)
	*pose = append(*pose, " tick"...)
	*anim = append(*anim, " ms  planned "...)
	*anim = appendF(*anim, m.AnimErrMs(0.99), 3)
	*anim = append(*anim, " ms  paused frames "...)
	*anim = strconv.AppendUint(*anim, m.Paused, 10)
}
