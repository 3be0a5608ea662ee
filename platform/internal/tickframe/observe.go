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
	"strings"
	"syscall"
	"time"

	"github.com/tickframe/tickframe/platform/app"
	"github.com/tickframe/tickframe/platform/internal/observe"
	"github.com/tickframe/tickframe/platform/internal/sched"
)

// presentConfig maps -marker, -framelog, -breakpresent and -breakinput
// to the app's configuration.
func presentConfig(o *options, set *app.Settings) {
	set.Tools.Marker, set.Tools.FrameLog = o.marker, o.frameLog
	if o.breakPresent {
		set.Tools.PresentFault = app.PresentFault{Hold: 20 * time.Millisecond, HoldEvery: time.Second, DropEvery: 10}
	}
	set.Tools.PresentFault.InputLate = o.breakInput
}

const observeUsage = `usage: tickframe observe [flags] [-- command [args]]

Watches a display from outside the app, as a capture card would: it reads
the X server's framebuffer (Xvfb's -fbdir file) a few thousand times a
second and decodes the per-frame marker an app draws with -marker, then
joins what it saw with the app's -framelog: frames displayed, dropped and
repeated, frame times and the animation error as a viewer saw them,
beside the app's own figures for the same frames.

With a command, it starts an Xvfb of its own (its fake CRTC at -fps),
runs the command there with DISPLAY set and watches until it exits; the
command is run as given, so give it -marker and -framelog yourself:

  tickframe observe -framelog f.log -- tickframe -marker -framelog f.log -duration 5s -refresh 144

Without one it watches the display -display until -duration, reading -fb.

-inputs N presses the key I N times through XTEST, at random times, and
times the app's reaction patch (drawn with -marker beside the marker)
from each press to the framebuffer and to the next vblank: input to
photon. -report FILE (the app's -report) adds the app's own input age
beside it.

-record FILE keeps the watch (every marker change, the observer's stalls
and poll gaps) so that it can be compared with the log again later, with
-replay FILE -framelog LOG instead of watching: after a test failed on it,
or with a changed analysis.

`

// observeOptions are tickframe observe's flags.
type observeOptions struct {
	display, fb, title, frameLog, jsonOut string
	record, replay                        string // -record, -replay: the watch kept, or read back
	appReport                             string // -report: the app's report, for its input age
	duration, interval                    time.Duration
	fps, priority, inputs                 int
	command                               []string
}

func parseObserveFlags(args []string, out io.Writer) (*observeOptions, error) {
	o := &observeOptions{}
	fs := flag.NewFlagSet("tickframe observe", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.display, "display", os.Getenv("DISPLAY"), "the X `display` to watch (without a command)")
	fs.StringVar(&o.fb, "fb", "", "its framebuffer `FILE` (Xvfb -fbdir DIR: DIR/Xvfb_screen0; without a command)")
	fs.StringVar(&o.title, "window", appWindowTitle, "the `title` of the window whose marker is read")
	fs.StringVar(&o.frameLog, "framelog", "", "the app's frame log `FILE` (its -framelog), read once the watch ends")
	fs.StringVar(&o.jsonOut, "json", "", "write the report to `FILE`.json as well")
	fs.StringVar(&o.record, "record", "", "keep the watch in `FILE` (JSON) for -replay")
	fs.StringVar(&o.replay, "replay", "", "compare the watch kept in `FILE` (-record) with -framelog, instead of watching")
	fs.DurationVar(&o.duration, "duration", 0, "watch this long (without a command; 0: until SIGINT)")
	fs.DurationVar(&o.interval, "interval", observe.DefaultInterval, "time between framebuffer reads")
	fs.IntVar(&o.fps, "fps", 144, "the rate of the Xvfb's fake CRTC (with a command; 0: Xvfb's default, 60 Hz, without -fakescreenfps)")
	fs.IntVar(&o.priority, "priority", observe.DefaultPriority, "SCHED_FIFO `priority` of the polling thread (-1: none)")
	fs.IntVar(&o.inputs, "inputs", 0, "press the key I `N` times through XTEST and time the app's reaction patch (input to photon)")
	fs.StringVar(&o.appReport, "report", "", "the app's report `FILE` (its -report), read once the watch ends: its input age beside the input-to-photon figures")
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(out, observeUsage)
			fs.SetOutput(out)
			fs.PrintDefaults()
			return nil, err
		}
		return nil, usagef("observe: %v (see tickframe observe -h)", err)
	}
	o.command = fs.Args()
	switch {
	case o.interval < 10*time.Microsecond || o.interval > 500*time.Microsecond:
		return nil, usagef("observe: -interval %v: out of range [10µs, 500µs] (≥ 2 kHz)", o.interval)
	case o.fps < 0 || o.fps > 600:
		return nil, usagef("observe: -fps %d: out of Xvfb's range [1, 600] (or 0: its default)", o.fps)
	case o.priority < -1 || o.priority > 99:
		return nil, usagef("observe: -priority %d: out of range [1, 99] (or -1)", o.priority)
	case o.inputs < 0 || o.inputs > 10000:
		return nil, usagef("observe: -inputs %d: out of range [0, 10000]", o.inputs)
	case o.duration < 0:
		return nil, usagef("observe: -duration %v: negative", o.duration)
	case o.replay != "" && (len(o.command) > 0 || o.fb != "" || o.record != ""):
		return nil, usagef("observe: -replay reads a watch kept with -record: give it no command, -fb or -record")
	case o.replay != "" && o.frameLog == "":
		return nil, usagef("observe: -replay needs the app's -framelog to compare with")
	case o.replay != "":
	case len(o.command) == 0 && o.fb == "":
		return nil, usagef("observe: give -fb FILE (the display's framebuffer) or a command to run under an Xvfb of its own")
	}
	return o, nil
}

