// Package app runs a tickframe application: a World of yours stepped at a
// fixed rate on the simulation goroutine, drawn interpolated at the
// display's rate on the main thread, with the window, the input, the HUD,
// frame pacing and the measurements wired together.
//
//	func main() {
//		a, err := app.New(app.Config{Title: "cubes"}, newWorld())
//		if err != nil {
//			log.Fatal(err)
//		}
//		defer a.Close()
//		if err := a.Run(context.Background()); err != nil {
//			log.Fatal(err)
//		}
//	}
//
// New and Run must be called on the main goroutine: package platform locks
// it to the main thread, where GLFW and OpenGL must run.
//
// Input: the app reserves a few keys: Esc quits, Space pauses, F toggles
// fullscreen, V vsync, H the HUD, F12 saves a screenshot. Config.Keys
// remaps them or turns them off; a reserved key's press, repeats and
// release all stay in the app. Every other key event (press, repeat and
// release), every mouse button, cursor and scroll event goes to
// Config.Input, which may turn it into a simulation input: the only way
// input reaches the world. A left drag also orbits the camera and the
// wheel zooms it, unless Config.NoMouseCamera. Events carry platform's
// own key and button types: apps never import GLFW. For mouse look,
// capture the cursor with a.Window().CaptureCursor(true) before Run.
package app

import (
	"context"
	"fmt"
	"image"
	"math"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"sync"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/tickframe/tickframe/platform"
	"github.com/tickframe/tickframe/platform/sched"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/renderer/interp"
	"github.com/tickframe/tickframe/simthread"
)

// Config configures an App. Its zero value runs a 1280×720 window with
// vsync at the display's refresh and the simulation at 120 Hz.
type Config struct {
	// Title, Width, Height, Fullscreen and NoVSync configure the window
	// as platform.Config does.
	Title         string
	Width, Height int
	Fullscreen    bool
	NoVSync       bool
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
	// Sim configures the simulation goroutine.
	Sim simthread.Config
	// Sched configures how the simulation and render threads are kept on
	// time when other goroutines keep every core busy (package sched):
	// its zero value is P headroom 2, busy background threads at nice 10,
	// and nice −10 asked for the simulation thread (CriticalNice), half of
	// it for the render thread (see New).
	Sched sched.Config
	// Spin is how long the simulation and the software pacer spin before
	// a deadline; 0 means simthread.DefaultSpin, -1 none.
	Spin time.Duration
	// Delay, if above 0, fixes the render delay instead of adapting it.
	Delay time.Duration
	// Motion is how bodies move between snapshots (interp.MotionMode):
	// lerp and slerp (the zero value), Hermite with the bodies'
	// velocities, or Extrapolate, with no render delay.
	Motion interp.MotionMode
	// Duration, if above 0, ends Run that long after the first frame.
	Duration time.Duration
	// Screenshot, if set, is where Run saves the last frame as a PNG.
	Screenshot string
	// ScreenshotDir is where F12 saves screenshots; "" means the working
	// directory.
	ScreenshotDir string
	// Camera, if set, is where the orbit camera starts; nil frames the
	// reference world (renderer.DefaultCamera).
	Camera *renderer.Camera
	// HideHUD starts with the HUD hidden.
	HideHUD bool
	// KeepRunningUnfocused keeps the simulation running when the window
	// loses focus (iconifying always pauses it).
	KeepRunningUnfocused bool
	// Input turns a key, button, cursor or scroll event into an input for
	// the world, applied at the start of the next tick. It sees every such
	// event but the reserved keys' (Keys): presses, repeats and releases
	// alike. It runs on the main thread and must not block. An input the
	// full queue refuses is counted (App.InputsDropped).
	Input func(platform.Event) (simthread.Input, bool)
	// Keys remaps or turns off the keys the app reserves; its zero value
	// is DefaultKeys().
	Keys KeyMap
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
	// Truth, if set, is the exact position of the body at index 0 at a
	// simulated time in seconds, and TruthSpeed its speed: the app then
	// measures its animation error against it (see interp.Meter).
	Truth      func(simSeconds float64) mgl64.Vec3
	TruthSpeed float64
	// Scene, if set, is called once by New on the main thread right after
	// the renderer is created, before any frame: register meshes and
	// materials there (renderer.AddMesh, AddMaterial, AddModel). Ids are
	// given in order from 1, so a world created before New can name them.
	// An error closes the window and New returns it.
	Scene func(*renderer.Renderer) error
}

