// Package app runs a tickframe application: a World of yours stepped at a
// fixed rate on the simulation goroutine, drawn interpolated at the
// display's rate on the main thread, with the window, the input, the HUD,
// frame pacing and the measurements wired together.
//
//	func main() {
//		app.Main(app.Config{Title: "cubes"}, newWorld())
//	}
//
// Main parses the flags every app has (Flags), runs (Run) and exits 0, 1
// on a failure at run time, or 2 on a bad flag or setting, which Run
// finds before any window opens. Run is the same without the flags and
// the exit; it writes the timing report, the frame log, the plot, the
// profiles and the recording asked for on every path out, and the world may be read again
// once it returns (or in Config.Finish). New, App.Run and Close are the
// steps Run takes. Main, Run and New must be called on the main goroutine:
// package platform locks it to the main thread, where GLFW and OpenGL
// must run.
//
// Input: the app reserves a few keys: Esc quits, Space pauses, F toggles
// fullscreen, V vsync, H the HUD, F12 saves a screenshot. Config.Keys
// remaps them or turns them off; a reserved key's press, repeats and
// release all stay in the app. Every other key event (press, repeat and
// release), every mouse button, cursor and scroll event goes to
// Config.Input, which may turn it into a simulation input: the only way
// input reaches the world. A left drag also orbits the camera and the
// wheel zooms it, unless Config.Mouse.NoMouseCamera. Events carry platform's
// own key and button types: apps never import GLFW. For mouse look, set
// Config.Mouse.CaptureCursor (and MouseLook); an app that holds its App (New)
// may also call a.Window().CaptureCursor at any time.
package app

import (
	"context"
	"errors"
	"flag"
	"math"
	"os"
	"runtime/pprof"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/tickframe/tickframe/platform"
	"github.com/tickframe/tickframe/platform/observe"
	"github.com/tickframe/tickframe/platform/present"
	"github.com/tickframe/tickframe/platform/sched"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/renderer/interp"
	"github.com/tickframe/tickframe/simthread"
)

// Config configures an App: what a game sets. Its zero value runs a
// 1280×720 window with vsync at the display's refresh and the simulation
// at 120 Hz. How frames are made (Display), the instruments and the
// files a run leaves (Tools) are groups of their own, which the flags
// every app has set (Flags): most apps leave them alone.
type Config struct {
	// Title and the window's size (0: 1280×720). The title also names
	// the app's screenshots and recordings.
	Title         string
	Width, Height int
	// Sim configures the simulation goroutine: its rate, its catch-up
	// and its first snapshot.
	Sim simthread.Config
	// Seed is the world's random seed: -seed sets it, -record writes it
	// into the recording and -replay restores it, with the app's own
	// flags (AppFlags), before MainFunc's constructor builds the world.
	Seed uint64
	// Scene, if set, is called once by New on the main thread right after
	// the renderer is created, before any frame and before the simulation
	// starts (the world has been neither stepped nor snapshotted, and the
	// renderer can say what draws: r.Software()): register meshes and
	// materials there (renderer.AddMesh, AddMaterial, AddModel), or keep
	// r.Registry() to register more at any time from any goroutine, the
	// world's Step included. Each returns a handle (simthread.MeshID,
	// MaterialID) that bodies name as it is; never count on the order.
	// An error closes the window and New returns it.
	Scene func(*renderer.Renderer) error
	// Camera, if set, is where the orbit camera starts; nil frames the
	// reference world (renderer.DefaultCamera: near 0.1 m, far 400 m).
	// Its Near and Far clip every frame, the world's own camera
	// (simthread.Snapshot.Camera) included; -near and -far set them.
	Camera *renderer.Camera
	// Look is the sky, the ground and the HUD at the start.
	Look Look
	// Input turns a key, button, cursor or scroll event into an input for
	// the world, applied at the start of the next tick. It sees every such
	// event but the reserved keys' (Keys): presses, repeats and releases
	// alike. It runs on the main thread and must not block. An input the
	// full queue refuses is counted (App.InputsDropped).
	Input func(platform.Event) (simthread.Input, bool)
	// Keys remaps or turns off the keys the app reserves; its zero value
	// is DefaultKeys().
	Keys KeyMap
	// Mouse is what the mouse does besides reaching Input: the orbit
	// camera's drag and zoom, a captured cursor, mouse look.
	Mouse Mouse
	// AppFlags, if set, registers the app's own flags beside the
	// template's when ParseFlags (and so Main) parses the command line;
	// they are parsed, checked for stray arguments and listed by -h with
	// the others, a bad value exiting 2 like theirs. Bind them to
	// variables the world reads once Run has started it (the parse comes
	// first).
	AppFlags func(fs *flag.FlagSet)
	// Finish, if set, is called by the package-level Run once the
	// simulation has stopped, with the report it is about to write and
	// the error the run ended with (nil after a clean stop): the world
	// may be read again, the report given figures of the app's own
	// (Report.Extra), the app's own files written. Its error is joined to
	// Run's.
	Finish func(a *App, r *Report, runErr error) error
	// Display is how frames are made and paced: the flags set it.
	Display Display
	// Tools are the instruments and the files a run leaves (report,
	// plot, profiles, recording, screenshot, frame log), and the faults
	// tests inject: the flags set them.
	Tools Tools

	flags *appFlags // the app's own flags as ParseFlags found them (settings.go)
}

