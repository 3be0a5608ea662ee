package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/tickframe/tickframe/platform/internal/interp"
	"github.com/tickframe/tickframe/platform/internal/loop"
	"github.com/tickframe/tickframe/simthread"
)

// Flags registers the flags every tickframe app has on fs, bound to cfg
// and set: -duration, -screenshot, -refresh, -fullscreen, -width and
// -height, -hz for the simulation's rate, -motion and -latency; -vsync,
// -msaa, -delay, -spin, the catch-up's -maxsteps, -maxdelta and
// -overload, and the scheduling levers -headroom, -bgnice, -critnice,
// -critslice, -critrt and -brokerrt (displayFlags); -report and -plot for
// the timing report; -cpuprofile, -memprofile and -trace; -record and
// -replay, for a world that implements simthread.Hasher; -marker and
// -framelog, for an observer outside the app (tickframe observe); -seed,
// the world's seed; -focuspause; the scene's -clear colour, -ground and
// -groundsize; the camera's -near and -far; -hud. Their defaults are
// cfg's and set's. Main parses them (with the app's own, Config.AppFlags);
// a tool with a command line of its own registers them on its flag set
// and passes set to Run (WithSettings). Values are checked when the run
// starts.
func Flags(fs *flag.FlagSet, cfg *Config, set *Settings) {
	if cfg.Width == 0 && cfg.Height == 0 {
		cfg.Width, cfg.Height = 1280, 720
	}
	fs.DurationVar(&set.Duration, "duration", set.Duration, "run this long, then exit cleanly (0: until the window is closed)")
	fs.StringVar(&set.Tools.Screenshot, "screenshot", set.Tools.Screenshot, "save the last frame to `FILE`.png on exit")
	fs.Float64Var(&set.Display.Refresh, "refresh", set.Display.Refresh, "emulate a display of `HZ` in software (0: the display's own)")
	fs.BoolVar(&set.Display.Fullscreen, "fullscreen", set.Display.Fullscreen, "start fullscreen")
	fs.IntVar(&cfg.Width, "width", cfg.Width, "window width")
	fs.IntVar(&cfg.Height, "height", cfg.Height, "window height")
	cfg.Rate = simthread.Timing{Rate: cfg.Rate}.WithDefaults().Rate
	numFlag(fs, "hz", "simulation `rate` in ticks per second", cfg.Rate, 1, simthread.MaxRate, func(v int) { cfg.Rate = v })
	fs.Func("motion", "`mode` of motion between snapshots: lerp, hermite (with the velocities) or extrapolate (no render delay) (default "+set.Display.Motion.String()+")", func(s string) (err error) {
		set.Display.Motion, err = interp.ParseMotion(s)
		return err
	})
	fs.Func("latency", "`mode`: low (frames just in time, one in flight) or throughput (a vblank ahead) (default "+set.Display.Latency.String()+")", func(s string) (err error) {
		set.Display.Latency, err = loop.ParseLatency(s)
		return err
	})
	displayFlags(fs, set)
	t := &set.Tools
	fs.StringVar(&t.Report, "report", t.Report, "write the timing report to `FILE`.json on exit")
	fs.StringVar(&t.Plot, "plot", t.Plot, "plot frame intervals and animation error to `FILE`.png or .svg on exit")
	fs.StringVar(&t.CPUProfile, "cpuprofile", t.CPUProfile, "write a CPU profile to `FILE`")
	fs.StringVar(&t.MemProfile, "memprofile", t.MemProfile, "write a heap profile to `FILE` on exit")
	fs.StringVar(&t.Trace, "trace", t.Trace, "write a runtime/trace to `FILE`")
	fs.BoolVar(&t.Marker, "marker", t.Marker, "draw a per-frame colour marker down the window's left edge, for tickframe observe")
	fs.StringVar(&t.FrameLog, "framelog", t.FrameLog, "write every drawn frame's id, times and verdict to `FILE` on exit, for tickframe observe (FILE.csv: in PresentMon's CSV columns; FILE.mangohud.csv: MangoHud's CSV log, which observe does not read)")
	fs.StringVar(&t.Record, "record", t.Record, "record the run's inputs and hashes to `FILE` (a world with a Hash method)")
	fs.StringVar(&t.Replay, "replay", t.Replay, "replay a recording from `FILE` and check its hashes (with its -seed, -hz and the app's own flags)")
	settingsFlags(fs, cfg, set)
	fs.Var((*hudFlag)(&cfg.Look.HideHUD), "hud", "show the timing HUD (H toggles it)")
}

// hudFlag is -hud, the inverse of Config.Look.HideHUD.
type hudFlag bool

func (h *hudFlag) String() string {
	if h == nil {
		return "true"
	}
	return strconv.FormatBool(!bool(*h))
}
func (h *hudFlag) IsBoolFlag() bool { return true }
func (h *hudFlag) Set(s string) error {
	v, err := strconv.ParseBool(s)
	*h = hudFlag(!v)
	return err
}

// ParseFlags parses args (without the program's name) into cfg and set
// with Flags, and the app's own flags (Config.AppFlags), as Main and Args
// do: for a tool that checks its own flags before it runs (Run with
// WithSettings(set)). A bad flag,
// value or stray argument is a *ConfigError; -h writes the flags to usage
// and returns flag.ErrHelp.
//
// The app's own flags given are kept for -record, which writes them and
// cfg.Seed into the recording. With -replay, ParseFlags reads the
// recording and sets the seed, -hz and the app's own flags it was made
// with; one given on the command line with another value is a
// *ConfigError naming every such flag.
func ParseFlags(args []string, cfg *Config, set *Settings, usage io.Writer) error {
	fs := flag.NewFlagSet("", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	Flags(fs, cfg, set)
	template := flagNames(fs)
	if cfg.AppFlags != nil {
		cfg.AppFlags(fs)
	}
	own, unwrap := keepAppFlags(fs, template)
	err := fs.Parse(args)
	unwrap()
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(usage)
			fs.PrintDefaults()
			return err
		}
		return &ConfigError{err}
	}
	if fs.NArg() > 0 {
		return configErrorf("unexpected argument %q", fs.Arg(0))
	}
	cfg.flags = own
	if set.Tools.Record != "" && set.Tools.Replay != "" {
		return configErrorf("app: -record and -replay cannot be used together") // before the recording is read
	}
	if set.Tools.Replay != "" {
		return restoreReplay(cfg, set, fs, own)
	}
	return nil
}

// Main is the whole of main for an app: it parses the command line with
// Flags and the app's own flags (Config.AppFlags), runs world with cfg
// (Run) until the window is closed, Esc is pressed, -duration has passed
// or SIGINT, SIGTERM or SIGHUP arrives, and exits: 0 after a clean stop
// or -h, 2 with a one-line error on a bad flag or setting (before any
// window opens), 1 with a one-line error on a failure at run time.
// cfg.Finish may read the world after the run. opts are Run's; WorldFunc
// builds the world once the flags are parsed, world then nil. It must be
// called from main's goroutine.
func Main(cfg Config, world simthread.World, opts ...Option) {
	os.Exit(run(os.Args, os.Stderr, cfg, world, opts...))
}

// run is Main without the exit.
func run(args []string, stderr io.Writer, cfg Config, world simthread.World, opts ...Option) int {
	name := filepath.Base(args[0])
	// SIGHUP (the terminal closed) ends the run as SIGTERM does, with
	// every file written.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	err := Run(ctx, cfg, world, append(opts, Args(args[1:], stderr))...)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %s\n", name, oneLine(err.Error()))
	}
	return ExitCode(err)
}

// oneLine folds a message onto one line: joined errors, a driver's log.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
