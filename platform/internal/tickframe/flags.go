package tickframe

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"path/filepath"
	"strings"
	"time"

	"github.com/tickframe/tickframe/platform"
	"github.com/tickframe/tickframe/platform/app"
	"github.com/tickframe/tickframe/platform/internal/outfile"
	"github.com/tickframe/tickframe/platform/internal/sched"
	"github.com/tickframe/tickframe/renderer/interp"
	"github.com/tickframe/tickframe/simthread"
	"github.com/tickframe/tickframe/simthread/refworld"
)

// options are the demo's validated flags.
type options struct {
	hz         int
	bodies     int
	seed       uint64
	refresh    float64
	vsync      bool
	duration   time.Duration
	screenshot string
	width      int
	height     int
	fullscreen bool
	msaa       int
	hud        bool
	delay      time.Duration
	maxSteps   int
	maxDelta   time.Duration
	overload   simthread.Overload
	spin       time.Duration
	focusPause bool

	report string
	plot   string

	cpuProfile   string
	memProfile   string
	tracePath    string
	pprofAddr    string
	pprofRemote  bool
	stress       int
	headroom     int
	latency      app.LatencyMode
	motion       interp.MotionMode
	bgNice       int
	critNice     int
	critSlice    time.Duration
	critRT       int
	brokerRT     int
	stepCost     time.Duration
	gcPressureMB float64

	record string
	replay string

	model string

	marker       bool            // draw the per-frame marker (tickframe observe)
	frameLog     string          // write every frame's verdict there
	breakPresent bool            // hold a swap back once a second, drop a frame in ten
	breakInput   bool            // start every frame a period ahead: a frame more input latency
	set          map[string]bool // flags given on the command line
}

// usageError is a bad flag or flag value: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

const usageHead = `usage: tickframe [flags]          run the demo
       tickframe verify [flags]   check timing on a virtual clock (tickframe verify -h)

`