// App is a running tickframe application. Its methods must be called on
// the main thread.
type App struct {
	cfg     Config
	clock   *simthread.RealClock
	pipe    *interp.Pipeline
	sim     *simthread.Sim
	win     *platform.Window
	rend    *renderer.Renderer
	planner *interp.Planner
	meter   *interp.WarmMeter
	pacer   *platform.Pacer
	cam     renderer.Camera // the orbit camera, and the pose drawn (camera.go)
	look    lookLedger      // mouse motion sent to the world (camera.go)
	stats   Stats
	gc      *gcMetrics

	refreshHz     float64
	refreshSource string
	measuring     []platform.SwapSample
	userPaused    bool
	iconified     bool
	unfocused     bool
	simPaused     bool
	dragging      bool
	dragX, dragY  float64
	quit          bool
	shotRequested bool
	frame         image.RGBA
	shots         sync.WaitGroup
	shotErr       error
	shotMu        sync.Mutex
	hudNext       time.Duration
	warm          GCReading
	warmFrames    uint64
	warmAt        time.Duration
	end           GCReading
	hudLast       hudSample
	elapsed       time.Duration

	gov        *sched.Governor
	renderPrio sched.ThreadPriority
	simPrio    sched.ThreadPriority
	unregister func()
	lat        *sched.Latency
	hudLat     *sched.Latency
	latency    sched.LatencySummary
	procsStart int

	start      time.Duration // the first frame's time
	warmTicks  uint64        // ticks run at the end of the warm-up
	warmPaused time.Duration // time paused by then
	testFrame  func()        // called every frame after the input; tests only
	jit        jit
	metered    bool // the meter measured this frame
	swaps      [swapRing]swapRecord
	cand       shownFrame    // the last frame known shown, not yet final
	lastShown  time.Duration // the display time of the last frame shown
}

// hudSample is what the HUD's rates are computed from.
type hudSample struct {
	at     time.Duration
	frames uint64
	ticks  uint64
}

var nan32 = float32(math.NaN())

// measureFrames is how many swaps are timed to find a display's refresh
// rate when the monitor does not report one.
const measureFrames = 32

// warmup is how long after the first frame the steady state is taken to
// start: allocations and GC cycles are counted from then on.
const warmup = 2 * time.Second

// New opens the window, creates the renderer and the simulation for world.
// The world belongs to the simulation from now on. New must be called on
// the main thread.
func New(cfg Config, world simthread.World) (*App, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	spin := cfg.Spin
	switch {
	case spin == 0:
		spin = simthread.DefaultSpin
	case spin < 0:
		spin = 0
	}
	a := &App{cfg: cfg, clock: simthread.NewRealClock(spin), cam: renderer.DefaultCamera(), gc: newGCMetrics()}
	// The render thread is the main thread, which platform has locked. It
	// is critical (never moved to the background) and asks for nice −5,
	// half way to the simulation's −10: at −10 it and the driver threads
	// it starts (llvmpipe's) competed with the simulation at its own
	// priority, and under -stress 2 a wake in a hundred came 8–16 ms late
	// (tick lateness p99 8.7 ms, against 2.3 ms at −5, which still
	// outranks the busy background threads at nice 10 by far).
	renderSched := cfg.Sched
	if renderSched.CriticalNice <= 0 {
		renderSched.CriticalNice = renderNice(renderSched.CriticalNice)
	}
	// Likewise real-time: one priority below the simulation, which then
	// preempts it and its driver threads whenever it wakes.
	if renderSched.CriticalRT > 1 {
		renderSched.CriticalRT--
	}
	a.renderPrio, a.unregister = sched.Critical("render", renderSched)
	if cfg.Camera != nil {
		a.cam = *cfg.Camera
	}
	pipe, err := interp.NewPipeline(cfg.Pipeline(), world, a.clock)
	if err != nil {
		return nil, err
	}
	a.pipe, a.sim, a.planner, a.meter = pipe, pipe.Sim(), pipe.Planner(), pipe.Meter()
	a.win, err = platform.Open(platform.Config{
		Title: cfg.Title, Width: cfg.Width, Height: cfg.Height,
		Fullscreen: cfg.Fullscreen, NoVSync: cfg.NoVSync,
	})
	if err != nil {
		return nil, err
	}
	// The renderer reads back the reference body (index 0) and times each
	// frame on the GPU, so that what was drawn and when it was shown are
	// measured, not assumed.
	a.rend, err = renderer.New(a.planner.Depth(), renderer.Options{Samples: cfg.Samples,
		Probe: true, ProbeBody: 0, Now: a.clock.Now})
	if err != nil {
		a.win.Close()
		return nil, err
	}
	if cfg.Scene != nil {
		if err := cfg.Scene(a.rend); err != nil {
			a.Close()
			return nil, err
		}
	}
	if cfg.CaptureCursor {
		a.win.CaptureCursor(true)
	}
	hud := a.rend.HUD()
	hud.Visible = !cfg.HideHUD
	hud.Scale = max(1, int(a.win.ContentScale()+0.5))
	if err := a.choosePacing(); err != nil {
		a.Close()
		return nil, err
	}
	return a, nil
}

