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
	"syscall"

	"github.com/tickframe/tickframe/simthread"
)

// Flags registers the flags every tickframe app wants on fs, bound to cfg:
// -duration, -screenshot, -refresh, -fullscreen, -width and -height, and
// -hz for the simulation's rate. Values are checked by Config.Validate.
func Flags(fs *flag.FlagSet, cfg *Config) {
	if cfg.Width == 0 && cfg.Height == 0 {
		cfg.Width, cfg.Height = 1280, 720
	}
	fs.DurationVar(&cfg.Duration, "duration", cfg.Duration, "run this long, then exit cleanly (0: until the window is closed)")
	fs.StringVar(&cfg.Screenshot, "screenshot", cfg.Screenshot, "save the last frame to `FILE`.png on exit")
	fs.Float64Var(&cfg.Refresh, "refresh", cfg.Refresh, "emulate a display of `HZ` in software (0: the display's own)")
	fs.BoolVar(&cfg.Fullscreen, "fullscreen", cfg.Fullscreen, "start fullscreen")
	fs.IntVar(&cfg.Width, "width", cfg.Width, "window width")
	fs.IntVar(&cfg.Height, "height", cfg.Height, "window height")
	cfg.Sim.Rate = cfg.Sim.WithDefaults().Rate
	fs.Func("hz", "simulation `rate` in ticks per second (default "+strconv.Itoa(cfg.Sim.Rate)+")", func(s string) error {
		hz, err := strconv.Atoi(s)
		if err != nil || hz < 1 || hz > simthread.MaxRate {
			return fmt.Errorf("want a whole number of ticks per second in [1, %d]", simthread.MaxRate)
		}
		cfg.Sim.Rate = hz
		return nil
	})
}

// Main is the whole of main for a simple app: it parses the command line
// with Flags, runs world with cfg until the window is closed, Esc is
// pressed, cfg.Duration has passed or SIGINT or SIGTERM arrives, and exits:
// 0 after a clean stop, 1 with a one-line error, 2 on a bad flag. It must
// be called from main's goroutine.
func Main(cfg Config, world simthread.World) {
	os.Exit(run(os.Args, os.Stderr, cfg, world))
}

// run is Main without the exit.
func run(args []string, stderr io.Writer, cfg Config, world simthread.World) int {
	name := filepath.Base(args[0])
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	Flags(fs, &cfg)
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stderr)
			fs.PrintDefaults()
			return 0
		}
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "%s: unexpected argument %q\n", name, fs.Arg(0))
		return 2
	}
	if err := cfg.Validate(); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	a, err := New(cfg, world)
	if err == nil {
		err = a.Run(ctx)
		a.Close()
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 1
	}
	return 0
}