// parseFlags parses and validates the demo's flags. -h returns flag.ErrHelp
// after writing the usage to out.
func parseFlags(args []string, out io.Writer) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet("tickframe", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var overload string
	fs.IntVar(&o.hz, "hz", simthread.DefaultRate, "simulation `rate` in ticks per second")
	fs.IntVar(&o.bodies, "bodies", 4096, "number of bodies in the reference world")
	fs.Uint64Var(&o.seed, "seed", 1, "world `seed`")
	fs.Float64Var(&o.refresh, "refresh", 0, "emulate a display of `HZ` in software (0: the monitor's rate, or the measured swap rate, or 60)")
	fs.BoolVar(&o.vsync, "vsync", true, "wait for the display on each swap")
	fs.DurationVar(&o.duration, "duration", 0, "run this long, then exit cleanly (0: until the window is closed)")
	fs.StringVar(&o.screenshot, "screenshot", "", "save the last frame to `FILE`.png on exit")
	fs.IntVar(&o.width, "width", 1280, "window width")
	fs.IntVar(&o.height, "height", 720, "window height")
	fs.BoolVar(&o.fullscreen, "fullscreen", false, "start fullscreen")
	fs.IntVar(&o.msaa, "msaa", 4, "multisample anti-aliasing `samples`, 0 off (unless given, off on a software rasterizer)")
	fs.BoolVar(&o.hud, "hud", true, "show the HUD")
	fs.DurationVar(&o.delay, "delay", 0, "fix the render delay (0: adapt it to the publish jitter)")
	fs.IntVar(&o.maxSteps, "maxsteps", simthread.DefaultMaxSteps, "most simulation steps per wake")
	fs.DurationVar(&o.maxDelta, "maxdelta", 0, "longest gap between wakes that is caught up (0: 250ms, or two steps below -hz 8)")
	fs.StringVar(&overload, "overload", "discard", "debt beyond -maxsteps: discard or keep")
	fs.DurationVar(&o.spin, "spin", simthread.DefaultSpin, "spin this long before each deadline instead of sleeping (0: sleep only)")
	fs.BoolVar(&o.focusPause, "focuspause", true, "pause the simulation when the window loses focus")
	fs.StringVar(&o.report, "report", "", "write a timing report to `FILE`.json on exit")
	fs.StringVar(&o.plot, "plot", "", "plot frame intervals and animation error to `FILE`.png or .svg on exit")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile to `FILE`")
	fs.StringVar(&o.memProfile, "memprofile", "", "write a heap profile to `FILE` on exit")
	fs.StringVar(&o.tracePath, "trace", "", "write a runtime/trace to `FILE`")
	fs.StringVar(&o.pprofAddr, "pprof", "", "serve net/http/pprof on `ADDR` (loopback only, e.g. localhost:6060)")
	fs.BoolVar(&o.pprofRemote, "pprof-remote", false, "allow -pprof on a non-loopback address")
	fs.IntVar(&o.stress, "stress", 0, "run `N` goroutines of busy work")
	latency := fs.String("latency", "low", "`low`: frames just in time, one in flight; throughput: a vblank ahead, the driver queueing")
	motion := fs.String("motion", "lerp", "`lerp`: interpolate; hermite: interpolate with the velocities; extrapolate: predict, no render delay")
	fs.IntVar(&o.headroom, "headroom", 2, "keep `N` idle Ps above the goroutines that want to run, adjusting GOMAXPROCS (-1: leave it alone)")
	fs.IntVar(&o.bgNice, "bgnice", 0, "run the process's other busy threads at nice `N` (0: ten above the render thread's, 5 or 10, none when -critrt is granted; -1: leave them alone)")
	fs.IntVar(&o.critNice, "critnice", -10, "ask for nice `N` on the simulation thread and half of it on the render thread (needs CAP_SYS_NICE; 0: do not ask)")
	fs.DurationVar(&o.critSlice, "critslice", 300*time.Microsecond, "ask Linux (6.12+) for this short a time slice on the simulation and render threads, so that they preempt busy threads when they wake (0: do not ask)")
	fs.IntVar(&o.critRT, "critrt", 0, "ask for real-time priority `N` (SCHED_RR, 1-99) on the simulation thread and N-1 on the render thread (needs CAP_SYS_NICE or RLIMIT_RTPRIO; 0: none)")
	fs.IntVar(&o.brokerRT, "brokerrt", 10, "where the kernel denies real time, ask the desktop's broker (the xdg portal, then RealtimeKit) for SCHED_RR `N` on the simulation thread, bounded by RLIMIT_RTTIME (0: -critrt's; -1: none)")
	fs.DurationVar(&o.stepCost, "stepcost", 0, "add this much busy work to every simulation step")
	fs.Float64Var(&o.gcPressureMB, "gcpressure", 0, "allocate this many `MB/s` of garbage on a side goroutine")
	fs.StringVar(&o.record, "record", "", "record the seed, configuration and inputs to `FILE`")
	fs.StringVar(&o.replay, "replay", "", "replay a recording from `FILE` and check its hashes")
	fs.StringVar(&o.model, "model", "", "draw every body with the glTF model in `FILE`.glb or .gltf")
	fs.BoolVar(&o.marker, "marker", false, "draw a per-frame colour marker down the window's left edge, for tickframe observe")
	fs.StringVar(&o.frameLog, "framelog", "", "write every drawn frame's id, times and verdict to `FILE` on exit, for tickframe observe (FILE.csv: in PresentMon's CSV columns; FILE.mangohud.csv: MangoHud's CSV log, which observe does not read)")
	fs.BoolVar(&o.breakPresent, "breakpresent", false, "break the present path on purpose: hold a swap back 20 ms once a second, drop a frame in ten (tests)")
	fs.BoolVar(&o.breakInput, "breakinput", false, "break the input path on purpose: start every frame a whole period ahead, one frame more from input to the screen (tests)")
	// Parse calls Usage on every error, -h included: print nothing there,
	// so that a bad flag gets its one line and -h the usage once.
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(out, usageHead)
			fs.SetOutput(out)
			fs.PrintDefaults()
			return nil, err
		}
		return nil, usagef("%v (see tickframe -h)", err)
	}
	if fs.NArg() > 0 {
		return nil, usagef("unexpected argument %q (see tickframe -h)", fs.Arg(0))
	}
	o.set = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { o.set[f.Name] = true })
	var err error
	if o.latency, err = app.ParseLatency(*latency); err != nil {
		return nil, usagef("-latency %q: want low or throughput", *latency)
	}
	if o.motion, err = interp.ParseMotion(*motion); err != nil {
		return nil, usagef("-motion %q: want lerp, hermite or extrapolate", *motion)
	}
	if o.overload, err = simthread.ParseOverload(overload); err != nil {
		return nil, usagef("-overload %q: want discard or keep", overload)
	}
	return o, o.validate()
}