func observeMain(args []string, stdout, stderr io.Writer) int {
	o, err := parseObserveFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "tickframe %s\n", oneLine(err.Error()))
		return 2
	}
	if o.replay != "" {
		res, err := observe.ReadRecord(o.replay)
		if err == nil {
			fmt.Fprintf(stdout, "replayed from %s: the observer's fit of the display's vblanks is not kept (vblank_fit_offset_ms reads 0)\n", o.replay)
			err = observeReport(o, &observed{Result: res}, stdout)
		}
		if err != nil {
			fmt.Fprintf(stderr, "tickframe observe: %s\n", oneLine(err.Error()))
			return 2 // a bad file
		}
		return 0
	}
	res, err := observeRun(o, stderr)
	if res != nil && o.record != "" {
		// Kept whatever the command did: the watch is what a failure is
		// diagnosed from.
		err = errors.Join(err, observe.WriteRecord(o.record, res.Result))
	}
	if err == nil {
		err = observeReport(o, res, stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "tickframe observe: %s\n", oneLine(err.Error()))
		var ce *commandError
		if errors.As(err, &ce) {
			return ce.code
		}
		return 1
	}
	return 0
}

// commandError is the observed command's failure: its exit status.
type commandError struct {
	err  error
	code int
}

func (e *commandError) Error() string { return "the command failed: " + e.err.Error() }

// observed is what one observation saw.
type observed struct {
	Result  observe.Result
	XvfbPID int
	// Server is the Xvfb's CPU times over the command's run (its wait for
	// a CPU delays every frame on the software path); nil without a
	// command, or where they cannot be read.
	Server *sched.ServerWaitSummary
}

// observeRun watches: under an Xvfb of its own while the command runs, or
// the display given until -duration or a signal.
func observeRun(o *observeOptions, stderr io.Writer) (*observed, error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	out := &observed{}
	display, fb := o.display, o.fb
	if len(o.command) > 0 {
		fps := o.fps
		if fps == 0 {
			fps = observe.XvfbDefaultFPS
		}
		x, err := observe.StartXvfb(observe.XvfbConfig{FPS: fps})
		if err != nil {
			return nil, err
		}
		defer x.Close()
		display, fb, out.XvfbPID = x.Display, x.FB, x.PID()
	}
	var xw *sched.ServerWait
	if len(o.command) > 0 {
		xw, _ = sched.WatchDisplayServer(display) // nil where /proc cannot say
	}
	s, err := observe.Start(observe.Config{Display: display, FB: fb, Title: o.title, Interval: o.interval, Priority: o.priority,
		Inputs: observe.InputConfig{Count: o.inputs}})
	if err != nil {
		return nil, err
	}
	if gerr := s.GridErr(); gerr != nil {
		fmt.Fprintf(stderr, "tickframe observe: no vblanks from the display (%v): frames are placed at the times they were seen\n", oneLine(gerr.Error()))
	}
	var runErr error
	if len(o.command) > 0 {
		cmd := exec.CommandContext(ctx, o.command[0], o.command[1:]...)
		cmd.Env = append(os.Environ(), "DISPLAY="+display)
		cmd.Stdout, cmd.Stderr = stderr, stderr
		if err := cmd.Run(); err != nil {
			code := 1
			var ee *exec.ExitError
			if errors.As(err, &ee) && ee.ExitCode() > 0 {
				code = ee.ExitCode()
			}
			runErr = &commandError{err: err, code: code}
		}
	} else if o.duration > 0 {
		select {
		case <-ctx.Done():
		case <-time.After(o.duration):
		}
	} else {
		<-ctx.Done()
	}
	if xw != nil {
		if sum, err := xw.Summary(); err == nil {
			out.Server = &sum
		}
	}
	res, err := s.Stop()
	out.Result = res
	return out, errors.Join(runErr, err)
}

// appWindowTitle is the demo's window's title, the one tickframe observe
// watches unless told another (-window).
const appWindowTitle = "tickframe"

