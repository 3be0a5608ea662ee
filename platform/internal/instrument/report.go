package instrument

import (
	"encoding/json"
	"fmt"
	"math"
	"runtime"

	"github.com/tickframe/tickframe/platform/internal/sched"
	"github.com/tickframe/tickframe/platform/internal/sim"
	"github.com/tickframe/tickframe/platform/internal/stats"
	"github.com/tickframe/tickframe/simthread"
)

// Report is the timing report of a run (-report FILE.json), the same for
// every app built on the template: one snapshot of the figures the run
// measured. Its JSON keys are a stable contract, documented key by key
// (name, unit, source, when null) in docs/report.md, which a test holds to
// this type: every number's key ends in its unit (_ms, _s, _hz, _frames,
// _ticks, _fraction, ...), and a figure the run did not measure (no
// Tools.Truth, no read-back, no display times, no steady state, not
// Linux) is null or absent, never a zero that reads as a measurement.
// Quantiles come from log-linear histograms, exact to about 3 %. An app
// adds figures of its own through Extra (the demo writes its loads there:
// stress, stepcost_ms, gcpressure_mb_s).
type Report struct {
	DurationS          float64    `json:"duration_s"`                  // time the simulation ran and frames were drawn
	SimHz              int        `json:"sim_hz"`                      // configured tick rate
	RefreshHz          float64    `json:"refresh_hz"`                  // display rate frames were paced at
	RefreshSource      string     `json:"refresh_source"`              // where that rate came from
	Ticks              uint64     `json:"ticks"`                       // ticks run
	Frames             uint64     `json:"frames"`                      // frames drawn
	TickRateHz         float64    `json:"tick_rate_hz"`                // ticks / time not paused, after the 2 s warm-up
	FPS                float64    `json:"fps"`                         // frames / duration
	FrameIntervalMs    *Quant4    `json:"frame_interval_ms"`           // between swaps; null: fewer than two frames
	TickLatenessMs     *Quant3    `json:"tick_lateness_ms"`            // wake time − deadline; null: no tick
	TicksPerFrameHist  []uint64   `json:"ticks_per_frame_hist_frames"` // [i]: frames that brought i new ticks (last: ≥ i)
	StepsPerWakeHist   []uint64   `json:"steps_per_wake_hist_wakes"`   // [i]: wakes that ran i steps (last: ≥ i)
	Alpha              *AlphaStat `json:"alpha_fraction"`              // null: no frame planned
	AlphaClampedFrames uint64     `json:"alpha_clamped_frames"`        // frames with no bracketing pair
	SnapshotAgeMs      *Quant2    `json:"snapshot_age_ms"`             // when the frame was planned − newest tick time
	// The animation error, where the run measured it (Tools.Truth: the
	// reference body's exact pose; null otherwise, never zero). The pose
	// errors are in ticks of motion, the animation errors in ms, as
	// PresentMon measures them.
	PoseErrorTicks        *Quant3  `json:"pose_error_ticks"`           // the drawn pose (GPU read-back, else the CPU's plan) against the truth at the frame's planned time
	AnimErrorMs           *Quant3  `json:"animation_error_ms"`         // PresentMon's, between displayed frames, on their real display times (else the intended ones)
	PlannedPoseErrorTicks *Quant3  `json:"planned_pose_error_ticks"`   // the CPU's figure: the planned pose at the intended frame time
	PlannedAnimErrorMs    *Quant3  `json:"planned_animation_error_ms"` // PresentMon's on the intended frame times
	DrawnSource           string   `json:"drawn_source,omitempty"`     // "gpu-readback" when the drawn figures come from read-backs, "cpu" when none came
	DisplayLagMs          *Quant3  `json:"display_lag_ms"`             // real display time − planned frame time (null without display times)
	GPUCPUMaxDiffM        *float64 `json:"gpu_cpu_max_diff_m"`         // largest |read-back − CPU reference|, world units (metres; null without read-backs)
	MeasuredFrames        *uint64  `json:"measured_frames"`            // frames measured from a read-back (null without the truth)
	PresentTimeSource     string   `json:"present_time_source"`        // the display system's feedback (package present), or "model: ..."
	BetweenDisplayMs      *Quant2  `json:"between_display_change_ms"`  // PresentMon's MsBetweenDisplayChange; null: no frame displayed
	UntilDisplayedMs      *Quant2  `json:"until_displayed_ms"`         // PresentMon's MsUntilDisplayed; null: no frame displayed
	DisplayedFrames       uint64   `json:"displayed_frames"`
	DroppedFrames         uint64   `json:"dropped_frames"`
	RepeatedFrames        uint64   `json:"repeated_frames"`      // vblanks that showed the previous frame again
	LowFPS                *float64 `json:"low_1pct_fps"`         // mean rate of the slowest 1 % of frames; null: no frame timed
	StutterFrames         uint64   `json:"stutter_frames"`       // frames over twice the median of the 19 around them
	DroppedInputs         uint64   `json:"dropped_inputs"`       // inputs the full queue refused
	LatencyMode           string   `json:"latency_mode"`         // throughput, low or just-in-time
	MotionMode            string   `json:"motion_mode"`          // lerp, hermite or extrapolate
	InputAgeMs            *Quant2  `json:"input_age_ms"`         // input polled → frame displayed; null: no frame displayed
	InFlightMaxFrames     int      `json:"in_flight_max_frames"` // most frames presented and unfinished when a frame started
	FrameLeadMs           float64  `json:"frame_lead_ms"`        // how long before its display time a frame starts (at the end)
	InFlightWaitMs        *Quant2  `json:"in_flight_wait_ms"`    // low latency: waits for the GPU before a frame's GL work; null: none waited
	RenderDelayMs         float64  `json:"render_delay_ms"`      // at the end
	DiscardedTicks        uint64   `json:"discarded_ticks"`
	DiscardedS            float64  `json:"discarded_s"`
	ClampedS              float64  `json:"clamped_s"` // time of wake gaps beyond simthread.Tuning.MaxDelta, not caught up
	PausedS               float64  `json:"paused_s"`
	// The steady state's figures, counted from the end of the 2 s warm-up
	// to the end of the run: null for a run that ended first.
	GCCycles       *uint64  `json:"gc_cycles"`
	GCPauseTotalMs *float64 `json:"gc_pause_total_ms"`
	AllocsPerFrame *float64 `json:"alloc_objects_per_frame"` // heap objects, whole process, less sched_alloc_objects
	SchedAllocs    *uint64  `json:"sched_alloc_objects"`     // heap objects the runtime allocated for GOMAXPROCS changes
	SteadyAllocs   *uint64  `json:"steady_alloc_objects"`    // heap objects, whole process, less sched_alloc_objects: alloc_objects_per_frame's count, unrounded
	SchedLatencyMs *Quant3  `json:"sched_latency_ms"`        // runtime/metrics /sched/latencies:seconds (bucket upper bounds)

	BeatDetected     bool     `json:"beat_detected"` // ticks per frame beat (e.g. 0/2) at some point
	BeatFrames       uint64   `json:"beat_frames"`
	MissedVblanks    uint64   `json:"missed_vblanks"`
	OverwrittenSnaps uint64   `json:"overwritten_snapshots"` // published but never drawn
	FinalTick        *uint64  `json:"final_tick,omitempty"`  // the world's last tick, where it implements Checked
	StateHash        string   `json:"state_hash,omitempty"`  // hex (JSON numbers lose 64-bit values), where the world implements Checked
	Bodies           int      `json:"bodies"`
	GOMAXPROCS       Procs    `json:"gomaxprocs"`
	ThreadPriority   Priority `json:"thread_priority"` // what the critical threads asked for and got
	HeadroomProcs    int      `json:"headroom_procs"`  // Ps kept idle above demand (-1: the -headroom setting that leaves GOMAXPROCS alone)
	BackgroundNice   *int     `json:"background_nice"` // nice of the process's other threads (null: left alone, or not Linux)
	RenicedThreads   int      `json:"reniced_threads"`
	PausedFrames     uint64   `json:"paused_frames"` // frames of a pause: counted, not measured
	GoVersion        string   `json:"go_version"`
	GLRenderer       string   `json:"gl_renderer"`

	// Where the display times come from (package present): the display
	// system's own feedback, or the model.
	PresentModelWhy    string   `json:"present_model_why"`          // why the display system said nothing, with the model
	PresentVblankHz    *float64 `json:"present_vblank_hz"`          // the display's rate measured from its vblanks (null: none)
	PresentRoundTripMs *float64 `json:"present_round_trip_mean_ms"` // the software path's round trip after the swap (null: none)
	PresentRoundMaxMs  *float64 `json:"present_round_trip_max_ms"`
	// PresentSwapWaitMs is how long the render thread waited for a CPU
	// (runnable, not running: the kernel's run_delay) from a drawn
	// frame's swap call to the end of its present bookkeeping (the round
	// trip after the swap included): a frame's display time may be late
	// by up to that much where the thread was kept from a CPU after the
	// image landed (an upper bound). Absent where the kernel keeps no
	// per-thread account (not Linux).
	PresentSwapWaitMs *Quant3 `json:"present_swap_wait_ms,omitempty"`
	PresentStamped    *uint64 `json:"present_stamped_frames"` // frames placed by the server's own stamp (the rest: by the round trip's return); null without round trips
	PresentSynced     *uint64 `json:"present_synced_swaps"`   // swaps that ended with a round trip of their own (Mesa's drisw): in the framebuffer when the swap returned, an earlier bound than the stamp; null without round trips
	// PresentUnknown counts the drawn frames the display system never
	// reported (its report lost, or the run ended first): in neither
	// displayed_frames nor dropped_frames.
	PresentUnknown uint64 `json:"present_unknown_frames"`
	// PresentRebases counts the displayed frames whose vblank count
	// jumped from the previous one's (a window moved to another output, a
	// count restarted at a new refresh: present.Discontinuous): the
	// vblanks between the two are in neither repeated_frames nor
	// dropped_frames.
	PresentRebases uint64 `json:"present_rebased_frames"`
	// PresentClock is how the compositor's presentation times were
	// converted to the app's clock (Wayland's wp_presentation); nil
	// elsewhere.
	PresentClock *PresentClock `json:"present_clock,omitempty"`
	// Where the display system's vblanks ran at another rate than
	// refresh_hz (Xvfb's fake CRTC at 60 Hz under -refresh 144), frames
	// that reached its framebuffer are on the paced (emulated) display's
	// vblanks: present_figures_hz is the rate the displayed, dropped and
	// repeated counts, input age and animation error are on;
	// present_emulated_frames the frames placed so; and
	// present_display_vblank_frames the frames the display system's own
	// vblanks found new (what they showed, where its CRTC is a scanout).
	PresentRateMismatch  bool     `json:"present_rate_mismatch"`
	PresentFiguresHz     *float64 `json:"present_figures_hz"`
	PresentEmulated      uint64   `json:"present_emulated_frames"`
	PresentDisplayFrames uint64   `json:"present_display_vblank_frames"`
	// PresentFallbacks counts the times the display system's feedback
	// fell silent and the frames were reported from the next source
	// (present.Tracker.Fallback: frame timings, then the X server's
	// round trip and vblanks, then the swap model); PresentReturns the
	// times it spoke again and reporting went back to it.
	// present_time_source names the source at the run's end.
	PresentFallbacks uint64 `json:"present_fallback_count"`
	PresentReturns   uint64 `json:"present_return_count"`

	// BackgroundPriority is background_nice in the platform's own terms
	// (nice 10, THREAD_PRIORITY_BELOW_NORMAL); absent: none moved.
	BackgroundPriority string `json:"background_priority,omitempty"`
	// ClockSource is the clock all times come from: clock_monotonic, qpc
	// (Windows), mach_absolute_time (macOS).
	ClockSource string `json:"clock_source"`
	// DisplayServer is the display server's CPU over the run, read from
	// its /proc/PID/task/*/schedstat (sched.WatchDisplayServer): on the
	// software path a frame reaches the framebuffer only when the server
	// gets a CPU, so its wait is part of the frame. Null where the server
	// is not a process of this machine that /proc shows.
	DisplayServer *sched.ServerWaitSummary `json:"display_server"`

	// Extra is the app's own figures, set in Config.Finish: a value that
	// encodes to a JSON object (a struct with json tags, a map), whose
	// keys the report carries at its top level after the runtime's. A key
	// the runtime writes already is an error (ExtraError). Decode a
	// report's extra keys into a struct of your own beside Report.
	Extra any `json:"-"`
}

