package app

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tickframe/tickframe/platform/internal/loop"
	"github.com/tickframe/tickframe/platform/internal/record"
	"github.com/tickframe/tickframe/platform/internal/sched"
	"github.com/tickframe/tickframe/platform/internal/sim"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/simthread"
)

// settingsFlags registers the flags of the template's settings beside the
// window's: -seed, -focuspause, -clear, -ground, -groundsize, -near and
// -far.
func settingsFlags(fs *flag.FlagSet, cfg *Config, set *Settings) {
	fs.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "the world's random `seed` (recorded by -record, restored by -replay)")
	fs.Var((*notFlag)(&set.Display.KeepRunningUnfocused), "focuspause", "pause the simulation while the window is unfocused (iconifying always pauses it)")
	fs.Var((*notFlag)(&cfg.Look.Ground.Hidden), "ground", "draw the ground plane")
	fs.Func("clear", "the sky's colour, sRGB as hex `RRGGBB` (default "+hexRGB(cfg.Look.ClearColor)+")", func(s string) error {
		v, err := strconv.ParseUint(strings.TrimPrefix(s, "#"), 16, 32)
		if err != nil || len(strings.TrimPrefix(s, "#")) != 6 {
			return errors.New("want six hex digits RRGGBB, such as 87ceeb")
		}
		cfg.Look.ClearColor = simthread.RGB(uint8(v>>16), uint8(v>>8), uint8(v))
		return nil
	})
	size := cfg.Look.Ground.Size
	if size == 0 {
		size = loop.DefaultGroundSize
	}
	metresFlag(fs, "groundsize", "side of the ground's square about the origin, `metres`", size, func(v float32) { cfg.Look.Ground.Size = v })
	cam := renderer.DefaultCamera()
	if c := camera(cfg, set); c != nil {
		cam = *c
	}
	metresFlag(fs, "near", "the camera's near clip plane, `metres`", cam.Near, func(v float32) { set.Near = v })
	metresFlag(fs, "far", "the camera's far clip plane, `metres`", cam.Far, func(v float32) { set.Far = v })
}

