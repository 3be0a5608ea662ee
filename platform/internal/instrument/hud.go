package instrument

import (
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/tickframe/tickframe/platform/internal/interp"
	"github.com/tickframe/tickframe/platform/internal/loop"
	"github.com/tickframe/tickframe/platform/internal/sched"
	"github.com/tickframe/tickframe/platform/internal/sim"
	"github.com/tickframe/tickframe/renderer"
)

// The HUD's lines, rebuilt four times a second with strconv's appenders
// into the HUD's own buffers, so that updating it allocates nothing. Each
// starts with its label (hudLabels) and is made of fields "label figure
// unit", two spaces apart: one figure a label, every number with its unit
// (a count with its noun). docs/hud.md has a row for every line, with the
// line's shape as shown (numbers as N), what each figure is, its unit,
// where it comes from and when to worry; TestHUDLinesAreDocumented holds
// the two together. The lines are in order of importance: a window too
// small for the whole HUD shows the first (renderer.HUD).
const (
	hudFrame = iota
	hudPacing
	hudPose
	hudAnim
	hudPresent
	hudShown
	hudSim
	hudTicks
	hudAlpha
	hudDelay
	hudLate
	hudGC
	hudSched
	hudBeat
	hudKeys
	hudLineCount
)

// hudLabels are the lines' first words, as docs/hud.md lists them.
var hudLabels = [hudLineCount]string{
	hudFrame:   "frames",
	hudPacing:  "pacing",
	hudPose:    "pose error",
	hudAnim:    "animation error",
	hudPresent: "display times",
	hudShown:   "displayed",
	hudSim:     "simulation",
	hudTicks:   "ticks a frame",
	hudAlpha:   "interpolation",
	hudDelay:   "render delay",
	hudLate:    "sim thread",
	hudGC:      "GC",
	hudSched:   "Go scheduler",
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
// largest (the renderer cuts lines at 80 bytes when drawing),
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
func (m *hudModel) update(in *Set, now time.Duration, plan *renderer.Plan) {
	m.rebuild(in.run.Renderer.HUD(), in, in.run.Window.VSync(), now, plan)
}

// hudLines fills a HUD's lines in order, with no gap: a line not shown
// (the errors without the truth, the beat while there is none) leaves no
// empty row.
type hudLines struct {
	h *renderer.HUD
	n int
}

// next returns the next line's buffer, emptied, and its index.
func (l *hudLines) next() (*[]byte, int) {
	l.n++
	return l.h.Line(l.n - 1), l.n - 1
}

// rebuild rebuilds h from in's figures, vsync being on or off, for a
// frame at now showing plan. It allocates on its first call only (the
// lines' buffers), whatever the counts grow to.
func (m *hudModel) rebuild(h *renderer.HUD, in *Set, vsync bool, now time.Duration, plan *renderer.Plan) {
	m.next = now + hudPeriod
	if !m.grown {
		m.grown = true
		for i := range hudLineCount {
			if b := h.Line(i); cap(*b) < hudLineCap {
				*b = make([]byte, 0, hudLineCap)
			}
		}
	}
	sim, st, pacing := in.run.Sim, &in.stats, in.run.Pacing()
	tel := sim.Telemetry().Read()
	span := (now - m.last.at).Seconds()
	var fps, tps float64
	if m.last.at > 0 && span > 0 {
		fps = float64(st.Frames-m.last.frames) / span
		tps = float64(tel.Ticks-m.last.ticks) / span
	}
	m.last = hudSample{at: now, frames: st.Frames, ticks: tel.Ticks}
	l := hudLines{h: h}
	b, _ := l.next()
	frameLine(b, st, fps)
	b, _ = l.next()
	pacingLine(b, &pacing, vsync)
	if meter := in.run.Pipeline.Meter(); meter != nil && meter.PosErr().Count() > 0 {
		pose, _ := l.next()
		anim, _ := l.next()
		errLines(pose, anim, errFiguresOf(meter))
	}
	b, i := l.next()
	if presentLine(b, &in.present, pacing.Hz) {
		h.Highlight(i)
	}
	b, _ = l.next()
	shownLine(b, &st.Present)
	b, _ = l.next()
	simLine(b, sim.Config().Rate, tps)
	b, _ = l.next()
	ticksLine(b, st)
	b, _ = l.next()
	alphaLine(b, st)
	b, _ = l.next()
	delayLine(b, st, sim.Step())
	if b, i = l.next(); lateLine(b, &tel) {
		h.Highlight(i)
	}
	bodies := -1
	if plan.Ready {
		bodies = len(plan.Next.Bodies)
	}
	b, _ = l.next()
	gcLine(b, in.steady.gc.cycles(), in.run.Paused(), bodies)
	if m.lat != nil {
		lat := m.lat.Read()
		m.lat.Mark()
		if b, i = l.next(); schedLine(b, lat, runtime.GOMAXPROCS(0), in.run.SimPriority, in.run.RenderPriority, sim.InputsDropped()) {
			h.Highlight(i)
		}
	}
	if st.Beat.Beating() {
		b, i = l.next()
		*b = append(*b, "beat new ticks a frame alternate; interpolation hides it"...)
		h.Highlight(i)
	}
	b, _ = l.next()
	*b = append(*b, "keys "...)
	*b = loop.AppendKeysHelp(*b, in.keys, in.camera)
	h.SetLines(l.n)
}

// frameLine: the frame rate over the last HUD period and the frame
// interval's quantiles over the run.
func frameLine(b *[]byte, st *frameStats, fps float64) {
	fi := &st.FrameInterval
	*b = append(*b, "frames "...)
	*b = appendF(*b, fps, 1)
	*b = append(*b, "/s  interval p50 "...)
	*b = appendMs(*b, fi.Quantile(0.5), 2)
	*b = append(*b, " ms  p99 "...)
	*b = appendMs(*b, fi.Quantile(0.99), 2)
	*b = append(*b, " ms  max "...)
	*b = appendMs(*b, fi.Max(), 2)
	*b = append(*b, " ms"...)
}

// pacingLine: the rate the frames are paced at, where it comes from, and
// whether the swap waits for the vblank.
func pacingLine(b *[]byte, p *loop.Pacing, vsync bool) {
	*b = append(*b, "pacing "...)
	*b = appendF(*b, p.Hz, 2)
	*b = append(*b, " Hz from "...)
	src := p.Source
	if strings.HasPrefix(src, "emulated") {
		// "emulated on measured vblanks" does not fit the panel; the
		// display line says what the vblanks are.
		src = "emulated"
	}
	*b = append(*b, src...)
	*b = append(*b, "  vsync "...)
	*b = appendOnOff(*b, vsync)
}

// presentLine names where the display times come from (the display
// system's feedback, or the model) and the vblanks' source and rate.
// Where the display system's vblanks run at another rate than pacedHz,
// it gives that rate (the figures are on the emulated display's vblanks
// then), and where its first source fell silent it says "(fallback)";
// either reports true: the line is highlighted.
func presentLine(b *[]byte, t *presentTracker, pacedHz float64) (highlight bool) {
	*b = append(*b, "display times "...)
	dispHz, mismatch := t.rateMismatch(pacedHz)
	fellBack := false
	if !t.measured() {
		*b = append(*b, "model"...)
		return false
	}
	*b = append(*b, t.src.Source()...)
	if fellBack = t.src.Fallback() != ""; fellBack {
		// Its first source fell silent (present.Tracker.Fallback).
		*b = append(*b, " (fallback)"...)
	}
	if g := t.src.Grid(); mismatch && t.rates.emulatedMost() {
		// The pacing line says the figures' rate, emulated; this one
		// the display system's, highlighted.
		*b = append(*b, "  display vblanks "...)
		*b = appendF(*b, dispHz, 2)
		*b = append(*b, " Hz"...)
	} else if g.Known() {
		*b = append(*b, "  vblanks "...)
		*b = append(*b, g.Source()...)
		*b = append(*b, ' ')
		*b = appendF(*b, g.Hz(), 2)
		*b = append(*b, " Hz"...)
	}
	return mismatch || fellBack
}

// shownLine: the frames shown, dropped and repeated by the display
// system's account, PresentMon's way.
func shownLine(b *[]byte, p *presentStats) {
	*b = append(*b, "displayed "...)
	*b = strconv.AppendUint(*b, p.Displayed, 10)
	*b = append(*b, " frames  dropped "...)
	*b = strconv.AppendUint(*b, p.Dropped, 10)
	*b = append(*b, " frames  repeated "...)
	*b = strconv.AppendUint(*b, p.Repeated, 10)
	*b = append(*b, " vblanks"...)
}

func simLine(b *[]byte, rate int, tps float64) {
	*b = append(*b, "simulation "...)
	*b = strconv.AppendInt(*b, int64(rate), 10)
	*b = append(*b, " Hz  ran "...)
	*b = appendF(*b, tps, 1)
	*b = append(*b, " ticks/s"...)
}

// ticksLine: how many new ticks each frame brought, the mean and the
// share of frames with 0 to 3.
func ticksLine(b *[]byte, st *frameStats) {
	*b = append(*b, "ticks a frame mean "...)
	var total, sum uint64
	for i, n := range st.TicksPerFrame {
		total += n
		sum += uint64(i) * n
	}
	if total > 0 {
		*b = appendF(*b, float64(sum)/float64(total), 2)
	} else {
		*b = append(*b, '-')
	}
	*b = append(*b, " ticks"...)
	for i, n := range st.TicksPerFrame[:4] {
		*b = append(*b, "  "...)
		*b = strconv.AppendInt(*b, int64(i), 10)
		if i == 1 {
			*b = append(*b, " tick "...)
		} else {
			*b = append(*b, " ticks "...)
		}
		*b = appendPct(*b, n, total)
	}
}

func alphaLine(b *[]byte, st *frameStats) {
	*b = append(*b, "interpolation alpha p50 "...)
	*b = appendF(*b, float64(st.Alpha.Quantile(0.5))/1e6, 3)
	*b = append(*b, " ticks  unbracketed "...)
	*b = strconv.AppendUint(*b, st.Clamped, 10)
	*b = append(*b, " frames"...)
}

// delayLine: how far behind its display time a frame shows the world, a
// tick and the adaptive margin.
func delayLine(b *[]byte, st *frameStats, step time.Duration) {
	*b = append(*b, "render delay "...)
	*b = appendMs(*b, int64(st.Delay), 2)
	*b = append(*b, " ms = 1 tick + margin "...)
	*b = appendMs(*b, int64(st.Delay-step), 2)
	*b = append(*b, " ms"...)
}

// lateLine reports whether ticks were discarded (highlighted).
func lateLine(b *[]byte, tel *sim.Stats) bool {
	*b = append(*b, "sim thread late p50 "...)
	*b = appendMs(*b, tel.Lateness.P50, 3)
	*b = append(*b, " ms  p99 "...)
	*b = appendMs(*b, tel.Lateness.P99, 3)
	*b = append(*b, " ms  step p50 "...)
	*b = appendMs(*b, tel.StepTime.P50, 3)
	*b = append(*b, " ms  dropped "...)
	*b = strconv.AppendUint(*b, tel.DiscardedTicks, 10)
	*b = append(*b, " ticks"...)
	return tel.DiscardedTicks > 0
}

// gcLine: the garbage collections since the warm-up, whether the world
// runs, and the bodies in the frame's snapshot (bodies < 0: none yet).
func gcLine(b *[]byte, cycles uint64, paused bool, bodies int) {
	*b = append(*b, "GC "...)
	*b = strconv.AppendUint(*b, cycles, 10)
	*b = append(*b, " cycles  world "...)
	if paused {
		*b = append(*b, "paused"...)
	} else {
		*b = append(*b, "running"...)
	}
	if bodies >= 0 {
		*b = append(*b, "  drawn "...)
		*b = strconv.AppendInt(*b, int64(bodies), 10)
		*b = append(*b, " bodies"...)
	}
}

// schedLine shows the scheduling latency over the last HUD period, and
// reports whether its p99 passed 2 ms (highlighted).
func schedLine(b *[]byte, l sched.LatencySummary, procs int, sim, render sched.ThreadPriority, lost uint64) bool {
	*b = append(*b, "Go scheduler wait p99 "...)
	*b = appendMs(*b, int64(l.P99), 3)
	*b = append(*b, " ms  max "...)
	*b = appendMs(*b, int64(l.Max), 3)
	*b = append(*b, " ms  "...)
	*b = strconv.AppendInt(*b, int64(procs), 10)
	*b = append(*b, " Ps"...)
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
	*b = append(*b, "  lost "...)
	*b = strconv.AppendUint(*b, lost, 10)
	*b = append(*b, " inputs"...)
	return l.P99 > 2*time.Millisecond
}

// errFigures are the error lines' figures, p99 each: the reference body's
// pose error in ticks of motion as drawn (read back from the GPU; gpu
// false before the first read-back) and as planned, and PresentMon's
// animation error in milliseconds between displayed frames and as
// planned, with the frames of a pause it did not measure.
type errFigures struct {
	gpu                    bool
	poseDrawn, posePlanned float64 // ticks
	animShown, animPlanned float64 // ms
	paused                 uint64
}

func errFiguresOf(m *interp.WarmMeter) errFigures {
	d := m.Drawn()
	f := errFigures{gpu: d.PosErrGPU.Count() > 0, posePlanned: m.PosErrTicks(0.99),
		animPlanned: m.AnimErrMs(0.99), paused: m.Paused}
	if f.gpu {
		f.poseDrawn = float64(d.PosErrGPU.Quantile(0.99)) / 1e6
		f.animShown = float64(d.AnimErrShown.Quantile(0.99)) / 1e6
	}
	return f
}

// errLines shows the animation error where the app gave its truth, a
// line for the pose error and one for PresentMon's animation error.
func errLines(pose, anim *[]byte, f errFigures) {
	*pose = append(*pose, "pose error p99 (GPU read-back) "...)
	*anim = append(*anim, "animation error p99 (PresentMon) "...)
	if f.gpu {
		*pose = appendF(*pose, f.poseDrawn, 4)
		*anim = appendF(*anim, f.animShown, 3)
	} else {
		*pose = append(*pose, '-')
		*anim = append(*anim, '-')
	}
	*pose = append(*pose, " ticks  planned "...)
	*pose = appendF(*pose, f.posePlanned, 4)
	*pose = append(*pose, " ticks"...)
	*anim = append(*anim, " ms  planned "...)
	*anim = appendF(*anim, f.animPlanned, 3)
	*anim = append(*anim, " ms  paused "...)
	*anim = strconv.AppendUint(*anim, f.paused, 10)
	*anim = append(*anim, " frames"...)
}
