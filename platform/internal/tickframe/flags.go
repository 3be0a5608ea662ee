package tickframe

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"path/filepath"
	"strings"
	"time"

	"github.com/tickframe/tickframe/platform/app"
	"github.com/tickframe/tickframe/platform/internal/refworld"
	"github.com/tickframe/tickframe/simthread"
)

// options are the demo's own flags, beside every app's (app.Flags):
// registered through app.Config.AppFlags, so that a recording carries
// those given and -replay restores them.
type options struct {
	bodies       int
	stress       int
	stepCost     time.Duration
	gcPressureMB float64
	pprofAddr    string
	pprofRemote  bool
	model        string
	breakPresent bool // hold a swap back once a second, drop a frame in ten
	breakInput   bool // draw each frame the input the frame before polled: a frame more input latency

	bodiesGiven bool // -bodies given, or restored by -replay

	// -marker and -framelog, the template's, as presentConfig reads them.
	marker   bool
	frameLog string
}

// usageError is a bad flag or flag value of a tool: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// configErrorf is a bad demo flag: app.ExitCode's 2.
func configErrorf(format string, args ...any) error {
	return &app.ConfigError{Err: fmt.Errorf(format, args...)}
}

const usageHead = `usage: tickframe [flags]          run the demo
       tickframe verify [flags]   check timing on a virtual clock (tickframe verify -h)

`

// demoConfig is the demo's configuration and settings before its flags:
// the defaults its flags show where they differ from an app's (-seed 1,
// -maxsteps 8 at every rate, -brokerrt 10), and a snapshot sized for o's
// bodies.
func demoConfig(o *options) (app.Config, app.Settings) {
	cfg := app.Config{
		Title: appWindowTitle,
		Seed:  1,
		Input: inputFor,
	}
	set := app.Settings{Tools: app.Tools{Truth: refworld.RefPosition, TruthSpeed: refworld.RefSpeed}}
	set.Sim.Timing.MaxSteps = simthread.DefaultMaxSteps // at every rate
	set.Sim.InitSnapshot = func(s *simthread.Snapshot) {
		s.Bodies = make([]simthread.Body, 0, o.bodies) // publishing never allocates
	}
	set.Display.Sched.BrokerRT = 10
	return cfg, set
}

// register registers the demo's own flags on fs.
func (o *options) register(fs *flag.FlagSet) {
	fs.IntVar(&o.bodies, "bodies", 4096, "number of bodies in the reference world")
	fs.StringVar(&o.pprofAddr, "pprof", "", "serve net/http/pprof on `ADDR` (loopback only, e.g. localhost:6060)")
	fs.BoolVar(&o.pprofRemote, "pprof-remote", false, "allow -pprof on a non-loopback address")
	fs.IntVar(&o.stress, "stress", 0, "run `N` goroutines of busy work")
	fs.DurationVar(&o.stepCost, "stepcost", 0, "add this much busy work to every simulation step")
	fs.Float64Var(&o.gcPressureMB, "gcpressure", 0, "allocate this many `MB/s` of garbage on a side goroutine")
	fs.StringVar(&o.model, "model", "", "draw every body with the glTF model in `FILE`.glb or .gltf")
	fs.BoolVar(&o.breakPresent, "breakpresent", false, "break the present path on purpose: hold a swap until 20 ms past its display time once a second, drop a frame in ten (tests)")
	fs.BoolVar(&o.breakInput, "breakinput", false, "break the input path on purpose: each frame draws the input the frame before polled, one frame more from input to the screen (tests)")
}

// demoFlags is the demo's command line parsed: its options, and the
// configuration and settings every app's flags set.
type demoFlags struct {
	o   *options
	cfg app.Config
	set app.Settings
}

// parseFlags parses the demo's command line, every app's flags and its
// own (app.ParseFlags, which restores a recording's on -replay), into a
// configuration, settings and the demo's options, and checks the demo's
// own. -h writes the usage to out and returns flag.ErrHelp.
func parseFlags(args []string, out io.Writer) (*demoFlags, error) {
	d := &demoFlags{o: &options{}}
	o := d.o
	d.cfg, d.set = demoConfig(o)
	var fs *flag.FlagSet
	d.cfg.AppFlags = func(f *flag.FlagSet) { fs = f; o.register(f) }
	var help bytes.Buffer
	err := app.ParseFlags(args, &d.cfg, &d.set, &help)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(out, usageHead)
		help.WriteTo(out)
		return d, err
	}
	if err != nil {
		if !strings.HasPrefix(err.Error(), "app: ") { // the flag package's, or a stray argument
			err = configErrorf("%v (see tickframe -h)", err)
		}
		return d, err
	}
	fs.Visit(func(f *flag.Flag) { o.bodiesGiven = o.bodiesGiven || f.Name == "bodies" })
	o.marker, o.frameLog = d.set.Tools.Marker, d.set.Tools.FrameLog
	presentConfig(o, &d.set)
	return d, o.check()
}

// check checks the demo's own flags.
func (o *options) check() error {
	intIn := func(name string, v, lo, hi int) error {
		if v < lo || v > hi {
			return configErrorf("-%s %d: out of range [%d, %d]", name, v, lo, hi)
		}
		return nil
	}
	for _, err := range []error{
		intIn("bodies", o.bodies, 1, refworld.MaxBodies),
		intIn("stress", o.stress, 0, 1024),
	} {
		if err != nil {
			return err
		}
	}
	if o.stepCost < 0 || o.stepCost > time.Second {
		return configErrorf("-stepcost %v: out of range [0s, 1s]", o.stepCost)
	}
	if !(o.gcPressureMB >= 0 && o.gcPressureMB <= 100000) || math.IsInf(o.gcPressureMB, 0) {
		return configErrorf("-gcpressure %v: out of range [0, 100000] MB/s", o.gcPressureMB)
	}
	if ext := strings.ToLower(filepath.Ext(o.model)); o.model != "" && ext != ".glb" && ext != ".gltf" {
		return configErrorf("-model %s: want a .glb or .gltf file", o.model)
	}
	if o.pprofAddr != "" {
		return checkPprofAddr(o.pprofAddr, o.pprofRemote)
	}
	return nil
}

// checkPprofAddr refuses to serve profiles beyond this machine unless told.
func checkPprofAddr(addr string, remote bool) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return configErrorf("-pprof %s: want HOST:PORT, e.g. localhost:6060", addr)
	}
	if port == "" {
		return configErrorf("-pprof %s: missing port", addr)
	}
	if _, err := net.LookupPort("tcp", port); err != nil {
		return configErrorf("-pprof %s: port %q: want a number in [0, 65535] or a service name", addr, port)
	}
	if remote {
		return nil
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return configErrorf("-pprof %s: not a loopback address; profiles expose the process's memory, add -pprof-remote to serve them anyway", addr)
}

// validate checks the configuration and settings as the run will.
func (d *demoFlags) validate() error { return app.Validate(d.cfg, d.set) }