// ObserveReport is tickframe observe's report: the observer's own figures,
// and, with a frame log, the comparison.
type ObserveReport struct {
	Window        [4]int     `json:"window"` // x, y, w, h on the screen
	VblankSource  string     `json:"vblank_source"`
	VblankHz      float64    `json:"vblank_hz"`
	Changes       int        `json:"marker_changes"`
	Polls         uint64     `json:"polls"`
	PollGapMs     [3]float64 `json:"poll_gap_ms"` // p50, p99, max: the observer's precision
	Realtime      bool       `json:"realtime"`
	RealtimeError string     `json:"realtime_error,omitempty"`
	Torn          uint64     `json:"torn_polls"`
	// Stalls counts the observer's own stalls (poll gaps over
	// observe.StallGap), StalledMs their sum: it was blind then, and the
	// frames it did not see across them are left out (unseen).
	Stalls    int     `json:"stalls"`
	StalledMs float64 `json:"stalled_ms"`
	// FloorMs is the observer's measured floor for a figure made of two
	// placements: twice its poll gap's p99.
	FloorMs float64 `json:"floor_ms"`
	// DisplayServer is the observer's Xvfb's CPU times over the run.
	DisplayServer *sched.ServerWaitSummary `json:"display_server,omitempty"`
	// Frames places the frames seen on the display system's vblanks as
	// the app had them; OwnFrames on the observer's own fit (OwnFit) of
	// the framebuffer's changes, independent of the app.
	Frames    *FramesReport `json:"frames,omitempty"`
	OwnFrames *FramesReport `json:"own_frames,omitempty"`
	OwnFit    *FitReport    `json:"own_fit,omitempty"`
	// RepaintFrames places them on the framebuffer's changes as they
	// came (observe.Comparison.Repaints): behind a compositor nested in
	// the observer's X server, whose repaints follow a clock of its own,
	// each change is one repaint, and a frame is displayed from when it
	// arrived. Printed where the window watched is not the app's own
	// (-window names a compositor's output).
	RepaintFrames *FramesReport `json:"repaint_frames,omitempty"`
	// Inputs is input to photon (-inputs).
	Inputs *InputsReport `json:"inputs,omitempty"`
}

// InputsReport is input to photon: the observer's key presses and the
// app's reaction patch (observe.AnalyzeInputs), and the app's own input
// age from its report (-report). Times in ms, as p50, p99, max.
type InputsReport struct {
	Sent   int `json:"sent"`
	Seen   int `json:"seen"`
	Missed int `json:"missed"`
	// MissedWhy says why, a line each; Error why the presses stopped.
	MissedWhy []string `json:"missed_why,omitempty"`
	Error     string   `json:"error,omitempty"`
	// ToFramebufferMs: from the press to the patch's change in the
	// framebuffer; ToPhotonMs: to the first vblank after it (the
	// observer's own vblanks; absent without them).
	ToFramebufferMs [3]float64  `json:"to_framebuffer_ms"`
	ToPhotonMs      *[3]float64 `json:"to_photon_ms,omitempty"`
	// SendMs is the X server's part, at most: the press's round trip.
	SendMs [3]float64 `json:"send_ms"`
	// AppInputAgeMs is the app's input_age_ms (p50, p99: from its input
	// poll to the display), from -report; OutsideLessAppMs the p50 to
	// the photon less the app's p50: the wait for the app's next poll,
	// expected between 0 and a frame.
	AppInputAgeMs    *[2]float64 `json:"app_input_age_ms,omitempty"`
	OutsideLessAppMs *float64    `json:"outside_less_app_p50_ms,omitempty"`
}

// inputsReport is the input-to-photon figures of res, with the app's
// input age from its report at path ("": none).
func inputsReport(res *observe.Result, appReport string) (*InputsReport, error) {
	a := observe.AnalyzeInputs(res.Inputs, res.Reactions, res.Grid, res.Watch.Stalls)
	r := &InputsReport{Sent: a.Sent, Seen: a.Seen, Missed: a.Missed, Error: res.InputErr,
		ToFramebufferMs: msOf(a.ToFramebuffer), SendMs: msOf(a.Send)}
	for _, l := range a.Inputs {
		if !l.Seen {
			r.MissedWhy = append(r.MissedWhy, fmt.Sprintf("press %d: %s", l.N, l.Missed))
		}
	}
	if a.ToPhoton.N > 0 {
		p := msOf(a.ToPhoton)
		r.ToPhotonMs = &p
	}
	if appReport != "" {
		data, err := os.ReadFile(appReport)
		if err != nil {
			return nil, err
		}
		var rep struct {
			InputAge *struct {
				P50 float64 `json:"p50"`
				P99 float64 `json:"p99"`
			} `json:"input_age_ms"`
		}
		if err := json.Unmarshal(data, &rep); err != nil {
			return nil, fmt.Errorf("%s: not a report: %v", appReport, err)
		}
		if rep.InputAge != nil {
			r.AppInputAgeMs = &[2]float64{rep.InputAge.P50, rep.InputAge.P99}
			if r.ToPhotonMs != nil {
				d := round(r.ToPhotonMs[0]-rep.InputAge.P50, 3)
				r.OutsideLessAppMs = &d
			}
		}
	}
	return r, nil
}