// displayFlags registers the flags of how frames are made and kept on
// time (Config.Display) and of the simulation's catch-up
// (Settings.Sim.Timing): -vsync, -msaa, -delay, -spin, -maxsteps,
// -maxdelta, -overload, and the scheduling levers -headroom, -bgnice,
// -critnice, -critslice, -critrt and -brokerrt. A flag's 0 is off where
// its field's 0 is a default (-msaa, -spin, -headroom, -critnice,
// -critslice: the field's -1, or 1 for CriticalNice).
func displayFlags(fs *flag.FlagSet, set *Settings) {
	d, t := &set.Display, &set.Sim.Timing
	fs.Var((*notFlag)(&d.NoVSync), "vsync", "wait for the display on each swap (V toggles it)")
	numFlag(fs, "msaa", "multisample anti-aliasing `samples`, 0 off (unless given, off on a software rasterizer)",
		offOr(d.Samples, 4), 0, 16, func(v int) { d.Samples = zeroOff(v) })
	durFlag(fs, "delay", "fix the render delay to this `duration` (0: adapt it to the publish jitter)", d.Delay.String(), 0, 10*time.Second,
		func(v time.Duration) { d.Delay = v })
	durFlag(fs, "spin", "spin for this `duration` before each deadline instead of sleeping (0: sleep only)",
		time.Duration(offOr(int(d.Spin), int(sim.DefaultSpin))).String(), 0, 5*time.Millisecond,
		func(v time.Duration) { d.Spin = time.Duration(zeroOff(int(v))) })
	steps := strconv.Itoa(t.MaxSteps)
	if t.MaxSteps == 0 {
		steps = fmt.Sprintf("%d, or %v of steps above %d Hz", simthread.DefaultMaxSteps, simthread.DefaultCatchUp,
			simthread.DefaultMaxSteps*int(time.Second/simthread.DefaultCatchUp))
	}
	fs.Func("maxsteps", "most simulation `steps` per wake (default "+steps+")", func(s string) error {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 || v > simthread.MaxMaxSteps {
			return fmt.Errorf("want a whole number in [1, %d]", simthread.MaxMaxSteps)
		}
		t.MaxSteps = v
		return nil
	})
	delta := t.MaxDelta.String()
	if t.MaxDelta == 0 {
		delta = fmt.Sprintf("0: %v, or two steps below -hz %d", simthread.DefaultMaxDelta, int(2*time.Second/simthread.DefaultMaxDelta))
	}
	// At least a step at -hz, which may follow: Config.Validate checks it.
	durFlag(fs, "maxdelta", "the longest gap between wakes that is caught up, a `duration`", delta, 0, time.Minute,
		func(v time.Duration) { t.MaxDelta = v })
	fs.Func("overload", "debt beyond -maxsteps: `policy` discard or keep (default "+t.Overload.String()+")", func(s string) error {
		for _, o := range []simthread.Overload{simthread.Discard, simthread.Keep} {
			if s == o.String() {
				t.Overload = o
				return nil
			}
		}
		return errors.New("want discard or keep")
	})
	sc := &d.Sched
	numFlag(fs, "headroom", "keep `N` idle Ps above the goroutines that want to run, adjusting GOMAXPROCS (0 or -1: leave it alone)",
		offOr(sc.Headroom, 2), -1, 64, func(v int) { sc.Headroom = zeroOff(v) })
	numFlag(fs, "bgnice", "run the process's other busy threads at nice `N` (0: ten above the render thread's, 5 or 10, none when -critrt is granted; -1: leave them alone)",
		sc.BackgroundNice, -1, 19, func(v int) { sc.BackgroundNice = v })
	critNice := sc.CriticalNice
	switch {
	case critNice == 0:
		critNice = -10 // sched's default
	case critNice > 0:
		critNice = 0 // none asked
	}
	numFlag(fs, "critnice", "ask for nice `N` on the simulation thread and half of it on the render thread (needs CAP_SYS_NICE; 0: do not ask)",
		critNice, -20, 0, func(v int) {
			sc.CriticalNice = v
			if v == 0 {
				sc.CriticalNice = 1 // sched: none asked
			}
		})
	slice := time.Duration(offOr(int(sc.CriticalSlice), int(300*time.Microsecond))) // sched's default
	fs.Func("critslice", "ask Linux (6.12+) for a time slice this short (a `duration`) on the simulation and render threads, so that they preempt busy threads when they wake (0: do not ask) (default "+slice.String()+")", func(s string) error {
		v, err := time.ParseDuration(s)
		if err != nil || v != 0 && (v < sched.MinSlice || v > sched.MaxSlice) {
			return fmt.Errorf("want a duration in [%v, %v], or 0", sched.MinSlice, sched.MaxSlice)
		}
		sc.CriticalSlice = time.Duration(zeroOff(int(v)))
		return nil
	})
	numFlag(fs, "critrt", "ask for real-time priority `N` (SCHED_RR, 1-99) on the simulation thread and N-1 on the render thread (needs CAP_SYS_NICE or RLIMIT_RTPRIO; 0: none)",
		sc.CriticalRT, 0, 99, func(v int) { sc.CriticalRT = v })
	numFlag(fs, "brokerrt", "where the kernel denies real time, ask the desktop's broker (the xdg portal, then RealtimeKit) for SCHED_RR `N` on the simulation thread, bounded by RLIMIT_RTTIME (0: -critrt's; -1: none)",
		sc.BrokerRT, -1, 99, func(v int) { sc.BrokerRT = v })
}

// offOr is a field whose 0 means def and -1 off, as its flag shows it:
// def, 0 for off, or the field.
func offOr(field, def int) int {
	switch field {
	case 0:
		return def
	case -1:
		return 0
	}
	return field
}

// zeroOff is a flag's value as its field holds it: 0 (off) is -1.
func zeroOff(v int) int {
	if v == 0 {
		return -1
	}
	return v
}

// numFlag registers an integer flag that refuses values outside [lo, hi].
func numFlag(fs *flag.FlagSet, name, usage string, def, lo, hi int, set func(int)) {
	fs.Func(name, usage+" (default "+strconv.Itoa(def)+")", func(s string) error {
		v, err := strconv.Atoi(s)
		if err != nil || v < lo || v > hi {
			return fmt.Errorf("want a whole number in [%d, %d]", lo, hi)
		}
		set(v)
		return nil
	})
}

