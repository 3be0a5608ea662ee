package tickframe

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tickframe/tickframe/platform/internal/observe"
	"github.com/tickframe/tickframe/platform/internal/outfile"
	"github.com/tickframe/tickframe/platform/internal/sched"
)

const stressUsage = `usage: tickframe stress [flags] [-- demo flags]

Runs the demo headless (it needs a display: make stress provides Xvfb) for
-duration under each load in turn and prints one table, each figure with
its ratio to the unloaded row:

  none        nothing else running
  stress=N    N busy goroutines in the app (N = NumCPU, then 4×NumCPU)
  procs=N     N busy processes outside the app (N = NumCPU), started and
              stopped by this command
  gc=200      200 MB/s of garbage on a side goroutine
  procs=N+gc  both: the process's background threads compete with other
              processes while the collector stops the world for them

Flags after -- go to every demo run (e.g. -- -headroom -1 -bgnice -1).

-compositor wayland or xwayland runs each load behind a Weston nested in
the observer's Xvfb (implies -observe): the demo fills Weston's output
and is paced to it (-refresh 0 unless given), as a Wayland client (the
-tags wayland build, -wayland-app) or as an X11 client of Weston's
XWayland (this X11 build); -compositor mutter behind a Mutter, GNOME's
compositor, as an X11 client of its XWayland, whose frame timings it
reads:

  go build -o bin/tickframe ./cmd/tickframe
  go build -tags wayland -o bin/tickframe-wayland ./cmd/tickframe
  .ci/with-display bin/tickframe stress -compositor wayland
  .ci/with-display bin/tickframe stress -compositor xwayland
  .ci/with-display bin/tickframe stress -compositor mutter

-as USER runs the demo and the busy processes as USER, with no
capabilities and no supplementary groups, as an ordinary desktop user runs
it (this command must run as root). Under .ci/rtkit-env -u USER the demo
finds RealtimeKit and asks it for what the kernel denies:

  .ci/with-display .ci/rtkit-env -u nobody bin/tickframe stress -as nobody

`

// stressLoad is one row of the stress benchmark.
type stressLoad struct {
	Name  string   `json:"load"`
	args  []string // demo flags
	procs int      // busy processes outside the app
}

// StressRow is one load's figures, from the demo's report.
type StressRow struct {
	Load            string  `json:"load"`
	TickRateHz      float64 `json:"tick_rate_hz"`
	FPS             float64 `json:"fps"`
	RefreshHz       float64 `json:"refresh_hz"`          // the rate frames were paced at (the report's)
	PresentSource   string  `json:"present_time_source"` // where the app's display times came from
	FrameP99Ms      float64 `json:"frame_p99_ms"`
	LatenessP99Ms   float64 `json:"tick_lateness_p99_ms"`
	SchedLatP99Ms   float64 `json:"sched_latency_p99_ms"`
	AnimErrP99Ticks float64 `json:"animation_error_p99_ticks"`
	AnimErrP99Ms    float64 `json:"animation_error_p99_ms"`
	Discarded       uint64  `json:"discarded_ticks"`
	Clamped         uint64  `json:"clamped_frames"`
	Frames          uint64  `json:"frames"`
	GOMAXPROCS      int     `json:"gomaxprocs_max"`
	SimNice         int     `json:"sim_nice"`
	RenderNice      int     `json:"render_nice"`
	Err             string  `json:"error,omitempty"`
	// How the critical threads got their priorities (raised, rtkit,
	// portal, denied) and the simulation thread's real-time policy.
	SimHow    string `json:"sim_how,omitempty"`
	RenderHow string `json:"render_how,omitempty"`
	SimRT     string `json:"sim_rt,omitempty"`
	SimRTPrio int    `json:"sim_rt_priority,omitempty"`
	// DisplayServer is the X server's CPU times over the run, read from
	// outside the demo (sched.WatchDisplayServer): its wait for a CPU
	// delays every frame on the software path.
	DisplayServer *sched.ServerWaitSummary `json:"display_server,omitempty"`
	// Observer is what a viewer saw (-observe): tickframe observe's
	// figures for the run, beside the app's own for the same frames.
	Observer *FramesReport `json:"observer,omitempty"`
	// ObserverFloorMs is the observer's measured floor (twice its poll
	// gap p99), and Disagreements how the app's figures disagree with
	// the observer's beyond issue 22's bounds (none: they agree).
	ObserverFloorMs float64  `json:"observer_floor_ms,omitempty"`
	Disagreements   []string `json:"disagreements,omitempty"`
}