// printInputs prints input to photon.
func printInputs(w io.Writer, r *InputsReport, periodMs float64) {
	fmt.Fprintf(w, "input to photon: %d presses of I, %d reactions seen, %d missed\n", r.Sent, r.Seen, r.Missed)
	if r.Error != "" {
		fmt.Fprintf(w, "  the presses stopped: %s\n", r.Error)
	}
	for _, m := range r.MissedWhy {
		fmt.Fprintf(w, "  missed: %s\n", m)
	}
	f := r.ToFramebufferMs
	fmt.Fprintf(w, "  press to the framebuffer p50/p99/max ms: %.3f/%.3f/%.3f (the press's round trip to the X server %.3f/%.3f/%.3f)\n", f[0], f[1], f[2], r.SendMs[0], r.SendMs[1], r.SendMs[2])
	if p := r.ToPhotonMs; p != nil {
		fmt.Fprintf(w, "  press to the photon (the next vblank) p50/p99/max ms: %.3f/%.3f/%.3f\n", p[0], p[1], p[2])
	}
	if a := r.AppInputAgeMs; a != nil {
		fmt.Fprintf(w, "  the app's input age (its poll to the display) p50/p99 ms: %.3f/%.3f", a[0], a[1])
		if r.OutsideLessAppMs != nil {
			fmt.Fprintf(w, "; outside less the app at p50: %.3f ms (the wait for the app's next poll: expected between 0 and a frame, %.3f ms)", *r.OutsideLessAppMs, periodMs)
		}
		fmt.Fprintln(w)
	}
}

// periodMs is the display's period as the observer measured it, 0
// without vblanks.
func (r *ObserveReport) periodMs() float64 {
	if r.VblankHz <= 0 {
		return 0
	}
	return round(1000/r.VblankHz, 3)
}

// FitReport is the observer's own vblank grid, fitted to the
// framebuffer's changes (observe.FitChanges).
type FitReport struct {
	Hz       float64 `json:"hz"`
	Arrivals int     `json:"arrivals"` // changes it was fitted to
	OffLine  int     `json:"off_line"` // of them, more than a quarter period off the fitted line
	Emptiest float64 `json:"emptiest"` // share of arrivals within ±1/64 period of the fitted vblank
	// Determined: at least two thirds of the arrivals on the grid; only
	// then are frames placed on it (own_frames).
	Determined bool `json:"determined"`
	// OffRate: determined, but at a whole multiple of the period of the
	// vblanks the app's frames are placed on (observe.Comparison.OffRate):
	// no frames placed on it.
	OffRate bool `json:"off_rate,omitempty"`
}

// FramesReport is the join with the app's frame log.
type FramesReport struct {
	FirstID      uint64     `json:"first_id"`
	LastID       uint64     `json:"last_id"`
	Displayed    [2]uint64  `json:"displayed"` // observer, app
	Dropped      [2]uint64  `json:"dropped"`
	Repeated     [2]uint64  `json:"repeated"`
	AppOnly      uint64     `json:"app_displayed_never_seen"`
	ObserverOnly uint64     `json:"seen_app_dropped"`
	OtherVblank  uint64     `json:"other_vblank"`
	Unmatched    uint64     `json:"unmatched_changes"`
	FrameTimeMs  [3]float64 `json:"frame_time_ms"`           // p50, p99, max, as seen
	SeenAnimErr  [3]float64 `json:"seen_animation_error_ms"` // as a viewer saw it: every pair of frames displayed
	AnimErrMs    [3]float64 `json:"animation_error_ms"`      // the observer's, on the pairs both saw
	AppAnimErrMs [3]float64 `json:"app_animation_error_ms"`  // the app's times, same frames
	AppP99BandMs [2]float64 `json:"app_p99_band_ms"`         // the app\'s p99 with the frames placed differently the other way
	Ambiguous    uint64     `json:"ambiguous"`               // frames the observer could not place (a vblank in a poll gap)
	GridOffsetMs [2]float64 `json:"vblank_fit_offset_ms"`    // the observer's fit of the vblanks from the app's: p50, max
	// Unseen counts the frames left out: not seen, over an observer stall.
	Unseen uint64 `json:"unseen"`
	// GridShiftMs is the median of the app's display time minus the
	// observer's over the frames both count displayed (0 on the app's
	// vblanks; the phase between the grids on the observer's own).
	GridShiftMs float64 `json:"grid_shift_ms"`
	// GridShiftP90Ms is their 90th percentile (observe.Report.GridShiftP90).
	GridShiftP90Ms float64 `json:"grid_shift_p90_ms"`
	// AppSpanAnimErrMs is the app's animation error over all its pairs
	// in the span (but frames unplaced or unseen): beside
	// SeenAnimErr, the two-sided comparison of the worst frames.
	AppSpanAnimErrMs [3]float64 `json:"app_span_animation_error_ms"`
	// PeriodMs is the period the frames were placed on.
	PeriodMs float64 `json:"period_ms"`
	// AppSteps and AppOffGrid: the app's steps between displayed frames,
	// and those off the period's grid (observe.Report.AppOffGrid).
	AppSteps   uint64 `json:"app_steps"`
	AppOffGrid uint64 `json:"app_steps_off_grid"`
	// NoVblanks: placed on no vblanks (repaint_frames: a nested
	// compositor's arrivals): a repeat there is a rounding of the time
	// between two arrivals on one side and two stamps on the other, a
	// vblank neither saw, and the repeats are not compared.
	NoVblanks bool `json:"no_vblanks,omitempty"`
}

