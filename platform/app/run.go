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

	"github.com/tickframe/tickframe/platform/internal/outfile"

	"github.com/tickframe/tickframe/simthread"
)

// Run runs world with cfg, as Main does without the flags and the exit:
// it validates cfg (a bad value is a *ConfigError, before any window
// opens), reads the recording to replay, starts the profiles asked for,
// opens the app, runs it until the window is closed, Esc is pressed,
// cfg.Tools.Duration has passed, the replay has ended or ctx is done, then
// writes the recording or checks the replay, calls cfg.Finish and writes
// the report, the frame log, the plot and the heap profile asked for. Every file asked for is written on every path
// out once the window has opened; if it never opened, none is left. The
// world may be read again once Run returns. Run must be called on the
// main goroutine and never exits the process; ExitCode maps its error to
// an exit status.
func Run(ctx context.Context, cfg Config, world simthread.World) (err error) {
	if err := cfg.Validate(); err != nil {
		return err
	}
	rec, err := newRecorder(&cfg, world, os.Stdout)
	if err != nil {
		return err
	}
	if rec.empty() {
		return rec.checkEmpty() // nothing to step, no window
	}
	prof, err := startProfiles(&cfg)
	if err != nil {
		return err
	}
	opened := false
	defer func() { err = firstErr(err, prof.stop(opened)) }()
	a, err := New(cfg, world)
	if err != nil {
		return err
	}
	opened = true
	defer a.Close()
	runErr := a.runRecovered(ctx)
	errs := []error{runErr}
	r := a.Report()
	if rec != nil {
		errs = append(errs, rec.finish(a.Sim(), cfg.Tools.Record, runErr))
	}
	if cfg.Finish != nil {
		errs = append(errs, cfg.Finish(a, r, runErr))
	}
	if cfg.Tools.Report != "" {
		errs = append(errs, r.WriteFile(cfg.Tools.Report))
	}
	if cfg.Tools.FrameLog != "" {
		errs = append(errs, a.inst.FrameLog().WriteFile(cfg.Tools.FrameLog))
	}
	if cfg.Tools.Plot != "" {
		errs = append(errs, a.WritePlot(cfg.Tools.Plot, r))
	}
	if cfg.Tools.MemProfile != "" {
		errs = append(errs, writeHeapProfile(cfg.Tools.MemProfile))
	}
	if cfg.Tools.Screenshot != "" && runErr == nil {
		fmt.Fprintf(os.Stderr, "%s: last frame saved to %s\n", a.ScreenshotName(), cfg.Tools.Screenshot)
	}
	return errors.Join(errs...)
}

// runRecovered is a.Run with a panic (GLFW turns some driver errors into
// panics) turned into an error, so that the files are still written.
func (a *App) runRecovered(ctx context.Context) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("internal error: %v", p)
		}
	}()
	return a.Run(ctx)
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

// startProfiles starts the CPU profile and the trace cfg asks for.
func startProfiles(cfg *Config) (*profiles, error) {
	p := &profiles{}
	for _, f := range [...]struct {
		path  string
		start func(io.Writer) error
		stop  func()
	}{
		{cfg.Tools.CPUProfile, pprof.StartCPUProfile, pprof.StopCPUProfile},
		{cfg.Tools.Trace, trace.Start, trace.Stop},
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