// Look is the scene's look at the start: -clear, -ground, -groundsize and
// -hud set it.
type Look struct {
	// ClearColor is the sky, the colour every frame starts from, as
	// simthread.RGB makes it; 0 means the default near-black
	// (renderer.SetClearColor).
	ClearColor uint32
	// Ground is the ground plane the app starts with; its zero value is
	// the default, shown. Config.Scene may change it further
	// (renderer.SetGround, SetGroundRect).
	Ground Ground
	// HideHUD starts with the HUD hidden.
	HideHUD bool
}

// Mouse is what the mouse does besides reaching Config.Input.
type Mouse struct {
	// CaptureCursor hides and locks the cursor from the start, with raw
	// mouse motion where the system has it (mouse look);
	// Window().CaptureCursor changes it later.
	CaptureCursor bool
	// NoMouseCamera leaves the mouse to the world: a left drag no longer
	// orbits the camera, nor the wheel zooms it. The events go to Input
	// either way.
	NoMouseCamera bool
	// MouseLook turns the drawn view by the newest mouse motion just
	// before each frame is drawn, on top of the camera the world publishes
	// (simthread.Snapshot.Camera, interpolated): the motion the world has
	// not simulated yet, measured against the sums it publishes in
	// Camera.Look (late latching; see camera.go). Input must then turn
	// cursor events into the world's look inputs, which the world sums.
	// Pair it with CaptureCursor and NoMouseCamera.
	MouseLook bool
}

// Display is how frames are made and paced. Its zero value is vsync at
// the display's rate, low latency, interpolated motion, an adaptive render
// delay and the scheduling design's defaults; the flags set each field.
type Display struct {
	// Fullscreen and NoVSync configure the window as platform.Config
	// does.
	Fullscreen bool
	NoVSync    bool
	// Samples is the MSAA sample count: 0 means 4, or none on a software
	// rasterizer; -1 none.
	Samples int
	// Refresh, if above 0, emulates a display of that many Hz in software
	// (where none paces the swaps, or to test other rates). 0 uses the
	// monitor's rate, or the measured swap rate, or else 60 Hz in software.
	Refresh float64
	// Latency chooses just-in-time frames with at most one frame in
	// flight (LowLatency, the default) or frames started a vblank ahead
	// with the driver queueing (Throughput).
	Latency LatencyMode
	// Motion is how bodies move between snapshots (interp.MotionMode):
	// lerp and slerp (the zero value), Hermite with the bodies'
	// velocities, or Extrapolate, with no render delay.
	Motion interp.MotionMode
	// Delay, if above 0, fixes the render delay instead of adapting it.
	Delay time.Duration
	// Spin is how long the simulation and the software pacer spin before
	// a deadline; 0 means simthread.DefaultSpin, -1 none.
	Spin time.Duration
	// Sched configures how the simulation and render threads are kept on
	// time when other goroutines keep every core busy (package sched):
	// its zero value is P headroom 2, nice −10 asked for the simulation
	// thread (CriticalNice), half of it for the render thread (see New),
	// and busy background threads sched.BackgroundGap (10) levels below
	// the least raised of them: nice 5 beside a render thread at −5.
	Sched sched.Config
	// KeepRunningUnfocused keeps the simulation running when the window
	// loses focus (iconifying always pauses it); -focuspause=false sets
	// it. A paused app says so on screen, HUD shown or not.
	KeepRunningUnfocused bool
}