func (o *options) validate() error {
	intIn := func(name string, v, lo, hi int) error {
		if v < lo || v > hi {
			return usagef("-%s %d: out of range [%d, %d]", name, v, lo, hi)
		}
		return nil
	}
	durIn := func(name string, v, lo, hi time.Duration) error {
		if v < lo || v > hi {
			return usagef("-%s %v: out of range [%v, %v]", name, v, lo, hi)
		}
		return nil
	}
	if err := intIn("hz", o.hz, 1, simthread.MaxRate); err != nil {
		return err // first: -maxdelta's range depends on it
	}
	for _, err := range []error{
		intIn("bodies", o.bodies, 1, refworld.MaxBodies),
		intIn("width", o.width, 1, 16384),
		intIn("height", o.height, 1, 16384),
		intIn("maxsteps", o.maxSteps, 1, simthread.MaxMaxSteps),
		intIn("msaa", o.msaa, 0, 16),
		intIn("stress", o.stress, 0, 1024),
		intIn("headroom", o.headroom, -1, 64),
		intIn("critnice", o.critNice, -20, 0),
		intIn("critrt", o.critRT, 0, 99),
		intIn("brokerrt", o.brokerRT, -1, 99),
		durIn("duration", o.duration, 0, 24*time.Hour),
		durIn("delay", o.delay, 0, 10*time.Second),
		maxDeltaIn(o.maxDelta, o.hz),
		durIn("spin", o.spin, 0, 5*time.Millisecond),
		durIn("stepcost", o.stepCost, 0, time.Second),
	} {
		if err != nil {
			return err
		}
	}
	if o.refresh != 0 && !(o.refresh >= 1 && o.refresh <= platform.MaxRefresh) { // also NaN
		return usagef("-refresh %v: out of range [1, %d] (or 0 for the display's own)", o.refresh, platform.MaxRefresh)
	}
	if o.critSlice != 0 && (o.critSlice < sched.MinSlice || o.critSlice > sched.MaxSlice) {
		return usagef("-critslice %v: out of range [%v, %v] (or 0 for off)", o.critSlice, sched.MinSlice, sched.MaxSlice)
	}
	if o.bgNice < -1 || o.bgNice > 19 {
		return usagef("-bgnice %d: out of range [1, 19] (or 0 for automatic, -1 for off)", o.bgNice)
	}
	if !(o.gcPressureMB >= 0 && o.gcPressureMB <= 100000) || math.IsInf(o.gcPressureMB, 0) {
		return usagef("-gcpressure %v: out of range [0, 100000] MB/s", o.gcPressureMB)
	}
	if o.record != "" && o.replay != "" {
		return usagef("-record and -replay cannot be used together")
	}
	if o.pprofAddr != "" {
		if err := checkPprofAddr(o.pprofAddr, o.pprofRemote); err != nil {
			return err
		}
	}
	if o.plot != "" {
		switch strings.ToLower(filepath.Ext(o.plot)) {
		case ".png", ".svg":
		default:
			return usagef("-plot %s: want a .png or .svg file", o.plot)
		}
	}
	if o.screenshot != "" && strings.ToLower(filepath.Ext(o.screenshot)) != ".png" {
		return usagef("-screenshot %s: want a .png file", o.screenshot)
	}
	if ext := strings.ToLower(filepath.Ext(o.model)); o.model != "" && ext != ".glb" && ext != ".gltf" {
		return usagef("-model %s: want a .glb or .gltf file", o.model)
	}
	// Every output path must be writable before the run starts, and no two
	// may be the same file.
	seen := map[string]string{}
	for _, f := range []struct{ flag, path string }{
		{"screenshot", o.screenshot}, {"report", o.report}, {"plot", o.plot},
		{"cpuprofile", o.cpuProfile}, {"memprofile", o.memProfile}, {"trace", o.tracePath},
		{"record", o.record}, {"framelog", o.frameLog},
	} {
		if f.path == "" {
			continue
		}
		abs, _ := filepath.Abs(f.path)
		if other, dup := seen[abs]; dup {
			return usagef("-%s and -%s both write %s", other, f.flag, f.path)
		}
		seen[abs] = f.flag
		if err := outfile.CheckWritable(f.path); err != nil {
			return usagef("-%s %s: %v", f.flag, f.path, err)
		}
	}
	if o.replay != "" {
		if abs, _ := filepath.Abs(o.replay); seen[abs] != "" {
			return usagef("-replay %s is also an output (-%s)", o.replay, seen[abs])
		}
	}
	return nil
}

// maxDeltaIn checks -maxdelta against the rate: 0 (the default, which
// follows the rate) or one step to a minute.
func maxDeltaIn(d time.Duration, hz int) error {
	if step := time.Second / time.Duration(hz); d != 0 && (d < step || d > time.Minute) {
		return usagef("-maxdelta %v: out of range [%v, %v] at -hz %d (or 0 for the default)", d, step, time.Minute, hz)
	}
	return nil
}

// checkPprofAddr refuses to serve profiles beyond this machine unless told.
func checkPprofAddr(addr string, remote bool) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return usagef("-pprof %s: want HOST:PORT, e.g. localhost:6060", addr)
	}
	if port == "" {
		return usagef("-pprof %s: missing port", addr)
	}
	if _, err := net.LookupPort("tcp", port); err != nil {
		return usagef("-pprof %s: port %q: want a number in [0, 65535] or a service name", addr, port)
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
	return usagef("-pprof %s: not a loopback address; profiles expose the process's memory, add -pprof-remote to serve them anyway", addr)
}