// repeatsOnVblanks reports whether the frames were placed on vblanks and
// the app's display times lie on the period's grid (no more than 10 % of
// its steps off it), so that a repeat is a vblank both sides can count;
// behind a compositor that presents on a timer they are not, and the
// repeats on either side are a rounding of steps that lie between whole
// periods.
func (f *FramesReport) repeatsOnVblanks() bool { return !f.NoVblanks && 10*f.AppOffGrid <= f.AppSteps }

// framesReport is one placement's figures.
func framesReport(a observe.Report) *FramesReport {
	return &FramesReport{FirstID: a.FirstID, LastID: a.LastID,
		Displayed: [2]uint64{a.Displayed, a.AppDisplayed}, Dropped: [2]uint64{a.Dropped, a.AppDropped},
		Repeated: [2]uint64{a.Repeated, a.AppRepeated}, AppOnly: a.AppOnly, ObserverOnly: a.ObserverOnly,
		OtherVblank: a.OtherVblank, Unmatched: a.Unmatched, FrameTimeMs: msOf(a.FrameTime),
		AnimErrMs: msOf(a.AnimErr), AppAnimErrMs: msOf(a.AppAnimErr), SeenAnimErr: msOf(a.SeenAnimErr), Ambiguous: a.Ambiguous,
		AppP99BandMs: [2]float64{msDur(a.AppP99Band[0]), msDur(a.AppP99Band[1])},
		Unseen:       a.Unseen, GridShiftMs: msDur(a.GridShift), GridShiftP90Ms: msDur(a.GridShiftP90), AppSpanAnimErrMs: msOf(a.AppSpanAnimErr), PeriodMs: msDur(a.Period),
		AppSteps: a.AppSteps, AppOffGrid: a.AppOffGrid}
}

func msDur(d time.Duration) float64 { return round(float64(d)/1e6, 3) }

// printFrames prints one placement's figures.
func printFrames(w io.Writer, title string, f *FramesReport) {
	fmt.Fprintf(w, "frames %d-%d %s (period %.3f ms)\n                   observer   app\n", f.FirstID, f.LastID, title, f.PeriodMs)
	fmt.Fprintf(w, "  displayed        %8d %5d\n  dropped          %8d %5d\n  repeated         %8d %5d\n",
		f.Displayed[0], f.Displayed[1], f.Dropped[0], f.Dropped[1], f.Repeated[0], f.Repeated[1])
	fmt.Fprintf(w, "  animation error p50/p99/max ms: as seen %.3f/%.3f/%.3f, the app's %.3f/%.3f/%.3f; on the pairs both count: observer %.3f/%.3f/%.3f, app %.3f/%.3f/%.3f\n",
		f.SeenAnimErr[0], f.SeenAnimErr[1], f.SeenAnimErr[2], f.AppSpanAnimErrMs[0], f.AppSpanAnimErrMs[1], f.AppSpanAnimErrMs[2],
		f.AnimErrMs[0], f.AnimErrMs[1], f.AnimErrMs[2], f.AppAnimErrMs[0], f.AppAnimErrMs[1], f.AppAnimErrMs[2])
	fmt.Fprintf(w, "  frame time as seen p50/p99/max ms: %.3f/%.3f/%.3f\n", f.FrameTimeMs[0], f.FrameTimeMs[1], f.FrameTimeMs[2])
	fmt.Fprintf(w, "  app counted displayed, never seen: %d; seen, app counted dropped: %d; other vblank: %d (beyond a shift of %.3f ms); unmatched changes: %d\n",
		f.AppOnly, f.ObserverOnly, f.OtherVblank, f.GridShiftMs, f.Unmatched)
	fmt.Fprintf(w, "  could not place (a vblank between two polls, or a stall across it): %d; not seen, over an observer stall: %d\n", f.Ambiguous, f.Unseen)
	switch {
	case f.NoVblanks:
		fmt.Fprintf(w, "  on no vblanks: the repeats on either side are roundings of the times between frames (arrivals, the compositor's stamps), not compared\n")
	case !f.repeatsOnVblanks():
		fmt.Fprintf(w, "  the app's display times are off the period's grid (%d of %d steps): its repeats, and those seen, are roundings of those steps, not vblanks\n", f.AppOffGrid, f.AppSteps)
	}
}

