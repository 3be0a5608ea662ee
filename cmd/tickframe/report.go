package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/tickframe/tickframe/cmd/tickframe/internal/outfile"
	"github.com/tickframe/tickframe/platform/app"
	"github.com/tickframe/tickframe/platform/sched"
	"github.com/tickframe/tickframe/simthread/refworld"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Report is the live timing report (-report FILE.json). Its keys are
// stable: tools may rely on them. Durations are in the unit their key
// names; quantiles come from log-linear histograms, exact to about 3 %.
type Report struct {
	DurationS          float64   `json:"duration_s"`           // time the simulation ran and frames were drawn
	SimHz              int       `json:"sim_hz"`               // configured tick rate
	RefreshHz          float64   `json:"refresh_hz"`           // display rate frames were paced at
	RefreshSource      string    `json:"refresh_source"`       // where that rate came from
	Ticks              uint64    `json:"ticks"`                // ticks run
	Frames             uint64    `json:"frames"`               // frames drawn
	TickRateHz         float64   `json:"tick_rate_hz"`         // ticks / time not paused, after the 2 s warm-up
	FPS                float64   `json:"fps"`                  // frames / duration
	FrameIntervalMs    Quant4    `json:"frame_interval_ms"`    // between swaps
	TickLatenessMs     Quant3    `json:"tick_lateness_ms"`     // wake time − deadline
	TicksPerFrameHist  []uint64  `json:"ticks_per_frame_hist"` // [i]: frames that brought i new ticks (last: ≥ i)
	StepsPerWakeHist   []uint64  `json:"steps_per_wake_hist"`  // [i]: wakes that ran i steps (last: ≥ i)
	Alpha              AlphaStat `json:"alpha"`
	AlphaClampedFrames uint64    `json:"alpha_clamped_frames"`  // frames with no bracketing pair
	SnapshotAgeMs      Quant2    `json:"snapshot_age_ms"`       // when the frame was planned − newest tick time
	AnimErrorTicks     Quant3    `json:"animation_error_ticks"` // the drawn pose (GPU read-back) against the truth at the frame's planned time
	AnimErrorMs        Quant3    `json:"animation_error_ms"`    // PresentMon's, between displayed frames, on their real display times
	PlannedErrorTicks  Quant3    `json:"planned_error_ticks"`   // the CPU's figure: the planned pose at the intended frame time
	PlannedErrorMs     Quant3    `json:"planned_error_ms"`      // PresentMon's on the intended frame times
	DrawnSource        string    `json:"drawn_source"`          // "gpu-readback" when the drawn figures come from read-backs
	DisplayLagMs       Quant3    `json:"display_lag_ms"`        // real display time − planned frame time
	GPUCPUMaxDiff      float64   `json:"gpu_cpu_max_diff"`      // largest |read-back − CPU reference|, world units
	MeasuredFrames     uint64    `json:"measured_frames"`       // frames measured from a read-back
	PresentTimeSource  string    `json:"present_time_source"`
	BetweenDisplayMs   Quant2    `json:"ms_between_display_change"`
	UntilDisplayedMs   Quant2    `json:"ms_until_displayed"`
	DisplayedFrames    uint64    `json:"displayed_frames"`
	DroppedFrames      uint64    `json:"dropped_frames"`
	RepeatedFrames     uint64    `json:"repeated_frames"` // vblanks that showed the previous frame again
	LowFPS             float64   `json:"low_1pct_fps"`    // mean rate of the slowest 1 % of frames
	StutterFrames      uint64    `json:"stutter_frames"`  // frames over twice the median of the 19 around them
	InputsDropped      uint64    `json:"inputs_dropped"`
	LatencyMode        string    `json:"latency_mode"`
	MotionMode         string    `json:"motion_mode"`       // lerp, hermite or extrapolate
	InputAgeMs         Quant2    `json:"input_age_ms"`      // input polled → frame displayed
	FramesInFlight     int       `json:"frames_in_flight"`  // most frames presented and unfinished when a frame started
	FrameLeadMs        float64   `json:"frame_lead_ms"`     // how long before its display time a frame starts (at the end)
	InFlightWaitMs     Quant2    `json:"in_flight_wait_ms"` // low latency: waits for the GPU before a frame's GL work
	RenderDelayMs      float64   `json:"render_delay_ms"`   // at the end
	DiscardedTicks     uint64    `json:"discarded_ticks"`
	DiscardedS         float64   `json:"discarded_s"`
	ClampedS           float64   `json:"clamped_s"` // gaps beyond -maxdelta not caught up
	PausedS            float64   `json:"paused_s"`
	GCCycles           uint64    `json:"gc_cycles"`         // after the 2 s warm-up
	GCPauseTotalMs     float64   `json:"gc_pause_total_ms"` // after the warm-up
	AllocsPerFrame     float64   `json:"allocs_per_frame"`  // heap objects, whole process, after the warm-up, less sched_allocs
	SchedAllocs        uint64    `json:"sched_allocs"`      // heap objects the runtime allocated for GOMAXPROCS changes after the warm-up
	BeatDetected       bool      `json:"beat_detected"`     // ticks per frame beat (e.g. 0/2) at some point
	BeatFrames         uint64    `json:"beat_frames"`
	MissedVblanks      uint64    `json:"missed_vblanks"`
	OverwrittenSnaps   uint64    `json:"overwritten_snapshots"` // published but never drawn
	FinalTick          uint64    `json:"final_tick"`
	StateHash          string    `json:"state_hash"` // hex: JSON numbers lose 64-bit values
	Bodies             int       `json:"bodies"`
	Stress             int       `json:"stress"`
	StepCostMs         float64   `json:"stepcost_ms"`
	GCPressureMBs      float64   `json:"gcpressure_mb_s"`
	SchedLatencyMs     Quant3    `json:"sched_latency_ms"` // runtime/metrics /sched/latencies:seconds after the warm-up (bucket upper bounds)
	GOMAXPROCS         Procs     `json:"gomaxprocs"`
	ThreadPriority     Priority  `json:"thread_priority"` // what the critical threads asked for and got
	Headroom           int       `json:"headroom"`        // Ps kept idle above demand (-1: GOMAXPROCS left alone)
	BackgroundNice     int       `json:"background_nice"` // nice of the process's other threads (-1: left alone)
	RenicedThreads     int       `json:"reniced_threads"`
	PausedFrames       uint64    `json:"paused_frames"` // frames of a pause: counted, not measured
	GoVersion          string    `json:"go_version"`
	GLRenderer         string    `json:"gl_renderer"`
}