// StressResult is what -json writes.
type StressResult struct {
	Duration string      `json:"duration_per_load"`
	NumCPU   int         `json:"num_cpu"`
	SimHz    int         `json:"sim_hz"`
	Refresh  float64     `json:"refresh_hz"`
	Args     []string    `json:"demo_args"`
	Rows     []StressRow `json:"rows"`
	// As is the user the demo ran as (-as), "" for this command's own.
	As string `json:"as,omitempty"`
	// Compositor is where the demo ran (-compositor): "wayland" or
	// "xwayland" behind a nested Weston, "mutter" under a nested Mutter's
	// XWayland, "" on the X server.
	Compositor string `json:"compositor,omitempty"`
}

// stressMain runs `tickframe stress`.
func stressMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tickframe stress", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	dur := fs.Duration("duration", 10*time.Second, "how long each load runs")
	jsonPath := fs.String("json", "", "also write the table as JSON to `FILE`")
	width := fs.Int("width", 320, "window width")
	height := fs.Int("height", 240, "window height")
	bodies := fs.Int("bodies", 64, "bodies in the reference world")
	refresh := fs.Float64("refresh", 144, "emulated display rate in Hz")
	as := fs.String("as", "", "run the demo and the busy processes as `USER`, unprivileged (needs root)")
	only := fs.String("loads", "", "comma-separated loads to run (none, stress, stress4, procs, gc, procsgc); all if empty")
	watch := fs.Bool("observe", false, "run each load under tickframe observe, in an Xvfb of its own (the demo draws -marker and writes -framelog), and add what a viewer saw")
	compositor := fs.String("compositor", "", "run each load behind a compositor nested in the observer's Xvfb: Weston with `wayland` (the -tags wayland build, -wayland-app) or xwayland (this build), or mutter (this build, under Mutter's XWayland); implies -observe")
	waylandApp := fs.String("wayland-app", "", "the -tags wayland build of the demo that -compositor wayland runs (`FILE`; default: tickframe-wayland beside this binary)")
	// Demo flags follow "--": split them off before parsing.
	var extra []string
	if i := slices.Index(args, "--"); i >= 0 {
		args, extra = args[:i], args[i+1:]
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, stressUsage)
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return 0
		}
		fmt.Fprintf(stderr, "tickframe stress: %v (see tickframe stress -h)\n", err)
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "tickframe stress: unexpected argument %q (demo flags go after --)\n", fs.Arg(0))
		return 2
	}
	switch {
	case *compositor != "" && *compositor != "wayland" && *compositor != "xwayland" && *compositor != "mutter":
		fmt.Fprintf(stderr, "tickframe stress: -compositor %q: wayland, xwayland or mutter\n", *compositor)
		return 2
	case *compositor != "" && waylandBuild:
		// The observer reads an Xvfb and its vblanks: the X11 build's.
		fmt.Fprintln(stderr, "tickframe stress: -compositor runs from the X11 build (this one is -tags wayland); -compositor wayland runs the Wayland build given by -wayland-app")
		return 2
	}
	if *compositor != "" {
		*watch = true
		set := false
		fs.Visit(func(f *flag.Flag) { set = set || f.Name == "refresh" })
		if !set {
			*refresh = 0 // the compositor's rate
		}
	}
	if *dur < time.Second || *dur > time.Hour {
		fmt.Fprintf(stderr, "tickframe stress: -duration %v out of range [1s, 1h]\n", *dur)
		return 2
	}
	if *jsonPath != "" {
		if err := outfile.CheckWritable(*jsonPath); err != nil {
			fmt.Fprintf(stderr, "tickframe stress: -json %s: %v\n", *jsonPath, err)
			return 2
		}
	}
	n := runtime.NumCPU()
	all := []stressLoad{
		{Name: "none"},
		{Name: "stress=" + strconv.Itoa(n), args: []string{"-stress", strconv.Itoa(n)}},
		{Name: "stress=" + strconv.Itoa(4*n), args: []string{"-stress", strconv.Itoa(4 * n)}},
		{Name: "procs=" + strconv.Itoa(n), procs: n},
		{Name: "gc=200", args: []string{"-gcpressure", "200"}},
		// Both: the process's own threads at background priority then
		// compete with other processes while the garbage collector
		// stops the world, which waits for every one of them.
		{Name: "procs=" + strconv.Itoa(n) + "+gc", args: []string{"-gcpressure", "200"}, procs: n},
	}
	keys := map[string]int{"none": 0, "stress": 1, "stress4": 2, "procs": 3, "gc": 4, "procsgc": 5}
	loads := all
	if *only != "" {
		loads = nil
		for _, k := range strings.Split(*only, ",") {
			i, ok := keys[strings.TrimSpace(k)]
			if !ok {
				fmt.Fprintf(stderr, "tickframe stress: -loads: unknown load %q (none, stress, stress4, procs, gc, procsgc)\n", k)
				return 2
			}
			loads = append(loads, all[i])
		}
	}
	var user *stressUser
	if *as != "" {
		u, err := lookupStressUser(*as)
		if err != nil {
			fmt.Fprintf(stderr, "tickframe stress: -as %s: %v\n", *as, err)
			return 2
		}
		user = u
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "tickframe stress: %v\n", err)
		return 1
	}
	app := exe // the demo each load runs
	if *compositor == "wayland" {
		if app = *waylandApp; app == "" {
			app = filepath.Join(filepath.Dir(exe), "tickframe-wayland")
		}
		if st, err := os.Stat(app); err != nil || st.IsDir() {
			fmt.Fprintf(stderr, "tickframe stress: -compositor wayland: no Wayland build of the demo at %s (go build -tags wayland -o %s ./cmd/tickframe, or -wayland-app FILE)\n", app, app)
			return 2
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	tmp, err := os.MkdirTemp("", "tickframe-stress-")
	if err != nil {
		fmt.Fprintf(stderr, "tickframe stress: %v\n", err)
		return 1
	}
	defer os.RemoveAll(tmp)
	if user != nil {
		// The user runs a copy of this program from a directory of its
		// own, writes its reports there and reads the display's cookie.
		if exe, err = user.prepare(tmp, exe); err != nil {
			fmt.Fprintf(stderr, "tickframe stress: -as %s: %v\n", *as, err)
			return 1
		}
	}

	base := []string{"-width", strconv.Itoa(*width), "-height", strconv.Itoa(*height), "-bodies", strconv.Itoa(*bodies),
		"-refresh", strconv.FormatFloat(*refresh, 'g', -1, 64), "-duration", dur.String(), "-focuspause=false"}
	if *compositor != "" {
		base = append(base, "-fullscreen") // Weston's output, as the observer reads it
	}
	res := &StressResult{Duration: dur.String(), NumCPU: n, SimHz: 120, Refresh: *refresh, Args: extra, As: *as, Compositor: *compositor}
	failed := false
	for i, l := range loads {
		if ctx.Err() != nil {
			break
		}
		fmt.Fprintf(stderr, "tickframe stress: [%d/%d] %s for %v ...\n", i+1, len(loads), l.Name, *dur)
		row := runStressLoad(ctx, exe, app, tmp, base, extra, l, user, *watch, *compositor)
		if row.Err != "" {
			failed = true
			fmt.Fprintf(stderr, "tickframe stress: %s: %s\n", l.Name, row.Err)
		} else {
			fmt.Fprintf(stderr, "tickframe stress: %s: %.1f fps, tick rate %.2f Hz, animation error p99 %.4f tick\n",
				l.Name, row.FPS, row.TickRateHz, row.AnimErrP99Ticks)
		}
		res.Rows = append(res.Rows, row)
	}
	printStressTable(stdout, res, *refresh)
	if *jsonPath != "" {
		err := outfile.Write(*jsonPath, func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(res)
		})
		if err != nil {
			fmt.Fprintf(stderr, "tickframe stress: -json: %v\n", err)
			return 1
		}
	}
	if ctx.Err() != nil {
		fmt.Fprintln(stderr, "tickframe stress: interrupted: the table holds the loads that finished")
		return 1
	}
	if failed {
		return 1
	}
	return 0
}