// Pipeline returns the chain from the world to the plans that New builds
// for cfg (interp.NewPipeline), the same as the verifier checks: the
// history sized for the delay's reach at one snapshot a step, the delay
// fixed or adaptive, the motion mode, and with Truth the meter following
// body 0.
func (cfg Config) Pipeline() interp.PipelineConfig {
	pc := interp.PipelineConfig{Sim: cfg.Sim, Delay: cfg.Delay, Motion: cfg.Motion}
	if cfg.Truth != nil {
		pc.Reference = &interp.Reference{Body: 0, Truth: cfg.Truth, Speed: cfg.TruthSpeed}
	}
	return pc
}

// renderNice is the nice value the render thread asks for, given the
// simulation's (0: the default −10): half of it, rounded towards zero, or
// 1 (ask for nothing) when that is 0.
func renderNice(critical int) int {
	if critical == 0 {
		critical = -10
	}
	if critical/2 == 0 {
		return 1
	}
	return critical / 2
}

// Validate reports the first setting out of range, without opening
// anything.
func (cfg Config) Validate() error {
	switch {
	case cfg.Refresh != 0 && !(cfg.Refresh >= 1 && cfg.Refresh <= platform.MaxRefresh):
		return fmt.Errorf("app: refresh rate %v Hz out of range [1, %d] (or 0 for the display's)", cfg.Refresh, platform.MaxRefresh)
	case cfg.Duration < 0:
		return fmt.Errorf("app: negative duration %v", cfg.Duration)
	case cfg.Delay < 0:
		return fmt.Errorf("app: negative render delay %v", cfg.Delay)
	case cfg.Width < 0 || cfg.Height < 0 || cfg.Width > 16384 || cfg.Height > 16384:
		return fmt.Errorf("app: window size %dx%d out of range", cfg.Width, cfg.Height)
	}
	if err := cfg.Sched.Validate(); err != nil {
		return fmt.Errorf("app: %w", err)
	}
	if err := cfg.Keys.Validate(); err != nil {
		return err
	}
	return cfg.Sim.Timing.Validate()
}

// choosePacing picks how frames are paced: the -refresh flag in software,
// else the monitor's rate with vsync, else measurement of the first swaps.
func (a *App) choosePacing() error {
	var err error
	switch hz := a.win.RefreshRate(); {
	case a.cfg.Refresh > 0:
		a.refreshHz, a.refreshSource = a.cfg.Refresh, "emulated"
		a.pacer, err = platform.NewPacer(a.clock, a.cfg.Refresh, true)
	case a.win.VSync() && hz > 0:
		a.refreshHz, a.refreshSource = float64(hz), "monitor"
		a.pacer, err = platform.NewPacer(a.clock, float64(hz), false)
	case a.win.VSync():
		a.refreshSource = "measuring"
		a.measuring = make([]platform.SwapSample, 0, measureFrames)
	default:
		a.refreshSource = "unpaced"
	}
	return err
}

// afterMeasuring decides the pacing once the first swaps have been timed:
// if they were paced by a display, follow it; if not (Xvfb), emulate 60 Hz.
func (a *App) afterMeasuring() {
	hz, ok := platform.MeasureRefresh(a.measuring)
	a.measuring = nil
	software := !ok
	if !ok {
		hz = 60
		a.refreshSource = "swaps unpaced; emulated"
	} else {
		a.refreshSource = "measured"
	}
	a.refreshHz = hz
	a.pacer, _ = platform.NewPacer(a.clock, hz, software) // hz is in range
}

