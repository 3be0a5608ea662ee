// Package loop is tickframe's runtime: a World stepped at a fixed rate on
// the simulation goroutine, drawn interpolated at the display's rate on
// the main thread. An App opens the window and the renderer, builds the
// pipeline (world → simulation → back slot → planner → plan), and its Run
// makes each frame in five steps (frame.go): pace, input, plan, draw and
// swap, end. Pacing (pacing.go), input (input.go, camera.go), the threads'
// priorities (schedule.go) and screenshots (shot.go) are its parts.
//
// Nothing here measures the run: the instruments (package instrument: the
// report, the HUD's figures, the present verdicts, the frame log, the
// marker; the tests' faults) are Hooks given to New, which attach at the
// loop's seams and read the run from the View it hands them. Package
// app's Main wires them from the flags; an app that wants none runs a
// loop.App of its own, on the main thread:
//
//	a, err := loop.New(loop.Config{Title: "cubes"}, world)
//	if err != nil {
//		return err
//	}
//	defer a.Close()
//	return a.Run(ctx) // until the window closes, Esc or ctx
//
// New, Run and Close must be called on the main thread (package
// platform/internal/window, which loop imports, locks the main goroutine
// to it), where GLFW and OpenGL must run.
package loop

import (
	"context"
	"errors"
	"os"
	"runtime/pprof"
	"time"

	"github.com/tickframe/tickframe/platform/internal/interp"
	"github.com/tickframe/tickframe/platform/internal/present"
	"github.com/tickframe/tickframe/platform/internal/sched"
	"github.com/tickframe/tickframe/platform/internal/sim"
	"github.com/tickframe/tickframe/platform/internal/window"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/simthread"
)

// App is a running tickframe application: a frame loop over the parts
// that each keep one concern. Its methods must be called on the main
// thread.
type App struct {
	cfg      Config
	clock    *sim.RealClock
	pipe     *interp.Pipeline // world → simulation → planner
	win      *window.Window
	rend     *renderer.Renderer
	ctl      control          // what the input asked for, and the camera (input.go)
	pacing   pacing           // when frames are displayed (pacing.go)
	src      *present.Tracker // the display system's word on the frames (nil: none)
	srcWhy   string           // why it says nothing, if so
	shots    screenshots      // (shot.go)
	sched    scheduling       // thread priorities and the governor (schedule.go)
	hooks    []Hook           // at the loop's seams (hook.go)
	view     View             // what Started hands them
	notice   string           // why the simulation is paused, on screen (look.go)
	start    time.Duration    // when Run started its first frame
	plan     renderer.Plan    // the last frame's
	frame    Frame
	swapped  bool          // a swap has returned
	lastSwap time.Duration // when the last one did
}

// New opens the window, creates the renderer and the simulation for world,
// with hooks at the loop's seams in that order (each asked first what it
// needs built: Hook.Open). The world belongs to the simulation from now
// on. New must be called on the main thread.
func New(cfg Config, world simthread.World, hooks ...Hook) (*App, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	spin := cfg.Display.Spin
	switch {
	case spin == 0:
		spin = sim.DefaultSpin
	case spin < 0:
		spin = 0
	}
	a := &App{cfg: cfg, clock: sim.NewRealClock(spin), ctl: control{cam: renderer.DefaultCamera()},
		shots: newScreenshots(cfg.Title, cfg.ScreenshotDir, os.Stderr), hooks: hooks}
	if cfg.Camera != nil {
		a.ctl.cam = *cfg.Camera
	}
	a.sched.renderCritical(cfg.Display.Sched)
	pc, ro := cfg.Pipeline(), renderer.Options{Samples: cfg.Display.Samples, Now: a.clock.Now,
		ClearColor: cfg.Look.ClearColor, HideGround: cfg.Look.Ground.Hidden}
	for _, h := range hooks {
		h.Open(&pc, &ro)
	}
	pipe, err := newPipeline(pc, world, a.clock)
	if err != nil {
		a.Close()
		return nil, err
	}
	a.pipe = pipe
	before := sched.Threads()
	if err := a.open(ro); err != nil {
		a.Close()
		return nil, err
	}
	a.sched.raiseDrivers(before)
	return a, nil
}

// open opens the window and the renderer (with ro), registers the scene
// and picks the pacing.
func (a *App) open(ro renderer.Options) error {
	cfg := &a.cfg
	var err error
	a.win, err = window.Open(window.Config{
		Title: cfg.Title, Width: cfg.Width, Height: cfg.Height,
		Fullscreen: cfg.Display.Fullscreen, NoVSync: cfg.Display.NoVSync,
	})
	if err != nil {
		return err
	}
	a.rend, err = renderer.New(a.pipe.Planner().Depth(), ro)
	if err != nil {
		return err
	}
	if err := a.applyLook(); err != nil {
		return err
	}
	if cfg.Scene != nil {
		if err := cfg.Scene(a.rend); err != nil {
			return err
		}
	}
	if cfg.Mouse.CaptureCursor {
		a.win.CaptureCursor(true)
	}
	hud := a.rend.HUD()
	hud.Visible = !cfg.Look.HideHUD
	hud.Scale = max(1, int(a.win.ContentScale()+0.5))
	a.openPresent()
	return a.pacing.choose(a.win, a.clock, cfg.Display.Refresh, cfg.Display.Latency)
}

// presentSettle is how long New waits for the display's first
// presentVblanks vblanks, so that the pacing starts on the measured rate:
// eight reports scattered over a millisecond (Xvfb's) put it within 2 %.
const (
	presentSettle  = 250 * time.Millisecond
	presentVblanks = 8
)