// Quant2, Quant3 and Quant4 are quantile sets.
type (
	Quant2 struct{ P50, P99 float64 }
	Quant3 struct{ P50, P99, Max float64 }
	Quant4 struct{ P50, P95, P99, Max float64 }
)

// Procs is GOMAXPROCS at the start and end of the run and the most it was.
type Procs struct {
	Start int `json:"start"`
	End   int `json:"end"`
	Max   int `json:"max"`
}

// Priority is what the simulation and render threads got.
type Priority struct {
	Sim    sched.ThreadPriority `json:"sim"`
	Render sched.ThreadPriority `json:"render"`
}

// AlphaStat summarises the interpolation factor.
type AlphaStat struct{ P50, Min, Max float64 }

// MarshalJSON writes the quantiles with lower-case keys.
func (q Quant2) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]float64{"p50": q.P50, "p99": q.P99})
}
func (q Quant3) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]float64{"p50": q.P50, "p99": q.P99, "max": q.Max})
}
func (q Quant4) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]float64{"p50": q.P50, "p95": q.P95, "p99": q.P99, "max": q.Max})
}
func (a AlphaStat) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]float64{"p50": a.P50, "min": a.Min, "max": a.Max})
}

func ms(ns int64) float64 { return round(float64(ns)/1e6, 4) }

// ticks3 summarises a histogram of millionths of a tick.
// quantiles is what ticks3 reads: a histogram.H, or a read-only view of one.
type quantiles interface {
	Quantile(q float64) int64
	Max() int64
}

func ticks3(h quantiles) Quant3 {
	return Quant3{round(float64(h.Quantile(0.5))/1e6, 5), round(float64(h.Quantile(0.99))/1e6, 5), round(float64(h.Max())/1e6, 5)}
}

func round(v float64, digits int) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}