// Config returns the configuration the App was made with.
func (a *App) Config() Config { return a.cfg }

// Sim returns the simulation. Its telemetry may be read at any time; its
// input log and checkpoints once Run has returned.
func (a *App) Sim() *simthread.Sim { return a.sim }

// Stats returns the render thread's measurements.
func (a *App) Stats() *Stats { return &a.stats }

// Meter returns the animation-error meter, nil without Config.Truth.
func (a *App) Meter() *interp.Meter {
	if a.meter == nil {
		return nil
	}
	return a.meter.Meter
}

// Planner returns the frame planner.
func (a *App) Planner() *interp.Planner { return a.planner }

// Refresh reports the display rate frames were paced at and where it came
// from ("emulated", "monitor", "measured", "swaps unpaced; emulated",
// "unpaced").
func (a *App) Refresh() (hz float64, source string) { return a.refreshHz, a.refreshSource }

// schedAllocs is what the governor's GOMAXPROCS changes allocated so far.
func (a *App) schedAllocs() uint64 {
	if a.gov == nil {
		return 0
	}
	return a.gov.Stats().Allocs
}

// GC reports the runtime's counters at the end of the warm-up and at the
// end of Run, and the frames drawn between them.
func (a *App) GC() (warm, end GCReading, frames uint64) {
	return a.warm, a.end, a.stats.Frames - a.warmFrames
}

// TickRate reports the simulation's tick rate after the warm-up: ticks
// per second of time not paused, from the end of the warm-up to the end of
// Run (over the whole run when less than a second of it came after the
// warm-up).
func (a *App) TickRate() float64 {
	tel := a.sim.Telemetry().Read()
	ticks, span := tel.Ticks, a.elapsed-tel.PausedTotal
	if steady := (a.start + a.elapsed - a.warmAt) - (tel.PausedTotal - a.warmPaused); a.warmAt > 0 && steady >= time.Second {
		ticks, span = tel.Ticks-a.warmTicks, steady
	}
	if span <= 0 {
		return 0
	}
	return float64(ticks) / span.Seconds()
}

// Elapsed reports how long Run ran the simulation and drew frames.
func (a *App) Elapsed() time.Duration { return a.elapsed }

// Missed reports how many vblanks frames missed (0 when unpaced).
func (a *App) Missed() uint64 {
	if a.pacer == nil {
		return 0
	}
	return a.pacer.Missed()
}

// Window returns the window.
func (a *App) Window() *platform.Window { return a.win }

// Run starts the simulation and draws frames until the window is closed,
// Esc is pressed, ctx is done or Config.Duration has passed; then it stops
// the simulation, waits for it and saves the last frame if asked. It
// returns the first error of the world, of GL or of saving.
//
// Each frame is the same four steps (frame.go): wait for the frame's
// display time (pacing), apply the window's events (input), plan and
// measure what to show (planning; the HUD and the warm-up mark
// periodically), draw, swap and account for what was shown (presenting).
func (a *App) Run(ctx context.Context) (err error) {
	// Render-thread work carries loop=render in CPU profiles.
	rctx := pprof.WithLabels(ctx, pprof.Labels("loop", "render"))
	pprof.SetGoroutineLabels(rctx)
	defer pprof.SetGoroutineLabels(ctx)

	simCtx, stopSim := context.WithCancel(ctx)
	a.startSim(simCtx)
	defer func() {
		stopSim()
		if a.gov != nil {
			a.gov.Stop()
		}
		if werr := a.sim.Wait(); err == nil {
			err = werr
		}
		a.shots.Wait()
		if err == nil {
			err = a.shotErr
		}
	}()

	a.start = a.clock.Now()
	a.pipe.Begin(a.start)
	var plan interp.Plan
	for a.running(ctx) {
		f, ok := a.pace(ctx, rctx)
		if !ok {
			break // ctx done while waiting for the vblank
		}
		a.handle(a.win.Poll())
		f.poll = a.clock.Now()
		if a.testFrame != nil {
			a.testFrame() // tests inject events here, through handle
		}
		plan = a.plan(&f)
		a.periodic(&f, &plan)
		if err := a.present(&f, &plan); err != nil {
			return err
		}
		f.end()
	}
	// Stop the simulation now, so that the counts cover exactly the
	// frames drawn; the deferred stop is for the early returns.
	a.elapsed = a.clock.Now() - a.start
	stopSim()
	if werr := a.sim.Wait(); werr != nil {
		return werr
	}
	a.collectShown(true)
	a.end = a.gc.read()
	a.end.SchedAllocs = a.schedAllocs()
	a.latency = a.lat.Read()
	if a.warmAt == 0 {
		a.warm, a.warmFrames = a.end, a.stats.Frames
	}
	if a.cfg.Screenshot != "" {
		// Draw the last plan once more and keep it.
		if _, err := a.draw(rctx, &plan); err != nil {
			return err
		}
		a.saveShot(a.cfg.Screenshot, true)
	}
	return nil
}