func msOf(s observe.Summary) [3]float64 {
	return [3]float64{round(float64(s.P50)/1e6, 3), round(float64(s.P99)/1e6, 3), round(float64(s.Max)/1e6, 3)}
}

// observeReport prints what was seen and writes -json.
func observeReport(o *observeOptions, obs *observed, stdout io.Writer) error {
	res := &obs.Result
	r := ObserveReport{Window: res.Window, VblankSource: res.VblankSource, Changes: len(res.Changes),
		Polls: res.Watch.Polls, Realtime: res.Watch.Realtime, DisplayServer: obs.Server, RealtimeError: res.Watch.RealtimeErr, Torn: res.Watch.Torn,
		PollGapMs: [3]float64{round(float64(res.Watch.GapP50)/1e6, 3), round(float64(res.Watch.GapP99)/1e6, 3), round(float64(res.Watch.GapMax)/1e6, 3)}}
	if res.Period > 0 {
		r.VblankHz = round(1e9/float64(res.Period), 3)
	}
	r.Stalls, r.FloorMs = len(res.Watch.Stalls), msDur(2*res.Watch.GapP99)
	for _, s := range res.Watch.Stalls {
		r.StalledMs += float64(s.To-s.From) / 1e6
	}
	r.StalledMs = round(r.StalledMs, 3)
	if o.inputs > 0 {
		in, err := inputsReport(res, o.appReport)
		if err != nil {
			return err
		}
		r.Inputs = in
		defer printInputs(stdout, in, r.periodMs())
	}
	fmt.Fprintf(stdout, "observer: window %v, %d marker changes in %d polls (gap p50 %.3f p99 %.3f max %.3f ms, real-time %v; %d stalls over %.3f ms, %.1f ms in all), vblanks %q at %.3f Hz\n",
		r.Window, r.Changes, r.Polls, r.PollGapMs[0], r.PollGapMs[1], r.PollGapMs[2], r.Realtime, r.Stalls, float64(observe.StallGap)/1e6, r.StalledMs, r.VblankSource, r.VblankHz)
	if o.frameLog != "" {
		log, err := observe.ReadFrameLog(o.frameLog)
		if err != nil {
			return err
		}
		// Two placements: on the display system's vblanks as the app had
		// them (what is compared is when each frame reached the
		// framebuffer), and on the observer's own fit of the
		// framebuffer's changes (independent of the app's definition).
		c := observe.Compare(*res, log)
		r.Frames = framesReport(c.Server)
		r.Frames.GridOffsetMs = [2]float64{msDur(c.GridOffsetP50), msDur(c.GridOffsetMax)}
		printFrames(stdout, "on the display system's vblanks, as the app had them", r.Frames)
		fmt.Fprintf(stdout, "  the observer's fit of those vblanks from the app's: p50 %.3f ms, max %.3f ms\n", r.Frames.GridOffsetMs[0], r.Frames.GridOffsetMs[1])
		r.RepaintFrames = framesReport(c.Repaints)
		r.RepaintFrames.NoVblanks = true
		if o.title != appWindowTitle {
			printFrames(stdout, "on the compositor's repaints, as they reached the framebuffer", r.RepaintFrames)
		}
		switch {
		case c.OffRate:
			r.OwnFit = &FitReport{Hz: round(1e9/float64(c.Fit.Period), 3), Arrivals: c.Fit.Arrivals, OffLine: c.Fit.OffLine, Emptiest: round(c.Fit.Emptiest, 4), Determined: true, OffRate: true}
			fmt.Fprintf(stdout, "no vblanks of its own at the app's rate: the marker changes fit %.3f Hz, a whole fraction of the %.3f Hz the app placed its frames at (the content changed on a multiple of the period), frames not placed on its own\n", r.OwnFit.Hz, 1000/r.Frames.PeriodMs)
		case c.Fit.Determined():
			r.OwnFit = &FitReport{Hz: round(1e9/float64(c.Fit.Period), 3), Arrivals: c.Fit.Arrivals, OffLine: c.Fit.OffLine, Emptiest: round(c.Fit.Emptiest, 4), Determined: true}
			r.OwnFrames = framesReport(c.Own)
			printFrames(stdout, fmt.Sprintf("on the observer's own vblanks (%.3f Hz fitted to %d changes, %d off the line)", r.OwnFit.Hz, c.Fit.Arrivals, c.Fit.OffLine), r.OwnFrames)
		case c.Fit.Known():
			r.OwnFit = &FitReport{Hz: round(1e9/float64(c.Fit.Period), 3), Arrivals: c.Fit.Arrivals, OffLine: c.Fit.OffLine, Emptiest: round(c.Fit.Emptiest, 4)}
			fmt.Fprintf(stdout, "no vblanks of its own: %d of the %d marker changes lie off any grid (the content does not change once a vblank), frames not placed on its own\n", c.Fit.OffLine, c.Fit.Arrivals)
		default:
			fmt.Fprintf(stdout, "no vblanks of its own: too few marker changes to fit\n")
		}
	}
	if o.jsonOut == "" {
		return nil
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(o.jsonOut, append(data, '\n'), 0o644)
}

// disagreements lists how one placement's figures disagree with the
// app's beyond issue 22's bounds, none when they agree: the displayed,
// dropped and repeated counts within 1 % of the frames compared (beyond
// those the observer could not place); no more than 1 % of them counted
// displayed by the app and never on the screen; the animation error's p99
// (on the pairs both count) within max(period/4, floorMs) of the app's,
// up to the ranks the frames the two place differently move it (skipped
// when broken: there the p99 sits on the held swaps' step); its max within
// one period (and the floor) both on those pairs and over every pair each
// side counts: the app neither misses the worst frame nor invents one.
// lateMs is how late the app says it may have read a frame's landing (its
// report's present_swap_wait_ms max: its render thread kept from a CPU
// after the swap): an app worst frame later than the observer's by up to
// that much more is the uncertainty it reported, not an invented frame.
func disagreements(f *FramesReport, floorMs, lateMs float64, broken bool) []string {
	return disagree(f, floorMs, lateMs, 0, broken, false)
}

// disagreementsBehind is disagreements for an app behind a compositor
// that draws into the observer's X server: shownLateMs is how long that
// server waited for a CPU at a stretch during the run. The compositor
// stamps a frame when it hands it to the server (or later); the frame
// reaches the framebuffer when the server runs, so an observer's worst
// frame later than the app's by up to that much more is the display's own
// lag, which neither the compositor nor the app can see; and the p99
// moves by up to that much either way (each late frame moves its two
// pairs).
func disagreementsBehind(f *FramesReport, floorMs, lateMs, shownLateMs float64) []string {
	return disagree(f, floorMs, lateMs, shownLateMs, false, false)
}

// ownDisagreements is disagreements on the observer's own grid. There the
// frames the two place a vblank apart beyond the grids' phase
// (other_vblank) and the frames the observer saw shown that the app
// counted replaced before its vblank (seen_app_dropped) are where the two
// definitions of when a frame is shown differ (the display system's
// vblank; the emptiest stretch of the content's cycle): each moves one
// repeat or one drop from one side to the other, and the counts' slack
// takes them in, and the animation error's max is held on the pairs both
// count (over every pair each side counts, a frame one counts shown and
// the other replaced makes other pairs). What stays held to the bounds:
// frames the app counted shown that were never in the framebuffer, and
// the animation error's p99 and max on the common pairs both ways.
func ownDisagreements(f *FramesReport, floorMs, lateMs float64, broken bool) []string {
	return disagree(f, floorMs, lateMs, 0, broken, true)
}

// swapWaitMs is the report's present_swap_wait_ms max (0 where absent).
func swapWaitMs(r *Report) float64 {
	if r.PresentSwapWaitMs == nil {
		return 0
	}
	return r.PresentSwapWaitMs.Max
}

func disagree(f *FramesReport, floorMs, lateMs, shownLateMs float64, broken, own bool) []string {
	var out []string
	span := float64(f.LastID-f.FirstID+1) - float64(f.Unseen)
	if float64(f.Unmatched) > 0.01*span {
		out = append(out, fmt.Sprintf("%d marker changes no frame of the app's log explains", f.Unmatched))
	}
	slack := 0.01*span + float64(f.Ambiguous)
	if own {
		slack += float64(f.OtherVblank + f.ObserverOnly)
	}
	for _, c := range []struct {
		name string
		v    [2]uint64
	}{{"displayed", f.Displayed}, {"dropped", f.Dropped}, {"repeated", f.Repeated}} {
		if c.name == "repeated" && !f.repeatsOnVblanks() {
			continue // no vblanks to count: see repeatsOnVblanks
		}
		if d := math.Abs(float64(c.v[0]) - float64(c.v[1])); d > slack {
			out = append(out, fmt.Sprintf("%s frames: observer %d, app %d: more than 1 %% of %.0f apart (and %d it could not place; own grid: %v, %d placed a vblank apart, %d seen shown that the app counted dropped)", c.name, c.v[0], c.v[1], span, f.Ambiguous, own, f.OtherVblank, f.ObserverOnly))
		}
	}
	if float64(f.AppOnly) > 0.01*span {
		out = append(out, fmt.Sprintf("%d frames the app counted displayed were never on the screen", f.AppOnly))
	}
	// Behind a compositor, each frame reaches the framebuffer as late as
	// the display server waited for a CPU after the compositor's stamp:
	// the two pairs it is in move by up to that much either way, and the
	// p99 with them.
	tol := max(f.PeriodMs/4, floorMs) + shownLateMs
	if o99 := f.AnimErrMs[1]; !broken && (o99 < f.AppP99BandMs[0]-tol || o99 > f.AppP99BandMs[1]+tol) {
		out = append(out, fmt.Sprintf("animation error p99: observer %.3f ms, the app %.3f ms (%.3f to %.3f with the frames placed differently; ± %.3f)", o99, f.AppAnimErrMs[1], f.AppP99BandMs[0], f.AppP99BandMs[1], tol))
	}
	maxes := []struct {
		what     string
		obs, app float64
	}{{"on the pairs both count", f.AnimErrMs[2], f.AppAnimErrMs[2]}, {"over every pair each counts", f.SeenAnimErr[2], f.AppSpanAnimErrMs[2]}}
	if own {
		// Which pairs each side has depends on its definition of shown
		// (a frame one counts shown and the other replaced makes other
		// pairs): the max is held on the pairs both count.
		maxes = maxes[:1]
	}
	for _, m := range maxes {
		d := m.obs - m.app
		bound := f.PeriodMs + floorMs
		wait := shownLateMs // the display server's lag
		if d < 0 {
			wait = lateMs // the app's own uncertainty of a landing
		}
		bound += wait
		if math.Abs(d) > bound {
			who := "the app misses a worse frame the observer saw"
			if d < 0 {
				who = "the app counts a frame later than the observer saw it"
			}
			out = append(out, fmt.Sprintf("animation error max %s: observer %.3f ms, the app %.3f ms: more than a period (%.3f ms), the floor (%.3f) and the measured waits for a CPU (%.3f) apart: %s", m.what, m.obs, m.app, f.PeriodMs, floorMs, wait, who))
		}
	}
	return out
}

// inputDisagreements lists how input to photon (r) disagrees with the
// app's input age beyond what the two measure differently, none when
// they agree. Each press waits for the app's next input poll (0 to a
// frame, periodMs where the app keeps up with the display), then takes
// the input age of the frame that polled it, so the outside figure's p50
// lies from the app's p50 to a period above it; the few tens of presses
// sample the frames' ages, which moves their p50 by up to half a period
// either way, and the observer's floor (twice its poll gap's p99) adds
// to both sides. Every press must be seen or missed with a reason, and
// nine in ten seen. broken (-breakinput: each frame draws the input the
// frame before polled) must read an input age of at least a frame
// interval, a period where the app keeps up (nine tenths of one: the
// age's histogram buckets lie up to 1 % under it): the frame more it
// waits. Where the app paces an emulated display over a
// slower real one (displayMs, the real display's period, longer than
// periodMs), the photon waits past the emulated vblank for the real
// display's next one as well, 0 to displayMs more, which the app's input
// age (on the emulated vblanks) cannot see.
func inputDisagreements(r *InputsReport, periodMs, displayMs, floorMs float64, broken bool) []string {
	switch {
	case r == nil || r.Sent == 0:
		why := "no -inputs"
		if r != nil {
			why = r.Error
		}
		return []string{"input to photon: no presses sent: " + why}
	case r.AppInputAgeMs == nil || r.ToPhotonMs == nil || periodMs <= 0:
		return []string{"input to photon: no input age from the app, or no vblanks from the display"}
	}
	var out []string
	if r.Seen+len(r.MissedWhy) != r.Sent || r.Missed != len(r.MissedWhy) {
		out = append(out, fmt.Sprintf("input to photon: %d presses, %d seen, %d missed with a reason", r.Sent, r.Seen, len(r.MissedWhy)))
	}
	if 10*r.Seen < 9*r.Sent {
		out = append(out, fmt.Sprintf("input to photon: %d of %d reactions not seen: %s", r.Sent-r.Seen, r.Sent, strings.Join(r.MissedWhy, "; ")))
	}
	if r.ToFramebufferMs[0] <= 0 || r.ToPhotonMs[0] <= 0 {
		out = append(out, fmt.Sprintf("input to photon: p50 %.3f ms to the framebuffer, %.3f ms to the photon: a reaction before its press", r.ToFramebufferMs[0], r.ToPhotonMs[0]))
	}
	app, outside := r.AppInputAgeMs[0], r.ToPhotonMs[0]
	slower := 0.0
	if displayMs > 1.01*periodMs {
		slower = displayMs
	}
	if lo, hi := app-periodMs/2-floorMs, app+1.5*periodMs+slower+floorMs; outside < lo || outside > hi {
		out = append(out, fmt.Sprintf("input to photon p50 %.3f ms, the app's input age p50 %.3f ms: outside [%.3f, %.3f] (its poll's wait, 0 to a period %.3f ms, ± half a period for the presses' sample and the floor %.3f)", outside, app, lo, hi, periodMs, floorMs))
	}
	if broken && app < 0.9*periodMs {
		out = append(out, fmt.Sprintf("input broken a frame deeper: the app's input age p50 %.3f ms, under a period (%.3f ms)", app, periodMs))
	}
	return out
}
