package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"

	"github.com/tickframe/tickframe/platform/internal/loop"
	"github.com/tickframe/tickframe/platform/internal/outfile"

	"github.com/tickframe/tickframe/simthread"
)

// An Option changes how Main and Run run: WorldFunc, WithSettings, Args,
// Bare.
type Option func(*options)

type options struct {
	newWorld func(Config) (simthread.World, error)
	set      *Settings
	args     []string // parsed when parse
	parse    bool
	usage    io.Writer
	bare     bool
}

// WorldFunc builds the world once the command line is parsed, in place of
// the world Main or Run is given (nil): cfg.Seed and the variables the
// app's own flags (Config.AppFlags) are bound to hold their final values,
// those of the recording on -replay. An error ends the run before any
// window opens; a *ConfigError (a bad combination of flags) exits 2, any
// other 1.
func WorldFunc(newWorld func(cfg Config) (simthread.World, error)) Option {
	return func(o *options) { o.newWorld = newWorld }
}

// WithSettings runs with the settings *s instead of the defaults: the
// flags Main (or Args) parses start from them and are parsed into *s,
// and *s holds the settings the run ran with once Run returns.
func WithSettings(s *Settings) Option { return func(o *options) { o.set = s } }

// Args has Run parse args (without the program's name) as Main parses the
// command line: every app's flags (Flags), -hud and the app's own
// (Config.AppFlags), a recording's restored on -replay. A bad flag or
// value is a *ConfigError; -h writes the flags to usage and Run returns
// flag.ErrHelp without running.
func Args(args []string, usage io.Writer) Option {
	return func(o *options) { o.args, o.parse, o.usage = args, true, usage }
}

// Bare runs the runtime without the instruments: no timing report, HUD
// figures, present verdicts, frame log, marker or plot, nothing measuring
// the run; the settings that need them (-report, -plot, -framelog,
// -marker, Tools.Truth, Tools.PresentFault) are a *ConfigError, and
// Finish is given a nil report.
func Bare() Option { return func(o *options) { o.bare = true } }

// Run runs world with cfg, as Main does without the flags and the exit
// (unless Args): it checks cfg and the settings (a bad value is a
// *ConfigError, before any window opens), reads the recording to replay,
// builds the world (WorldFunc), starts the profiles asked for, opens the
// app, runs it until the window is closed, Esc is pressed, the duration
// has passed, the replay has ended or ctx is done, then writes the
// recording or checks the replay, calls cfg.Finish and writes the report,
// the frame log, the plot and the heap profile asked for. Every file
// asked for is written on every path out once the window has opened; if
// it never opened, none is left. The world may be read again once Run
// returns. Run must be called on the main goroutine and never exits the
// process; ExitCode maps its error to an exit status.
func Run(ctx context.Context, cfg Config, world simthread.World, opts ...Option) (err error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	set := o.set
	if set == nil {
		set = new(Settings)
	}
	if o.parse {
		if err := ParseFlags(o.args, &cfg, set, o.usage); err != nil {
			return err
		}
	}
	if err := Validate(cfg, *set); err != nil {
		return err
	}
	if o.bare {
		if err := set.Tools.needInstruments(); err != nil {
			return err
		}
	}
	if o.newWorld != nil {
		if world, err = buildWorld(cfg, set, o.newWorld); err != nil {
			return err
		}
	}
	if world == nil {
		return configErrorf("app: no world to run")
	}
	rec, err := newRecorder(&cfg, set, world, os.Stdout)
	if err != nil {
		return err
	}
	if rec.empty() {
		return rec.checkEmpty() // nothing to step, no window
	}
	prof, err := startProfiles(set)
	if err != nil {
		return err
	}
	opened := false
	defer func() { err = firstErr(err, prof.stop(opened)) }()
	a, err := newApp(cfg, *set, world, o.bare)
	if err != nil {
		return err
	}
	opened = true
	defer a.close()
	runErr := a.runRecovered(ctx)
	errs := []error{runErr}
	r := a.report()
	if rec != nil {
		errs = append(errs, rec.finish(a.simulation(), set.Tools.Record, runErr))
	}
	if cfg.Finish != nil {
		errs = append(errs, cfg.Finish(a, r, runErr))
	}
	t := &set.Tools
	if t.Report != "" {
		errs = append(errs, r.WriteFile(t.Report))
	}
	if t.FrameLog != "" {
		errs = append(errs, a.inst.FrameLog().WriteFile(t.FrameLog))
	}
	if t.Plot != "" {
		errs = append(errs, a.inst.WritePlot(t.Plot, r))
	}
	if t.MemProfile != "" {
		errs = append(errs, writeHeapProfile(t.MemProfile))
	}
	if t.Screenshot != "" && runErr == nil {
		fmt.Fprintf(os.Stderr, "%s: last frame saved to %s\n", loop.FileStem(cfg.Title), t.Screenshot)
	}
	return errors.Join(errs...)
}