// openPresent starts following what the display system says of the
// frames (package present): its vblanks pace the frames, and whether it
// shows the window pauses the simulation. Where it says nothing, the
// reason is kept (View.PresentWhy).
func (a *App) openPresent() {
	src, err := present.Open(present.Options{Now: a.clock.Now})
	a.src = src
	if err != nil {
		a.srcWhy = err.Error()
	}
	g := src.Grid()
	for start := time.Now(); src.Measured() && g.Count() < presentVblanks && time.Since(start) < presentSettle; {
		time.Sleep(time.Millisecond)
	}
	a.pacing.grid = g
}

// Sim returns the simulation. Its telemetry may be read at any time; its
// input log and checkpoints once Run has returned.
func (a *App) Sim() *sim.Sim { return a.pipe.Sim() }

// Pipeline returns the chain from the world to the plans.
func (a *App) Pipeline() *interp.Pipeline { return a.pipe }

// Renderer returns the renderer.
func (a *App) Renderer() *renderer.Renderer { return a.rend }

// Paused reports whether the simulation is paused (by the user, or for
// a window hidden, iconified or unfocused).
func (a *App) Paused() bool { return a.ctl.simPaused }

// Quit ends Run after the frame under way.
func (a *App) Quit() { a.ctl.quit = true }

// Camera returns the camera the last frame was drawn from.
func (a *App) Camera() renderer.Camera { return a.ctl.cam }

// Run starts the simulation and draws frames until the window is closed,
// Esc is pressed, ctx is done or Config.Duration has passed; then it stops
// the simulation and waits for it. It returns the first error of the
// world or of GL. The hooks' Stopped is called on every path out.
//
// Each frame is five steps (frame.go): wait for its display time (pace),
// apply the window's events (input), plan what to show (plan), draw and
// swap (draw), and the hooks' end of the frame.
func (a *App) Run(ctx context.Context) (err error) {
	// Render-thread work carries loop=render in CPU profiles.
	rctx := pprof.WithLabels(ctx, pprof.Labels("loop", "render"))
	pprof.SetGoroutineLabels(rctx)
	defer pprof.SetGoroutineLabels(ctx)
	simCtx, stopSim := context.WithCancel(ctx)
	a.sched.startSim(simCtx, a.pipe.Sim())
	stopped := false
	defer func() {
		// A panic in the frame loop (GLFW turns some driver errors into
		// panics) still stops the simulation and tells the hooks, so
		// that the figures read after it are in range.
		if !stopped {
			err = errors.Join(err, a.stop(stopSim))
		}
		a.sched.stopGovernor()
		err = errors.Join(err, a.shots.wait())
	}()
	a.start = a.clock.Now()
	a.pipe.Begin(a.start)
	a.fillView()
	for _, h := range a.hooks {
		h.Started(&a.view)
	}
	var drawErr error
	for a.running(ctx) {
		f, ok := a.pace(ctx, rctx)
		if !ok {
			break // ctx done while waiting for the vblank
		}
		a.input(f)
		a.planFrame(f)
		if drawErr = a.draw(f); drawErr != nil {
			break
		}
		for _, h := range a.hooks {
			h.Ended(f)
		}
		f.end()
	}
	stopped = true
	return errors.Join(drawErr, a.stop(stopSim))
}

// stop stops the simulation, waits for it and tells the hooks, with the
// time it was stopped at. It returns the simulation's error.
func (a *App) stop(stopSim func()) error {
	end := a.clock.Now()
	stopSim()
	err := a.pipe.Sim().Wait()
	for _, h := range a.hooks {
		h.Stopped(end)
	}
	return err
}

// SaveFrame draws the last frame's plan once more and saves it to path as
// a PNG: the last frame of a run, once Run has returned.
func (a *App) SaveFrame(path string) error {
	if _, err := a.drawPlan(context.Background(), &a.plan); err != nil {
		return err
	}
	a.shots.save(a.win, path, false)
	return a.shots.wait()
}

// fillView fills the view of the run the hooks are handed (Started):
// once, as the simulation has started.
func (a *App) fillView() {
	a.view = View{Config: a.cfg, Clock: a.clock, Start: a.start, Sim: a.pipe.Sim(), Pipeline: a.pipe,
		Window: a.win, Renderer: a.rend, Present: a.src, PresentWhy: a.srcWhy,
		SimPriority: a.sched.sim, RenderPriority: a.sched.render, ScreenshotName: a.shots.name,
		Pacing: a.pacingNow, Paused: a.Paused, Sched: a.sched.report, SchedAllocs: a.sched.allocs}
}

// Close frees the renderer and closes the window. The App must not be used
// afterwards.
func (a *App) Close() {
	a.sched.close()
	if a.src != nil {
		_ = a.src.Close() // its thread only reads events
		a.src = nil
	}
	if a.rend != nil {
		a.rend.Delete()
		a.rend = nil
	}
	if a.win != nil {
		a.win.Close()
		a.win = nil
	}
}

// NewHeadless builds the part of an App that needs no window: the
// pipeline of world on clock (as the hooks ask: Hook.Open; they are not
// attached) and the input's handling, for benchmarks, tools and tests
// that plan frames by hand (Pipeline().Plan) and hand it events (Handle).
// Run, drawing and every method of the window's or the renderer's need
// an App from New.
func NewHeadless(cfg Config, world simthread.World, clock sim.Clock, hooks ...Hook) (*App, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	pc := cfg.Pipeline()
	for _, h := range hooks {
		h.Open(&pc, &renderer.Options{})
	}
	pipe, err := newPipeline(pc, world, clock)
	if err != nil {
		return nil, err
	}
	return &App{cfg: cfg, pipe: pipe, ctl: control{cam: renderer.DefaultCamera()}}, nil
}