// durFlag registers a duration flag that refuses values outside [lo, hi].
func durFlag(fs *flag.FlagSet, name, usage, def string, lo, hi time.Duration, set func(time.Duration)) {
	fs.Func(name, usage+" (default "+def+")", func(s string) error {
		v, err := time.ParseDuration(s)
		if err != nil || v < lo || v > hi {
			return fmt.Errorf("want a duration in [%v, %v]", lo, hi)
		}
		set(v)
		return nil
	})
}

// metresFlag registers a flag of a positive, finite length.
func metresFlag(fs *flag.FlagSet, name, usage string, def float32, set func(float32)) {
	fs.Func(name, usage+" (default "+strconv.FormatFloat(float64(def), 'g', -1, 32)+")", func(s string) error {
		v, err := strconv.ParseFloat(s, 32)
		if err != nil || !(v > 0) || math.IsInf(v, 0) || v > math.MaxFloat32 {
			return errors.New("want a positive length in metres")
		}
		set(float32(v))
		return nil
	})
}

// hexRGB is an RGB colour (0: the renderer's default sky) as RRGGBB.
func hexRGB(c uint32) string {
	if c == 0 {
		c = simthread.RGB(14, 15, 19)
	}
	return fmt.Sprintf("%02x%02x%02x", c&0xff, c>>8&0xff, c>>16&0xff)
}

// notFlag is a boolean flag bound to the inverse of a field.
type notFlag bool

func (f *notFlag) String() string {
	if f == nil {
		return "true"
	}
	return strconv.FormatBool(!bool(*f))
}
func (f *notFlag) IsBoolFlag() bool { return true }
func (f *notFlag) Set(s string) error {
	v, err := strconv.ParseBool(s)
	*f = notFlag(!v)
	return err
}

// appFlags are the app's own flags (Config.AppFlags) as a command line
// gave them, kept by ParseFlags for the recording's header, and the
// recording read for -replay.
type appFlags struct {
	given  map[string]string // flag name → the value as given
	flags  []*flag.Flag      // every one of the app's own flags
	replay *record.Log       // the recording Tools.Replay names, once read
	path   string            // its path
}

// rawValue keeps the string a flag was set from.
type rawValue struct {
	flag.Value
	name  string
	given map[string]string
}

func (v *rawValue) Set(s string) error {
	if err := v.Value.Set(s); err != nil {
		return err
	}
	v.given[v.name] = s
	return nil
}