// Tools are a run's instruments and the files it leaves, and the faults
// tests inject. Main sets them from the flags every app has; the
// package-level Run writes every file asked for on every path out once
// the window has opened (a run whose window never opened leaves none).
type Tools struct {
	// Duration, if above 0, ends Run that long after the first frame.
	Duration time.Duration
	// Screenshot, if set, is where Run saves the last frame as a PNG
	// (its name must end in .png); ScreenshotDir is where F12 saves
	// screenshots, named after the title ("Falling Cubes":
	// falling-cubes-<unix ms>.png), "" meaning the working directory.
	Screenshot, ScreenshotDir string
	// Report, if set, is where the package-level Run writes the timing
	// report (App.Report) as JSON once the run ends, whatever ended it;
	// Plot where it plots the frame intervals and the animation error
	// (.png or .svg).
	Report, Plot string
	// CPUProfile and Trace, if set, are where the package-level Run
	// writes a CPU profile and a runtime/trace of the run; MemProfile
	// where it writes a heap profile at its end.
	CPUProfile, Trace, MemProfile string
	// Record, if set, is where the package-level Run records the run
	// (package simthread/record: the inputs by tick, the world's hash
	// every second of ticks, the final tick and hash); Replay, if set, is
	// a recording it replays at the recording's rate, live input refused,
	// and checks hash by hash. Both need a world that implements
	// simthread.Hasher; the recording names the world by Title.
	Record, Replay string
	// Truth, if set, is the exact position of the body at index 0 at a
	// simulated time in seconds, and TruthSpeed its speed: the app then
	// measures its animation error against it (see interp.Meter).
	Truth      func(simSeconds float64) mgl64.Vec3
	TruthSpeed float64
	// Marker draws every frame's marker (renderer.DrawMarker), for an
	// observer outside the app (package observe, tickframe observe).
	Marker bool
	// FrameLog, if set, is where the package-level Run writes every
	// drawn frame's verdict (shown or dropped, when, and the simulated
	// time it showed) once the run ends, whatever ended it, for an
	// observer to compare with what it saw (observe.FrameLog.WriteFile:
	// a path ending in .csv has PresentMon's columns). The log holds a
	// run of Duration (an hour without) at up to 240 Hz or Refresh;
	// frames past it are counted lost.
	FrameLog string
	// PresentFault breaks the present path on purpose (tests).
	PresentFault PresentFault
}

// Ground is the ground plane: a square about the origin at y = 0 with a
// metre grid. Its zero value is the default 400 m square, shown.
type Ground struct {
	// Hidden leaves the ground out: the sky shows under the bodies. -ground=false sets it.
	Hidden bool
	// Size is the square's side in metres; 0 means 400. -groundsize sets it.
	Size float32
}

// defaultGroundSize is renderer's default ground square's side, metres.
const defaultGroundSize = 400

// App is a running tickframe application: a frame loop over the parts
// that each keep one concern. Its methods must be called on the main
// thread.
type App struct {
	cfg     Config
	world   simthread.World
	clock   *simthread.RealClock
	pipe    *interp.Pipeline // world → simulation → planner → meter
	win     *platform.Window
	rend    *renderer.Renderer
	ctl     control           // what the input asked for, and the camera (input.go)
	pacing  pacing            // when frames are displayed (pacing.go)
	present presentTracker    // when drawn frames were shown (present.go)
	shots   screenshots       // (shot.go)
	hud     hudModel          // (hud.go)
	steady  steadyState       // warm-up, GC and allocation accounting (steady.go)
	sched   scheduling        // thread priorities and the governor (schedule.go)
	hooks   []loopHook        // instruments and faults at the loop's seams (fault.go)
	frames  *observe.FrameLog // Config.Tools.FrameLog's, nil without
	notice  string            // why the simulation is paused, on screen (settings.go)
	stats   frameStats
}

var nan32 = float32(math.NaN())