// reportKeys is Report without its methods: the runtime's keys alone.
type reportKeys Report

// MarshalJSON writes the runtime's keys, then Extra's. (A type that embeds
// Report gets this method: its own fields belong in Extra.)
func (r Report) MarshalJSON() ([]byte, error) {
	own, err := json.Marshal(reportKeys(r))
	if err != nil || r.Extra == nil {
		return own, err
	}
	extra, err := json.Marshal(r.Extra)
	if err != nil {
		return nil, fmt.Errorf("instrument: Report.Extra: %w", err)
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(extra, &keys); err != nil || keys == nil {
		return nil, fmt.Errorf("instrument: Report.Extra is a %T, not a JSON object", r.Extra)
	}
	if len(keys) == 0 {
		return own, nil
	}
	var runtimeKeys map[string]json.RawMessage
	if err := json.Unmarshal(own, &runtimeKeys); err != nil {
		return nil, err
	}
	for k := range keys {
		if _, ok := runtimeKeys[k]; ok {
			return nil, &ExtraError{Key: k}
		}
	}
	// Both are objects: the runtime's members, then Extra's, in the order
	// each encodes them.
	out := append(own[:len(own)-1:len(own)-1], ',')
	return append(out, extra[1:]...), nil
}

// ExtraError is a key of Report.Extra that the runtime's report has
// already.
type ExtraError struct{ Key string }

func (e *ExtraError) Error() string {
	return fmt.Sprintf("instrument: Report.Extra's key %q is the runtime's own", e.Key)
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
	// SimNative and RenderNative are what the platform's own interface
	// read back where the fields above do not say it (Windows' thread
	// priority level and MMCSS, macOS's QoS class): sched.Native.
	SimNative    string `json:"sim_native,omitempty"`
	RenderNative string `json:"render_native,omitempty"`
	// Drivers are the driver threads the render thread started (Mesa's
	// llvmpipe workers) that were given its priority because a broker's
	// SCHED_RESET_ON_FORK kept them from inheriting it; absent otherwise.
	Drivers []sched.ThreadPriority `json:"drivers,omitempty"`
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

// quant2 is h's median and p99 in ms, or nil where h has no sample: a
// figure not measured is null, never zero.
func quant2(h *stats.Histogram) *Quant2 {
	if h.Count() == 0 {
		return nil
	}
	return &Quant2{ms(h.Quantile(0.5)), ms(h.Quantile(0.99))}
}

// quantiles is what ticks3 reads: a stats.Histogram, or a read-only view of one.
type quantiles interface {
	Quantile(q float64) int64
	Max() int64
}

// ticks3 summarises a histogram of millionths of a tick.
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

// Checked is a world whose state a report can name: its last tick and a
// hash of its state (refworld's, for instance).
type Checked interface {
	Tick() uint64
	Hash() uint64
}

// Report returns the figures of the run, of world (its bodies, and its
// last tick and hash where it implements Checked). Call it after Run has
// returned: the simulation has stopped, so the world may be read.
func (in *Set) Report(world simthread.World) *Report {
	r := &Report{
		GoVersion:  runtime.Version(),
		GLRenderer: in.run.Window.GLRenderer(),
		Bodies:     in.stats.Bodies,
	}
	if w, ok := world.(interface{ Len() int }); ok {
		r.Bodies = w.Len()
	}
	if w, ok := world.(Checked); ok {
		tick := w.Tick()
		r.FinalTick, r.StateHash = &tick, fmt.Sprintf("%016x", w.Hash())
	}
	in.reportRun(r)
	in.reportSteady(r)
	in.reportMeter(r)
	in.reportPresent(r)
	return r
}

// reportRun fills in the run's rates and the simulation's counts.
func (in *Set) reportRun(r *Report) {
	run := in.run
	st := &in.stats
	sim := run.Sim
	tel := sim.Telemetry().Read()
	secs := in.steady.elapsed.Seconds()
	pacing := run.Pacing()
	r.DurationS = round(secs, 3)
	r.SimHz = sim.Config().Rate
	r.RefreshHz, r.RefreshSource = round(pacing.Hz, 3), pacing.Source
	r.Ticks, r.Frames = tel.Ticks, st.Frames
	r.TickRateHz = round(in.steady.tickRate(&tel), 2)
	if secs > 0 {
		r.FPS = round(float64(st.Frames)/secs, 2)
	}
	if st.FrameInterval.Count() > 0 {
		r.FrameIntervalMs = &Quant4{ms(st.FrameInterval.Quantile(0.5)), ms(st.FrameInterval.Quantile(0.95)), ms(st.FrameInterval.Quantile(0.99)), ms(st.FrameInterval.Max())}
		low := round(st.LowFPS(), 2)
		r.LowFPS = &low
	}
	if tel.Ticks > 0 {
		r.TickLatenessMs = &Quant3{ms(tel.Lateness.P50), ms(tel.Lateness.P99), ms(tel.Lateness.Max)}
	}
	r.TicksPerFrameHist = append([]uint64(nil), st.TicksPerFrame[:]...)
	r.StepsPerWakeHist = append([]uint64(nil), tel.StepsPerWake[:]...)
	if st.Alpha.Count() > 0 {
		r.Alpha = &AlphaStat{round(float64(st.Alpha.Quantile(0.5))/1e6, 4), round(float64(st.AlphaMin), 4), round(float64(st.AlphaMax), 4)}
	}
	r.AlphaClampedFrames = st.Clamped
	r.SnapshotAgeMs = quant2(&st.SnapshotAge)
	r.RenderDelayMs = ms(int64(st.Delay))
	r.DiscardedTicks, r.DiscardedS = tel.DiscardedTicks, round(tel.Discarded.Seconds(), 4)
	r.ClampedS, r.PausedS = round(tel.Clamped.Seconds(), 4), round(tel.PausedTotal.Seconds(), 4)
	r.BeatDetected, r.BeatFrames = st.Beat.Frames > 0, st.Beat.Frames
	r.MissedVblanks = pacing.Missed
	r.OverwrittenSnaps = sim.Overwritten()
	r.PausedFrames = st.Paused
	r.DroppedInputs = sim.InputsDropped()
	display := run.Config.Display
	r.LatencyMode, r.MotionMode = display.Latency.String(), display.Motion.String()
	r.InputAgeMs = quant2(&st.InputAge)
	r.InFlightMaxFrames = st.InFlight
	r.FrameLeadMs = ms(int64(st.Lead))
	r.InFlightWaitMs = quant2(&st.InFlightWait)
	r.StutterFrames = st.Stutter.Count
}

// reportSteady fills in the steady state's GC, allocation and scheduling
// figures.
func (in *Set) reportSteady(r *Report) {
	warm, end := in.steady.warm, in.steady.end
	if in.steady.at > 0 { // a run that ended in its warm-up has no steady state
		cycles, pause := end.Cycles-warm.Cycles, ms(int64(end.PauseTotal-warm.PauseTotal))
		r.GCCycles, r.GCPauseTotalMs = &cycles, &pause
		lat := in.latency
		r.SchedLatencyMs = &Quant3{ms(int64(lat.P50)), ms(int64(lat.P99)), ms(int64(lat.Max))}
	}
	if frames := in.stats.Frames - in.steady.frames; in.steady.at > 0 && frames > 0 {
		// The governor's GOMAXPROCS changes allocate the runtime's P
		// state: counted apart, not as the application's.
		governor := end.SchedAllocs - warm.SchedAllocs
		steady := end.Allocs - warm.Allocs - governor
		perFrame := round(float64(steady)/float64(frames), 3)
		r.AllocsPerFrame, r.SchedAllocs, r.SteadyAllocs = &perFrame, &governor, &steady
	}
	sr := in.run.Sched()
	r.GOMAXPROCS = Procs{sr.ProcsStart, sr.ProcsEnd, sr.ProcsMax}
	r.ThreadPriority = Priority{Sim: sr.Sim, Render: sr.Render, Drivers: sr.Drivers}
	r.HeadroomProcs, r.RenicedThreads = sr.Config.Headroom, sr.Reniced
	r.BackgroundPriority = sched.BackgroundPriority(sr.BackgroundNice)
	if nice := sr.BackgroundNice; runtime.GOOS == "linux" && nice >= 0 {
		r.BackgroundNice = &nice // a nice value is Linux's; elsewhere background_priority says what was done
	}
	r.ClockSource = sim.ClockSource()
	r.ThreadPriority.SimNative, r.ThreadPriority.RenderNative = sched.Native(sr.Sim.TID), sched.Native(sr.Render.TID)
	r.DisplayServer = sr.DisplayServer
}

// reportMeter fills in the animation error: the drawn figures from the
// GPU's read-backs and the display times where there are any, else the
// planned ones.
func (in *Set) reportMeter(r *Report) {
	wm := in.run.Pipeline.Meter()
	if wm == nil {
		return
	}
	m := wm.Meter
	// A figure with no sample (no frame measured yet) stays null.
	if m.PosErr().Count() > 0 {
		planned := Quant3{round(m.PosErrTicks(0.5), 5), round(m.PosErrTicks(0.99), 5), round(float64(m.PosErr().Max())/1e6, 5)}
		r.PlannedPoseErrorTicks = &planned
	}
	if m.AnimErr().Count() > 0 {
		plannedMs := Quant3{round(m.AnimErrMs(0.5), 4), round(m.AnimErrMs(0.99), 4), ms(m.AnimErr().Max())}
		r.PlannedAnimErrorMs = &plannedMs
	}
	d := m.Drawn()
	measured := d.Measured
	r.MeasuredFrames = &measured
	r.DrawnSource, r.PoseErrorTicks = "cpu", r.PlannedPoseErrorTicks
	if d.PosErrGPU.Count() > 0 {
		drawn, diff := ticks3(d.PosErrGPU), d.GPUDiffMax
		r.DrawnSource, r.PoseErrorTicks, r.GPUCPUMaxDiffM = "gpu-readback", &drawn, &diff
	}
	r.AnimErrorMs = r.PlannedAnimErrorMs
	if d.AnimErrShown.Count() > 0 {
		shown := Quant3{ms(d.AnimErrShown.Quantile(0.5)), ms(d.AnimErrShown.Quantile(0.99)), ms(d.AnimErrShown.Max())}
		lag := Quant3{ms(d.DisplayLag.Quantile(0.5)), ms(d.DisplayLag.Quantile(0.99)), ms(d.DisplayLag.Max())}
		r.AnimErrorMs, r.DisplayLagMs = &shown, &lag
	}
}

// reportPresent fills in PresentMon's figures.
func (in *Set) reportPresent(r *Report) {
	p, t := &in.stats.Present, &in.present
	r.PresentTimeSource = p.Source
	if r.PresentTimeSource == "" {
		r.PresentTimeSource = "none"
	}
	r.BetweenDisplayMs = quant2(&p.BetweenDisplayChange)
	r.UntilDisplayedMs = quant2(&p.UntilDisplayed)
	r.DisplayedFrames, r.DroppedFrames, r.RepeatedFrames = p.Displayed, p.Dropped, p.Repeated
	r.PresentUnknown, r.PresentRebases = p.Unknown, p.Rebases
	if src := t.src; src != nil {
		if !src.Measured() {
			r.PresentModelWhy = t.err
		} else if src.Model() {
			r.PresentModelWhy = src.ModelWhy()
		}
		vblankHz := t.vblankHz // the fit of the reports the frame log holds
		if vblankHz == 0 {
			vblankHz = src.Grid().Hz() // a run that never collected its last frames
		}
		if vblankHz > 0 {
			r.PresentVblankHz = &vblankHz
		}
		if st := src.Stats(); st.RoundTrips > 0 {
			mean, most := ms(int64(st.RoundTripTotal)/int64(st.RoundTrips)), ms(int64(st.RoundTripMax))
			stamped, synced := st.Stamped, st.SyncedSwaps
			r.PresentRoundTripMs, r.PresentRoundMaxMs = &mean, &most
			r.PresentStamped, r.PresentSynced = &stamped, &synced
		}
		if t.wait != nil {
			w := &p.SwapWait
			r.PresentSwapWaitMs = &Quant3{ms(w.Quantile(0.5)), ms(w.Quantile(0.99)), ms(w.Max())}
		}
		hz := in.run.Pacing().Hz
		dispHz, mismatch := t.rateMismatch(hz)
		figuresHz := round(hz, 3)
		if dispHz > 0 && !t.rates.emulatedMost() {
			figuresHz = round(dispHz, 3)
		}
		r.PresentRateMismatch = mismatch
		if figuresHz > 0 {
			r.PresentFiguresHz = &figuresHz
		}
		r.PresentEmulated, r.PresentDisplayFrames = t.rates.emulated, t.rates.onDisplay
		st := src.Stats()
		r.PresentFallbacks, r.PresentReturns = st.Fallbacks, st.Returns
		if c, ok := src.Clock(); ok {
			r.PresentClock = &PresentClock{Clock: c.Clock, ErrorUs: round(float64(c.Err)/1e3, 3), ErrorMaxUs: round(float64(c.ErrMax)/1e3, 3),
				DriftPPM: round(c.DriftPPM, 2), Readings: c.Readings, VariableRate: c.VariableRate,
				Presented: c.Presented, Discarded: c.Discarded, PresentedByModel: c.PresentedByModel}
			if c.Refresh > 0 {
				refresh := ms(int64(c.Refresh))
				r.PresentClock.RefreshMs = &refresh
			}
		}
	}
}

// PresentClock is the report's present_clock: the clock the compositor
// gave its presentation times on, how far the measured offset to the
// app's clock may be off (half the narrowest bracket of a reading: the
// last, and the largest over the run), how the offset moved over the run,
// in how many readings, the refresh the compositor gave (null: a
// variable-rate output), and its presented and discarded frames.
type PresentClock struct {
	Clock        string   `json:"clock"`
	ErrorUs      float64  `json:"offset_error_us"`
	ErrorMaxUs   float64  `json:"offset_error_max_us"`
	DriftPPM     float64  `json:"drift_ppm"`
	Readings     int      `json:"readings"`
	RefreshMs    *float64 `json:"refresh_ms"`
	VariableRate bool     `json:"variable_rate"`
	Presented    uint64   `json:"presented_frames"`
	Discarded    uint64   `json:"discarded_frames"`
	// PresentedByModel is how many of presented had their time put a
	// repaint earlier by a model, not taken from the compositor (Mutter's
	// frame timings: a frame whose alarm came after its content); 0 on
	// Wayland.
	PresentedByModel uint64 `json:"presented_by_model_frames"`
}