// buildReport gathers the run's measurements; the simulation has stopped.
func buildReport(a *app.App, world *refworld.World, o *options) *Report {
	st := a.Stats()
	tel := a.Sim().Telemetry().Read()
	hz, src := a.Refresh()
	warm, end, steadyFrames := a.GC()
	secs := a.Elapsed().Seconds()
	r := &Report{
		DurationS:          round(secs, 3),
		SimHz:              a.Sim().Config().Rate,
		RefreshHz:          round(hz, 3),
		RefreshSource:      src,
		Ticks:              tel.Ticks,
		Frames:             st.Frames,
		TickRateHz:         round(a.TickRate(), 2),
		FPS:                round(float64(st.Frames)/secs, 2),
		FrameIntervalMs:    Quant4{ms(st.FrameInterval.Quantile(0.5)), ms(st.FrameInterval.Quantile(0.95)), ms(st.FrameInterval.Quantile(0.99)), ms(st.FrameInterval.Max())},
		TickLatenessMs:     Quant3{ms(tel.Lateness.P50), ms(tel.Lateness.P99), ms(tel.Lateness.Max)},
		TicksPerFrameHist:  st.TicksPerFrame[:],
		StepsPerWakeHist:   tel.StepsPerWake[:],
		Alpha:              AlphaStat{round(float64(st.Alpha.Quantile(0.5))/1e6, 4), round(float64(st.AlphaMin), 4), round(float64(st.AlphaMax), 4)},
		AlphaClampedFrames: st.Clamped,
		SnapshotAgeMs:      Quant2{ms(st.SnapshotAge.Quantile(0.5)), ms(st.SnapshotAge.Quantile(0.99))},
		RenderDelayMs:      ms(int64(st.Delay)),
		DiscardedTicks:     tel.DiscardedTicks,
		DiscardedS:         round(tel.Discarded.Seconds(), 4),
		ClampedS:           round(tel.Clamped.Seconds(), 4),
		PausedS:            round(tel.PausedTotal.Seconds(), 4),
		GCCycles:           end.Cycles - warm.Cycles,
		GCPauseTotalMs:     ms(int64(end.PauseTotal - warm.PauseTotal)),
		BeatDetected:       st.Beat.Frames > 0,
		BeatFrames:         st.Beat.Frames,
		MissedVblanks:      a.Missed(),
		OverwrittenSnaps:   a.Sim().Overwritten(),
		FinalTick:          world.Tick(),
		StateHash:          fmt.Sprintf("%016x", world.Hash()),
		Bodies:             world.Len(),
		Stress:             o.stress,
		StepCostMs:         ms(int64(o.stepCost)),
		GCPressureMBs:      o.gcPressureMB,
		GoVersion:          runtime.Version(),
		GLRenderer:         a.Window().GLRenderer(),
	}
	sr := a.Sched()
	r.SchedLatencyMs = Quant3{ms(int64(sr.Latency.P50)), ms(int64(sr.Latency.P99)), ms(int64(sr.Latency.Max))}
	r.GOMAXPROCS = Procs{sr.ProcsStart, sr.ProcsEnd, sr.ProcsMax}
	r.ThreadPriority = Priority{Sim: sr.Sim, Render: sr.Render}
	r.Headroom, r.BackgroundNice, r.RenicedThreads = sr.Config.Headroom, sr.BackgroundNice, sr.Reniced
	r.PausedFrames = st.Paused
	if steadyFrames > 0 {
		// The governor's GOMAXPROCS changes allocate the runtime's P
		// state: counted apart, not as the application's.
		r.AllocsPerFrame = round(float64(end.Allocs-warm.Allocs-(end.SchedAllocs-warm.SchedAllocs))/float64(steadyFrames), 3)
		r.SchedAllocs = end.SchedAllocs - warm.SchedAllocs
	}
	if m := a.Meter(); m != nil {
		r.PlannedErrorTicks = Quant3{round(m.PosErrTicks(0.5), 5), round(m.PosErrTicks(0.99), 5), round(float64(m.PosErr().Max())/1e6, 5)}
		r.PlannedErrorMs = Quant3{round(m.AnimErrMs(0.5), 4), round(m.AnimErrMs(0.99), 4), ms(m.AnimErr().Max())}
		d := m.Drawn()
		r.GPUCPUMaxDiff = d.GPUDiffMax
		r.MeasuredFrames = d.Measured
		r.DrawnSource, r.AnimErrorTicks = "cpu", r.PlannedErrorTicks
		if d.PosErrGPU.Count() > 0 {
			r.DrawnSource, r.AnimErrorTicks = "gpu-readback", ticks3(d.PosErrGPU)
		}
		r.AnimErrorMs = r.PlannedErrorMs
		if d.AnimErrShown.Count() > 0 {
			r.AnimErrorMs = Quant3{ms(d.AnimErrShown.Quantile(0.5)), ms(d.AnimErrShown.Quantile(0.99)), ms(d.AnimErrShown.Max())}
			r.DisplayLagMs = Quant3{ms(d.DisplayLag.Quantile(0.5)), ms(d.DisplayLag.Quantile(0.99)), ms(d.DisplayLag.Max())}
		}
	}
	p := &st.Present
	r.PresentTimeSource = p.Source
	if r.PresentTimeSource == "" {
		r.PresentTimeSource = "none"
	}
	r.BetweenDisplayMs = Quant2{ms(p.BetweenDisplayChange.Quantile(0.5)), ms(p.BetweenDisplayChange.Quantile(0.99))}
	r.UntilDisplayedMs = Quant2{ms(p.UntilDisplayed.Quantile(0.5)), ms(p.UntilDisplayed.Quantile(0.99))}
	r.DisplayedFrames, r.DroppedFrames, r.RepeatedFrames = p.Displayed, p.Dropped, p.Repeated
	r.LowFPS = round(st.LowFPS(), 2)
	r.StutterFrames = st.Stutter.Count
	r.InputsDropped = a.InputsDropped()
	r.LatencyMode = a.Config().Latency.String()
	r.MotionMode = a.Config().Motion.String()
	r.InputAgeMs = Quant2{ms(st.InputAge.Quantile(0.5)), ms(st.InputAge.Quantile(0.99))}
	r.FramesInFlight = st.InFlight
	r.FrameLeadMs = ms(int64(st.Lead))
	r.InFlightWaitMs = Quant2{ms(st.InFlightWait.Quantile(0.5)), ms(st.InFlightWait.Quantile(0.99))}
	return r
}