// buildWorld restores the seed of the recording set.Tools.Replay names
// and builds the world with newWorld.
func buildWorld(cfg Config, set *Settings, newWorld func(Config) (simthread.World, error)) (simthread.World, error) {
	if set.Tools.Replay != "" {
		rec, err := replayLog(&cfg, set)
		if err != nil {
			return nil, err
		}
		cfg.Seed = rec.Seed
	}
	world, err := newWorld(cfg)
	if err != nil {
		return nil, err
	}
	if world == nil {
		return nil, errors.New("app: the world constructor returned no world")
	}
	return world, nil
}

// needInstruments refuses, for a run without the instruments (Bare), the
// tools that need them.
func (t *Tools) needInstruments() error {
	for _, f := range [...]struct {
		name string
		set  bool
	}{
		{"-report", t.Report != ""}, {"-plot", t.Plot != ""}, {"-framelog", t.FrameLog != ""}, {"-marker", t.Marker},
		{"Tools.Truth", t.Truth != nil}, {"Tools.PresentFault", t.PresentFault != (PresentFault{})},
	} {
		if f.set {
			return configErrorf("app: %s needs the instruments, which this app runs without (Bare)", f.name)
		}
	}
	return nil
}

// runRecovered is a.run with a panic (GLFW turns some driver errors into
// panics) turned into an error, so that the files are still written.
func (a *App) runRecovered(ctx context.Context) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("internal error: %v", p)
		}
	}()
	return a.run(ctx)
}

func firstErr(err, other error) error {
	if err != nil {
		return err
	}
	return other
}

// profiles are the CPU profile and the trace of a run, each written to a
// temporary file renamed into place when it stops (outfile.Create), so
// that a run killed on the way leaves no partial profile under its name
// and never removes one that was there.
type profiles struct {
	stops []func(keep bool) error // in the order started
}

// startProfiles starts the CPU profile and the trace set asks for.
func startProfiles(set *Settings) (*profiles, error) {
	p := &profiles{}
	for _, f := range [...]struct {
		path  string
		start func(io.Writer) error
		stop  func()
	}{
		{set.Tools.CPUProfile, pprof.StartCPUProfile, pprof.StopCPUProfile},
		{set.Tools.Trace, trace.Start, trace.Stop},
	} {
		if f.path == "" {
			continue
		}
		file, err := outfile.Create(f.path)
		if err != nil {
			p.stop(false)
			return nil, err
		}
		if err := f.start(file); err != nil {
			file.Abort()
			p.stop(false)
			return nil, fmt.Errorf("app: %s: %v", f.path, err)
		}
		stop := f.stop
		p.stops = append(p.stops, func(keep bool) error {
			stop()
			if !keep {
				file.Abort()
				return nil
			}
			return file.Commit()
		})
	}
	return p, nil
}

// stop stops the profiles, last started first, and puts their files in
// place, or leaves the paths as they were unless the app opened (nothing
// ran).
func (p *profiles) stop(opened bool) error {
	var err error
	for i := len(p.stops) - 1; i >= 0; i-- {
		err = firstErr(err, p.stops[i](opened))
	}
	p.stops = nil
	return err
}

func writeHeapProfile(path string) error {
	runtime.GC() // up-to-date statistics
	return outfile.Write(path, func(w io.Writer) error {
		if err := pprof.WriteHeapProfile(w); err != nil {
			return fmt.Errorf("app: heap profile: %v", err)
		}
		return nil
	})
}