// startSim runs the simulation on a goroutine locked to a critical thread
// of its own, then starts the scheduling governor (after the critical
// threads are registered, so it never lowers their priority).
func (a *App) startSim(ctx context.Context) {
	ready := make(chan sched.ThreadPriority, 1)
	go func() {
		tp, unregister := sched.Critical("sim", a.cfg.Sched)
		defer unregister()
		ready <- tp
		_ = a.sim.Run(ctx) // its error is Wait's
	}()
	a.simPrio = <-ready
	a.lat, a.hudLat = sched.NewLatency(), sched.NewLatency()
	a.procsStart = runtime.GOMAXPROCS(0)
	var err error
	if a.gov, err = sched.Start(a.cfg.Sched); err != nil {
		a.gov = nil // validated in New: cannot happen
	}
}

// SchedReport is what the scheduling design did during Run.
type SchedReport struct {
	// Latency is the runtime's scheduling latency after the warm-up.
	Latency sched.LatencySummary
	// Procs is GOMAXPROCS before Run, at its end, and the most it was.
	ProcsStart, ProcsEnd, ProcsMax int
	// Sim and Render are the priorities the two critical threads got.
	Sim, Render sched.ThreadPriority
	// BackgroundNice is the nice value other threads were moved to (−1:
	// left alone), and Reniced how many threads were moved.
	BackgroundNice, Reniced int
	// Config is the scheduling configuration with defaults filled in.
	Config sched.Config
}

// Sched reports what the scheduling design did; call it after Run.
func (a *App) Sched() SchedReport {
	r := SchedReport{Latency: a.latency, ProcsStart: a.procsStart, ProcsEnd: runtime.GOMAXPROCS(0),
		Sim: a.simPrio, Render: a.renderPrio, BackgroundNice: -1}
	r.ProcsMax = max(r.ProcsStart, r.ProcsEnd)
	if a.gov != nil {
		st := a.gov.Stats()
		r.ProcsMax = max(r.ProcsMax, st.MaxProcs)
		r.Reniced = st.Reniced
		r.Config = a.gov.Config()
		r.BackgroundNice = st.BackgroundNice
	}
	return r
}

func (a *App) shotPath() string {
	name := "tickframe-" + strconv.FormatInt(time.Now().UnixMilli(), 10) + ".png"
	if a.cfg.ScreenshotDir == "" {
		return name
	}
	return a.cfg.ScreenshotDir + string(os.PathSeparator) + name
}

// saveShot reads the back buffer and saves it as a PNG on another
// goroutine (PNG encoding takes tens of milliseconds); Run waits for it.
func (a *App) saveShot(path string, wait bool) {
	w, h := a.win.FramebufferSize()
	img, err := renderer.ReadFrame(&a.frame, w, h)
	if err != nil {
		a.setShotErr(err)
		return
	}
	cp := *img
	cp.Pix = append([]byte(nil), img.Pix...)
	a.shots.Add(1)
	go func() {
		defer a.shots.Done()
		if err := renderer.SavePNG(path, &cp); err != nil {
			a.setShotErr(err)
			return
		}
		if !wait {
			fmt.Fprintf(os.Stderr, "tickframe: screenshot saved to %s\n", path)
		}
	}()
}

func (a *App) setShotErr(err error) {
	a.shotMu.Lock()
	defer a.shotMu.Unlock()
	if a.shotErr == nil {
		a.shotErr = err
	}
}

// Close frees the renderer and closes the window. The App must not be used
// afterwards.
func (a *App) Close() {
	if a.unregister != nil {
		a.unregister()
		a.unregister = nil
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