func writeReport(path string, r *Report) error {
	return outfile.Write(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	})
}

// writePlot draws the frame intervals and the animation error of the run
// over time, one panel above the other, as PNG or SVG by extension.
func writePlot(path string, a *app.App, r *Report) (err error) {
	// gonum/plot panics on values its scales cannot show; a panic is an
	// error here, not a crash that would lose the other files.
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("-plot %s: %v", path, p)
		}
	}()
	samples := a.Stats().Series.Samples()
	var intervals, anim plotter.XYs
	for _, s := range samples {
		t := s.At.Seconds()
		if s.Interval > 0 {
			intervals = append(intervals, plotter.XY{X: t, Y: float64(s.Interval)})
		}
		if !math.IsNaN(float64(s.AnimErr)) {
			anim = append(anim, plotter.XY{X: t, Y: float64(s.AnimErr)})
		}
	}
	top := plot.New()
	top.Title.Text = fmt.Sprintf("tickframe: sim %d Hz, display %.4g Hz (%s), %d bodies, %.0f fps, %d discarded ticks",
		r.SimHz, r.RefreshHz, r.RefreshSource, r.Bodies, r.FPS, r.DiscardedTicks)
	top.X.Label.Text = "time (s)"
	top.Y.Label.Text = "frame interval (ms)"
	top.Add(plotter.NewGrid())
	if len(intervals) > 0 {
		l, err := plotter.NewLine(intervals)
		if err != nil {
			return err
		}
		l.Color = plotter.DefaultLineStyle.Color
		top.Add(l)
	}
	if r.RefreshHz > 0 {
		target := plotter.NewFunction(func(float64) float64 { return 1000 / r.RefreshHz })
		target.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		top.Add(target)
		top.Legend.Add(fmt.Sprintf("display interval %.3g ms", 1000/r.RefreshHz), target)
	}
	top.Y.Min = 0 // keep the display interval in view
	bottom := plot.New()
	bottom.X.Label.Text = "time (s)"
	bottom.Y.Label.Text = "animation error (ms, PresentMon)"
	bottom.Add(plotter.NewGrid())
	if len(anim) > 0 {
		sc, err := plotter.NewScatter(anim)
		if err != nil {
			return err
		}
		sc.GlyphStyle.Radius = vg.Points(1)
		bottom.Add(sc)
	}
	format := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	c, err := draw.NewFormattedCanvas(12*vg.Inch, 7*vg.Inch, format)
	if err != nil {
		return fmt.Errorf("-plot %s: %w", path, err)
	}
	tiles := draw.Tiles{Rows: 2, Cols: 1, PadY: vg.Centimeter / 2, PadTop: vg.Millimeter * 2,
		PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 4}
	canvases := plot.Align([][]*plot.Plot{{top}, {bottom}}, tiles, draw.New(c))
	top.Draw(canvases[0][0])
	bottom.Draw(canvases[1][0])
	return outfile.Write(path, func(w io.Writer) error {
		_, err := c.WriteTo(w)
		return err
	})
}