// New opens the window, creates the renderer and the simulation for world.
// The world belongs to the simulation from now on. New must be called on
// the main thread.
func New(cfg Config, world simthread.World) (*App, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := cfg.Tools.PresentFault.Validate(); err != nil {
		return nil, err
	}
	spin := cfg.Display.Spin
	switch {
	case spin == 0:
		spin = simthread.DefaultSpin
	case spin < 0:
		spin = 0
	}
	a := &App{cfg: cfg, world: world, clock: simthread.NewRealClock(spin), ctl: control{cam: renderer.DefaultCamera()},
		steady: newSteadyState(), shots: newScreenshots(cfg.Title, cfg.Tools.ScreenshotDir, os.Stderr)}
	if cfg.Camera != nil {
		a.ctl.cam = *cfg.Camera
	}
	a.sched.renderCritical(cfg.Display.Sched)
	pipe, err := newPipeline(&cfg, world, a.clock)
	if err != nil {
		a.Close()
		return nil, err
	}
	a.pipe = pipe
	if cfg.Tools.FrameLog != "" {
		a.frames = observe.NewFrameLog(frameLogRoom(&cfg))
	}
	a.present = presentTracker{stats: &a.stats, meter: pipe.Meter(), log: a.frames}
	a.hooks = cfg.hooks(a)
	before := sched.Threads()
	if err := a.open(); err != nil {
		a.Close()
		return nil, err
	}
	a.sched.raiseDrivers(before)
	return a, nil
}