// runStressLoad runs the demo once under load l and reads its report.
// exe is this binary (the busy processes, the observer, the compositor's
// harness) and app the demo (exe, or its Wayland build).
func runStressLoad(ctx context.Context, exe, app, tmp string, base, extra []string, l stressLoad, user *stressUser, watch bool, compositor string) StressRow {
	row := StressRow{Load: l.Name}
	name := strings.NewReplacer("=", "-", "+", "-").Replace(l.Name)
	report := filepath.Join(tmp, name+".json")
	flog, ojs := filepath.Join(tmp, name+".frames"), filepath.Join(tmp, name+".observe.json")
	var busy []*exec.Cmd
	defer func() {
		for _, c := range busy {
			c.Process.Kill()
			c.Wait()
		}
	}()
	for range l.procs {
		c := exec.CommandContext(ctx, exe, busyCommand)
		c.SysProcAttr = busyAttr()
		user.apply(c)
		if err := c.Start(); err != nil {
			row.Err = "starting a busy process: " + err.Error()
			return row
		}
		busy = append(busy, c)
	}
	args := append(append(append([]string{}, base...), l.args...), "-report", report)
	args = append(args, extra...)
	if watch {
		// The observer starts an Xvfb of its own and runs the demo there;
		// behind a compositor, in a Weston nested in that Xvfb, whose
		// output window the observer reads.
		cmd := []string{"observe", "-framelog", flog, "-json", ojs, "--", app}
		switch compositor {
		case "mutter":
			cmd = []string{"observe", "-fps", "60", "-window", observe.MutterTitle, "-framelog", flog, "-json", ojs, "--",
				exe, underMutterCommand, app}
		case "wayland", "xwayland":
			cmd = []string{"observe", "-fps", "60", "-window", observe.WestonTitle, "-framelog", flog, "-json", ojs, "--",
				exe, underWestonCommand, compositor, app}
		}
		args = append(append(cmd, args...), "-marker", "-framelog", flog)
	}
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) } // the demo flushes its report
	cmd.WaitDelay = 10 * time.Second
	var errOut strings.Builder
	cmd.Stderr = &errOut
	user.apply(cmd)
	xw, xerr := sched.WatchDisplayServer("")
	if err := cmd.Run(); err != nil {
		row.Err = fmt.Sprintf("the demo failed (%v): %s", err, oneLine(errOut.String()))
		return row
	}
	if xerr == nil && !watch {
		if sum, err := xw.Summary(); err == nil {
			row.DisplayServer = &sum
		}
	}
	if watch {
		var o ObserveReport
		data, err := os.ReadFile(ojs)
		if err == nil {
			err = json.Unmarshal(data, &o)
		}
		if err != nil || o.Frames == nil {
			row.Err = fmt.Sprintf("no observer report (%v)", err)
			return row
		}
		row.Observer, row.DisplayServer, row.ObserverFloorMs = o.Frames, o.DisplayServer, o.FloorMs
		if compositor == "mutter" && o.RepaintFrames != nil {
			// A nested Mutter's frames are compared on its repaints as
			// they came (observe.Comparison.Repaints).
			row.Observer = o.RepaintFrames
		}
	}
	data, err := os.ReadFile(report)
	if err != nil {
		row.Err = "no report: " + err.Error()
		return row
	}
	var r struct {
		TickRateHz      float64                `json:"tick_rate_hz"`
		FPS             float64                `json:"fps"`
		RefreshHz       float64                `json:"refresh_hz"`
		PresentSource   string                 `json:"present_time_source"`
		Frames          uint64                 `json:"frames"`
		SimHz           int                    `json:"sim_hz"`
		FrameIntervalMs struct{ P99 float64 }  `json:"frame_interval_ms"`
		TickLatenessMs  struct{ P99 float64 }  `json:"tick_lateness_ms"`
		SchedLatencyMs  struct{ P99 float64 }  `json:"sched_latency_ms"`
		PoseErrorTicks  struct{ P99 float64 }  `json:"pose_error_ticks"`
		AnimErrorMs     struct{ P99 float64 }  `json:"animation_error_ms"`
		SwapWaitMs      *struct{ Max float64 } `json:"present_swap_wait_ms"`
		DiscardedTicks  uint64                 `json:"discarded_ticks"`
		Clamped         uint64                 `json:"alpha_clamped_frames"`
		GOMAXPROCS      struct{ Max int }      `json:"gomaxprocs"`
		ThreadPriority  struct {
			Sim, Render struct {
				Nice       int
				How        string
				RT         string
				RTPriority int `json:"rt_priority"`
			}
		} `json:"thread_priority"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		row.Err = "bad report: " + err.Error()
		return row
	}
	row.TickRateHz, row.FPS, row.Frames = r.TickRateHz, r.FPS, r.Frames
	row.RefreshHz, row.PresentSource = r.RefreshHz, r.PresentSource
	if row.Observer != nil {
		late := 0.0
		if r.SwapWaitMs != nil {
			late = r.SwapWaitMs.Max
		}
		row.Disagreements = disagreements(row.Observer, row.ObserverFloorMs, late, false)
	}
	row.FrameP99Ms, row.LatenessP99Ms, row.SchedLatP99Ms = r.FrameIntervalMs.P99, r.TickLatenessMs.P99, r.SchedLatencyMs.P99
	row.AnimErrP99Ticks, row.AnimErrP99Ms = r.PoseErrorTicks.P99, r.AnimErrorMs.P99
	row.Discarded, row.Clamped, row.GOMAXPROCS = r.DiscardedTicks, r.Clamped, r.GOMAXPROCS.Max
	row.SimNice, row.RenderNice = r.ThreadPriority.Sim.Nice, r.ThreadPriority.Render.Nice
	row.SimHow, row.RenderHow = r.ThreadPriority.Sim.How, r.ThreadPriority.Render.How
	row.SimRT, row.SimRTPrio = r.ThreadPriority.Sim.RT, r.ThreadPriority.Sim.RTPriority
	return row
}

// printStressTable prints the rows, each figure with its ratio to the
// first (unloaded) row, and which of the targets each row meets.
func printStressTable(w io.Writer, res *StressResult, refresh float64) {
	display := fmt.Sprintf("display %g Hz (emulated)", refresh)
	switch {
	case res.Compositor == "mutter":
		display = "behind Mutter (xwayland client) nested in Xvfb, display: its output"
		if refresh > 0 {
			display += fmt.Sprintf(", %g Hz emulated", refresh)
		}
	case res.Compositor != "":
		display = fmt.Sprintf("behind Weston (%s client) nested in Xvfb, display: its output", res.Compositor)
		if refresh > 0 {
			display += fmt.Sprintf(", %g Hz emulated", refresh)
		}
	case refresh == 0:
		display = "display: the X server's rate"
	}
	fmt.Fprintf(w, "stress benchmark: %s per load, %d CPUs, sim %d Hz, %s\n\n", res.Duration, res.NumCPU, res.SimHz, display)
	fmt.Fprintf(w, "%-14s %14s %14s %13s %13s %13s %15s %13s %5s %7s %5s %9s  %s\n",
		"load", "tick Hz", "fps", "frame p99 ms", "late p99 ms", "sched p99 ms", "anim err p99 tk", "anim p99 ms", "disc", "clamped", "Ps", "nice s/r", "targets")
	var ref *StressRow
	for i := range res.Rows {
		if res.Rows[i].Load == "none" && res.Rows[i].Err == "" {
			ref = &res.Rows[i]
		}
	}
	ratio := func(v, r float64, prec int) string {
		s := strconv.FormatFloat(v, 'f', prec, 64)
		if ref == nil || r == 0 || math.IsNaN(v/r) {
			return s
		}
		return s + " (" + strconv.FormatFloat(v/r, 'f', 2, 64) + ")"
	}
	for _, r := range res.Rows {
		if r.Err != "" {
			fmt.Fprintf(w, "%-14s failed: %s\n", r.Load, r.Err)
			continue
		}
		var rr StressRow
		if ref != nil {
			rr = *ref
		}
		fmt.Fprintf(w, "%-14s %14s %14s %13s %13s %13s %15s %13s %5d %7d %5d %4d/%-4d  %s\n", r.Load,
			ratio(r.TickRateHz, rr.TickRateHz, 2), ratio(r.FPS, rr.FPS, 1), ratio(r.FrameP99Ms, rr.FrameP99Ms, 1),
			ratio(r.LatenessP99Ms, rr.LatenessP99Ms, 2), ratio(r.SchedLatP99Ms, rr.SchedLatP99Ms, 2),
			ratio(r.AnimErrP99Ticks, rr.AnimErrP99Ticks, 4), ratio(r.AnimErrP99Ms, rr.AnimErrP99Ms, 3),
			r.Discarded, r.Clamped, r.GOMAXPROCS, r.SimNice, r.RenderNice, stressTargets(r, ref, float64(res.SimHz), refresh))
	}
	printStressPriorities(w, res)
	printStressObserved(w, res, refresh)
	fmt.Fprintln(w, "\n(ratio to the unloaded row in parentheses; targets: tick rate within 0.5 %, 0 discarded, animation error p99 ≤ 0.05 tick,")
	fmt.Fprintln(w, " clamped ≤ 1 % of frames, fps ≥ 85 % of unloaded, frame p99 ≤ 2 display periods, tick lateness p99 ≤ 4 ms)")
}

// printStressPriorities says as whom the demo ran, how its critical
// threads got their priorities, and how long the display server waited
// for a CPU in each row.
func printStressPriorities(w io.Writer, res *StressResult) {
	who := "this command's user"
	if res.As != "" {
		who = res.As + ", unprivileged"
	}
	fmt.Fprintf(w, "\nas %s; priorities (sim, render: how; the sim's real-time policy), and the display server's CPU wait over the run:\n", who)
	for _, r := range res.Rows {
		if r.Err != "" {
			continue
		}
		rt := "none"
		if r.SimRT != "" {
			rt = r.SimRT
			if r.SimRTPrio > 0 {
				rt += " " + strconv.Itoa(r.SimRTPrio)
			}
		}
		x := "display server not found"
		if d := r.DisplayServer; d != nil {
			x = fmt.Sprintf("%s (pid %d) waited %.0f ms for a CPU, ran %.0f ms, in %.1f s", d.Server.Name, d.Server.PID, d.WaitMs, d.RunMs, d.SpanMs/1000)
		}
		fmt.Fprintf(w, "  %-14s sim %s, render %s, sim real-time %s; %s\n", r.Load, r.SimHow, r.RenderHow, rt, x)
	}
}

// stressTargets names the targets row r misses, or "all met".
func stressTargets(r StressRow, ref *StressRow, simHz, refresh float64) string {
	var miss []string
	if math.Abs(r.TickRateHz-simHz) > 0.005*simHz {
		miss = append(miss, "tick rate")
	}
	if r.Discarded > 0 {
		miss = append(miss, "discarded")
	}
	if r.AnimErrP99Ticks > 0.05 {
		miss = append(miss, "anim err")
	}
	if r.Frames > 0 && float64(r.Clamped) > 0.01*float64(r.Frames) {
		miss = append(miss, "clamped")
	}
	if ref != nil && r.FPS < 0.85*ref.FPS {
		miss = append(miss, "fps")
	}
	if refresh <= 0 {
		refresh = r.RefreshHz // followed the display
	}
	if refresh > 0 && r.FrameP99Ms > 2*1000/refresh {
		miss = append(miss, "frame p99")
	}
	if r.LatenessP99Ms > 4 {
		miss = append(miss, "lateness")
	}
	if len(miss) == 0 {
		return "all met"
	}
	return "missed: " + strings.Join(miss, ", ")
}

// busyCommand is the hidden subcommand the stress benchmark starts as a
// busy process outside the app.
const busyCommand = "stress-busy-process"

// busyProcess burns one core until it is killed (or its parent dies).
func busyProcess() int {
	busy(context.Background())
	return 0
}

// printStressObserved prints, for the rows run under tickframe observe,
// what a viewer saw beside what the app reported for the same frames.
func printStressObserved(w io.Writer, res *StressResult, refresh float64) {
	have := false
	for _, r := range res.Rows {
		have = have || r.Observer != nil
	}
	if !have {
		return
	}
	fmt.Fprintf(w, "\nwhat a viewer saw (tickframe observe: the X server's framebuffer at 5 kHz; observer / app, the same frames)\n")
	fmt.Fprintf(w, "%-14s %13s %11s %11s %23s %23s %9s %9s %9s  %s\n", "load", "displayed", "dropped", "repeated",
		"anim seen p50/p99/max", "anim app p50/p99/max", "app-only", "unplaced", "X wait ms", "agreement")
	period := 0.0
	for _, r := range res.Rows {
		o := r.Observer
		if o == nil {
			continue
		}
		wait := "-"
		if r.DisplayServer != nil {
			wait = strconv.FormatFloat(r.DisplayServer.WaitMs, 'f', 0, 64)
		}
		agree := "agrees"
		if len(r.Disagreements) > 0 {
			agree = fmt.Sprintf("%d beyond the bounds", len(r.Disagreements))
		}
		period = max(period, o.PeriodMs)
		fmt.Fprintf(w, "%-14s %13s %11s %11s %23s %23s %9d %9d %9s  %s\n", r.Load,
			fmt.Sprintf("%d/%d", o.Displayed[0], o.Displayed[1]), fmt.Sprintf("%d/%d", o.Dropped[0], o.Dropped[1]),
			fmt.Sprintf("%d/%d", o.Repeated[0], o.Repeated[1]),
			fmt.Sprintf("%.2f/%.2f/%.1f", o.SeenAnimErr[0], o.SeenAnimErr[1], o.SeenAnimErr[2]),
			fmt.Sprintf("%.2f/%.2f/%.1f", o.AppAnimErrMs[0], o.AppAnimErrMs[1], o.AppAnimErrMs[2]),
			o.AppOnly, o.Ambiguous, wait, agree)
	}
	for _, r := range res.Rows {
		for _, d := range r.Disagreements {
			fmt.Fprintf(w, "  %s: %s\n", r.Load, d)
		}
	}
	if refresh > 0 {
		period = 1000 / refresh
	}
	fmt.Fprintf(w, "(anim: PresentMon's animation error in ms; app-only: frames the app counted displayed that never reached the screen;\n")
	fmt.Fprintf(w, " unplaced: frames the observer could not place on a vblank; agreement: issue 22's bounds, as make test holds them;\n")
	fmt.Fprintf(w, " targets: seen p99 ≤ 1 ms quiet, ≤ one period (%.2f ms) loaded, max ≤ two)\n", period)
}