func (v *rawValue) IsBoolFlag() bool {
	b, ok := v.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// keepAppFlags wraps the flags of fs that template does not name so that
// the strings they are given are kept; unwrap restores them.
func keepAppFlags(fs *flag.FlagSet, template map[string]bool) (own *appFlags, unwrap func()) {
	own = &appFlags{given: map[string]string{}}
	fs.VisitAll(func(f *flag.Flag) {
		if !template[f.Name] {
			f.Value = &rawValue{Value: f.Value, name: f.Name, given: own.given}
			own.flags = append(own.flags, f)
		}
	})
	return own, func() {
		for _, f := range own.flags {
			f.Value = f.Value.(*rawValue).Value
		}
	}
}

// flagNames returns the names of fs's flags.
func flagNames(fs *flag.FlagSet) map[string]bool {
	names := map[string]bool{}
	fs.VisitAll(func(f *flag.Flag) { names[f.Name] = true })
	return names
}

// recordedParams is the recording's Params: the app's own flags.
type recordedParams struct {
	Flags map[string]string `json:"flags"`
}

// params encodes the app's own flags for the recording's header: those
// the command line gave, as given, and those it did not whose value now
// differs from the default (an app may settle a setting once its window
// has opened, as the demo does its size on a software rasterizer, before
// the first tick); nil where there are none.
func (cfg *Config) params(set *Settings) ([]byte, error) {
	if cfg.flags == nil {
		return nil, nil
	}
	m := map[string]string{}
	for _, f := range cfg.flags.flags {
		if v, ok := cfg.flags.given[f.Name]; ok {
			m[f.Name] = v
		} else if v := f.Value.String(); v != f.DefValue && v != "" {
			m[f.Name] = v
		}
	}
	if len(m) == 0 {
		return nil, nil
	}
	b, err := json.Marshal(recordedParams{Flags: m})
	if err == nil && len(b) > record.MaxParamsLen {
		err = fmt.Errorf("the app's flags take %d bytes, more than a recording holds (%d)", len(b), record.MaxParamsLen)
	}
	if err != nil {
		return nil, configErrorf("app: -record %s: %v", set.Tools.Record, err)
	}
	return b, nil
}

// replayLog reads the recording set.Tools.Replay names (once: ParseFlags
// may have read it) and checks that it is cfg's app's.
func replayLog(cfg *Config, set *Settings) (*record.Log, error) {
	if cfg.flags != nil && cfg.flags.replay != nil && cfg.flags.path == set.Tools.Replay {
		return cfg.flags.replay, nil
	}
	rec, err := record.ReadFile(set.Tools.Replay)
	if err != nil {
		return nil, configErrorf("app: -replay: %v", err)
	}
	if name := loop.FileStem(cfg.Title); rec.World != name {
		return nil, configErrorf("app: -replay %s: a recording of world %q, this app runs %q", set.Tools.Replay, rec.World, name)
	}
	if cfg.flags == nil {
		cfg.flags = &appFlags{}
	}
	cfg.flags.replay, cfg.flags.path = rec, set.Tools.Replay
	return rec, nil
}

// restoreReplay sets, for -replay, the seed, the rate and the app's own
// flags the recording was made with. A setting given on the command line
// that differs from the recording's is refused, all of them named in one
// line: the replay would not be the recorded run.
func restoreReplay(cfg *Config, set *Settings, fs *flag.FlagSet, own *appFlags) error {
	rec, err := replayLog(cfg, set)
	if err != nil {
		return err
	}
	var p recordedParams
	if len(rec.Params) > 0 {
		if err := json.Unmarshal(rec.Params, &p); err != nil {
			return configErrorf("app: -replay %s: the recorded settings cannot be read: %v", set.Tools.Replay, err)
		}
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var differ []string
	if given["seed"] && cfg.Seed != rec.Seed {
		differ = append(differ, fmt.Sprintf("-seed %d (recorded %d)", cfg.Seed, rec.Seed))
	}
	if given["hz"] && cfg.Rate != rec.Rate {
		differ = append(differ, fmt.Sprintf("-hz %d (recorded %d)", cfg.Rate, rec.Rate))
	}
	names := make([]string, 0, len(p.Flags)+len(own.given))
	for n := range p.Flags {
		names = append(names, n)
	}
	for n := range own.given {
		if _, ok := p.Flags[n]; !ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	for _, n := range names {
		f := fs.Lookup(n)
		recorded, inRec := p.Flags[n]
		if f == nil {
			return configErrorf("app: -replay %s: the recording sets the flag %q, which this app does not have", set.Tools.Replay, n)
		}
		v, isGiven := own.given[n]
		switch {
		case isGiven && !inRec && !sameValue(f, v, f.DefValue):
			differ = append(differ, fmt.Sprintf("-%s %s (recorded: the default %s)", n, v, f.DefValue))
		case isGiven && inRec && !sameValue(f, v, recorded):
			differ = append(differ, fmt.Sprintf("-%s %s (recorded %s)", n, v, recorded))
		case !isGiven && inRec:
			if err := fs.Set(n, recorded); err != nil {
				return configErrorf("app: -replay %s: the recorded -%s %q: %v", set.Tools.Replay, n, recorded, err)
			}
		}
	}
	if len(differ) > 0 {
		return configErrorf("app: -replay %s: %s differ from the recording: leave them out to replay it as recorded", set.Tools.Replay, strings.Join(differ, ", "))
	}
	cfg.Seed, cfg.Rate = rec.Seed, rec.Rate
	return nil
}

// sameValue reports whether a and b are the same value of flag f: the
// same string, or the same truth for a boolean flag.
func sameValue(f *flag.Flag, a, b string) bool {
	if a == b {
		return true
	}
	if bf, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && bf.IsBoolFlag() {
		x, errA := strconv.ParseBool(a)
		y, errB := strconv.ParseBool(b)
		return errA == nil && errB == nil && x == y
	}
	return false
}