// open opens the window and the renderer, registers the scene and picks
// the pacing.
func (a *App) open() error {
	cfg := &a.cfg
	var err error
	a.win, err = platform.Open(platform.Config{
		Title: cfg.Title, Width: cfg.Width, Height: cfg.Height,
		Fullscreen: cfg.Display.Fullscreen, NoVSync: cfg.Display.NoVSync,
	})
	if err != nil {
		return err
	}
	// The renderer reads back the reference body (index 0) and times each
	// frame on the GPU, so that what was drawn and when it was shown are
	// measured, not assumed.
	a.rend, err = renderer.New(a.pipe.Planner().Depth(), renderer.Options{Samples: cfg.Display.Samples,
		Probe: true, ProbeBody: 0, Now: a.clock.Now})
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
// frames (package present). Where it says nothing the tracker is the
// model's, and the reason is kept for the report.
func (a *App) openPresent() {
	src, err := present.Open(present.Options{Now: a.clock.Now})
	a.present.src = src
	if err != nil {
		a.present.err = err.Error()
	}
	a.present.wait, _ = sched.OpenThreadWait() // nil where the kernel keeps no account: its figure is absent
	a.present.mono = present.MonotonicOffset(a.clock.Now)
	g := src.Grid()
	for start := time.Now(); src.Measured() && g.Count() < presentVblanks && time.Since(start) < presentSettle; {
		time.Sleep(time.Millisecond)
	}
	a.pacing.grid = g
	a.present.pacing = &a.pacing
	a.present.handOff = a.win.XWayland()
}

// Pipeline returns the chain from the world to the plans that New builds
// for cfg (newPipeline), the same as the verifier checks: the
// history sized for the delay's reach at one snapshot a step, the delay
// fixed or adaptive, the motion mode, and with Truth the meter following
// body 0.
func (cfg Config) Pipeline() interp.PipelineConfig {
	pc := interp.PipelineConfig{Sim: cfg.Sim, Delay: cfg.Display.Delay, Motion: cfg.Display.Motion}
	if cfg.Tools.Truth != nil {
		pc.Reference = &interp.Reference{Body: 0, Truth: cfg.Tools.Truth, Speed: cfg.Tools.TruthSpeed}
	}
	return pc
}

// frameLogRoom is how many frames Config.Tools.FrameLog's log holds: a
// run of Tools.Duration, or an hour, at 240 Hz or the emulated refresh if
// faster, and a thousand more.
func frameLogRoom(cfg *Config) int {
	d := cfg.Tools.Duration
	if d <= 0 {
		d = time.Hour
	}
	return int(d.Seconds()*max(240, cfg.Display.Refresh)) + 1024
}

// newPipeline builds the simulation of world on clock and the chain from
// it to the plans, as cfg asks (Pipeline).
func newPipeline(cfg *Config, world simthread.World, clock simthread.Clock) (*interp.Pipeline, error) {
	pc := cfg.Pipeline()
	sim, err := simthread.New(pc.SimConfig(), world, clock)
	if err != nil {
		return nil, err
	}
	return interp.NewPipeline(pc, sim)
}

// Config returns the configuration the App was made with.
func (a *App) Config() Config { return a.cfg }

// Sim returns the simulation. Its telemetry may be read at any time; its
// input log and checkpoints once Run has returned.
func (a *App) Sim() *simthread.Sim { return a.pipe.Sim() }

// Meter returns the animation-error meter, nil without Config.Tools.Truth.
func (a *App) Meter() *interp.Meter {
	if m := a.pipe.Meter(); m != nil {
		return m.Meter
	}
	return nil
}

// Window returns the window.
func (a *App) Window() *platform.Window { return a.win }

// Run starts the simulation and draws frames until the window is closed,
// Esc is pressed, ctx is done or Config.Tools.Duration has passed; then it stops
// the simulation, waits for it and saves the last frame if asked. It
// returns the first error of the world, of GL or of saving.
//
// Each frame is five steps (frame.go): wait for its display time (pace),
// apply the window's events (input), plan and measure what to show
// (plan), draw and swap (draw), and account for the HUD, the warm-up and
// the frames shown (account).
func (a *App) Run(ctx context.Context) (err error) {
	// Render-thread work carries loop=render in CPU profiles.
	rctx := pprof.WithLabels(ctx, pprof.Labels("loop", "render"))
	pprof.SetGoroutineLabels(rctx)
	defer pprof.SetGoroutineLabels(ctx)
	simCtx, stopSim := context.WithCancel(ctx)
	a.sched.startSim(simCtx, a.pipe.Sim())
	a.hud.lat = sched.NewLatency()
	var plan interp.Plan
	stopped := false
	defer func() {
		// A panic in the frame loop (GLFW turns some driver errors into
		// panics) still stops the simulation and reads the final figures,
		// so that the report written after it holds figures in range.
		if !stopped {
			err = errors.Join(err, a.stop(stopSim))
		}
		a.sched.stopGovernor()
		err = errors.Join(err, a.shots.wait())
	}()
	a.steady.start = a.clock.Now()
	a.pipe.Begin(a.steady.start)
	var drawErr error
	for a.running(ctx) {
		f, ok := a.pace(ctx, rctx)
		if !ok {
			break // ctx done while waiting for the vblank
		}
		a.input(&f)
		plan = a.plan(&f)
		if drawErr = a.draw(&f, &plan); drawErr != nil {
			break
		}
		a.account(&f, &plan)
		f.end()
	}
	stopped = true
	return a.finish(rctx, stopSim, &plan, drawErr)
}

// finish ends Run on every path out of the frame loop, drawErr being the
// error that ended it if any: it stops the simulation first, so that the
// counts cover exactly the frames drawn, reads the final figures and,
// after a clean run, saves the last frame if asked. It returns drawErr
// joined with the simulation's error.
func (a *App) finish(rctx context.Context, stopSim func(), plan *interp.Plan, drawErr error) error {
	simErr := a.stop(stopSim)
	if err := errors.Join(drawErr, simErr); err != nil {
		return err
	}
	if a.cfg.Tools.Screenshot != "" {
		// Draw the last plan once more and keep it.
		if _, err := a.drawPlan(rctx, plan); err != nil {
			return err
		}
		a.shots.save(a.win, a.cfg.Tools.Screenshot, false)
	}
	return nil
}

// stop stops the simulation, waits for it and reads the final figures:
// the run's length, the last present reports, the steady state's counters
// and the scheduling latency. It returns the simulation's error.
func (a *App) stop(stopSim func()) error {
	a.steady.elapsed = a.clock.Now() - a.steady.start
	stopSim()
	err := a.pipe.Sim().Wait()
	a.present.collect(a.rend, a.pacing.pacer, true)
	a.steady.finish(a.stats.Frames, a.sched.allocs())
	a.sched.latency = a.sched.lat.Read()
	return err
}

// Close frees the renderer and closes the window. The App must not be used
// afterwards.
func (a *App) Close() {
	a.sched.close()
	if a.present.src != nil {
		_ = a.present.src.Close() // its thread only reads events
		a.present.src = nil
	}
	_ = a.present.wait.Close()
	if a.rend != nil {
		a.rend.Delete()
		a.rend = nil
	}
	if a.win != nil {
		a.win.Close()
		a.win = nil
	}
}
