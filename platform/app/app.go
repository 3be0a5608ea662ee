// Package app runs a tickframe application with everything an app has:
// the runtime (platform/internal/loop: a World of yours stepped at a fixed rate on
// the simulation goroutine, drawn interpolated at the display's rate on
// the main thread) with the flags every app has, the instruments that
// measure the run (the timing report, the HUD's figures, when frames were
// shown, the frame log, the marker, the plot, the profiles, the
// recording) attached at the loop's seams, and every file asked for
// written on every path out.
//
//	func main() {
//		app.Main(app.Config{Title: "cubes"}, newWorld())
//	}
//
// Main parses the flags every app has (Flags), runs and exits 0, 1 on a
// failure at run time, or 2 on a bad flag or setting, which it finds
// before any window opens. Run is the same without the flags and the
// exit, for tests and programs that embed an app; it writes the timing
// report, the frame log, the plot, the profiles and the recording asked
// for on every path out, and the world may be read again once it returns
// (or in Config.Finish). Their variants are options: a world built once
// the flags are parsed (WorldFunc), the settings in code (WithSettings),
// a command line of the caller's (Args), the runtime without the
// instruments (Bare). Main and Run must be called on the main goroutine:
// the runtime's window package, which app imports, locks it to the main
// thread in init, before main runs: GLFW and OpenGL must run there.
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
// Config.Mouse.CaptureCursor (and MouseLook).
package app

import (
	"context"
	"flag"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/tickframe/tickframe/platform"
	"github.com/tickframe/tickframe/platform/internal/instrument"
	"github.com/tickframe/tickframe/platform/internal/interp"
	"github.com/tickframe/tickframe/platform/internal/loop"
	"github.com/tickframe/tickframe/platform/internal/sim"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/simthread"
)

// Config is what a game sets: its window, its simulation's rate and seed,
// its scene, camera and look, its input and keys, its own flags and what
// it does once the run ends. Its zero value runs a 1280×720 window with
// vsync at the display's refresh and the simulation at 120 Hz. The
// tuning knobs (how frames are made and paced, the simulation's catch-up,
// the instruments and the files a run leaves) are Settings, which the
// flags every app has set: most apps leave them alone.
type Config struct {
	// Title and the window's size (0: 1280×720; -width and -height set
	// them). The title also names the app's screenshots and recordings.
	Title         string
	Width, Height int
	// Rate is the simulation's rate in ticks per second (0:
	// simthread.DefaultRate, 120); -hz sets it, -replay restores the
	// recording's.
	Rate int
	// Seed is the world's random seed: -seed sets it, -record writes it
	// into the recording and -replay restores it, with the app's own
	// flags (AppFlags), before WorldFunc's constructor builds the world.
	Seed uint64
	// Scene, if set, is called once on the main thread right after the
	// renderer is created, before any frame and before the simulation
	// starts (the world has been neither stepped nor snapshotted, and the
	// renderer can say what draws: r.Software()): register meshes and
	// materials there (r.Registry()'s AddMesh and AddMaterial, which the
	// first frame uploads; r.AddModel, at once), and keep r.Registry() to
	// register more at any time from any goroutine, the world's Step
	// included. Each returns a handle (simthread.MeshID,
	// MaterialID) that bodies name as it is; never count on the order.
	// An error closes the window and the run returns it.
	Scene func(*renderer.Renderer) error
	// Camera, if set, changes where the orbit camera starts: it is given
	// renderer.DefaultCamera() (framing the reference world; near 0.1 m,
	// far 400 m) to change. Its Near and Far clip every frame, the world's
	// own camera (simthread.Snapshot.Camera) included; -near and -far set
	// them over it.
	Camera func(*renderer.Camera)
	// Look is the sky, the ground and the HUD at the start (-clear,
	// -ground, -groundsize and -hud set it).
	Look Look
	// Input turns a key, button, cursor or scroll event into an input for
	// the world, applied at the start of the next tick. It sees every such
	// event but the reserved keys' (Keys): presses, repeats and releases
	// alike. It runs on the main thread and must not block. An input the
	// full queue refuses is counted (Report).
	Input func(platform.Event) (simthread.Input, bool)
	// Keys remaps or turns off the keys the app reserves; its zero value
	// is DefaultKeys().
	Keys KeyMap
	// Mouse is what the mouse does besides reaching Input: the orbit
	// camera's drag and zoom, a captured cursor, mouse look.
	Mouse Mouse
	// AppFlags, if set, registers the app's own flags beside the
	// template's when Main (or Run with Args) parses the command line;
	// they are parsed, checked for stray arguments and listed by -h with
	// the others, a bad value exiting 2 like theirs. Bind them to
	// variables the world reads once the run has started it (the parse
	// comes first), or build the world from them (WorldFunc).
	AppFlags func(fs *flag.FlagSet)
	// Finish, if set, is called once the simulation has stopped, with the
	// report about to be written (nil with Bare) and the error the run
	// ended with (nil after a clean stop): the world may be read again,
	// the report given figures of the app's own (Report.Extra), the app's
	// own files written. Its error is joined to the run's.
	Finish func(a *App, r *Report, runErr error) error

	flags *appFlags // the app's own flags as the parse found them (settings.go)
}

// Settings are the tuning knobs every app has, apart from what a game
// sets (Config): how frames are made and paced, the simulation's
// catch-up, the camera's clip planes, the instruments and the files a run
// leaves, and the faults tests inject. The flags every app has set them
// (Flags); WithSettings gives them in code. Its zero value is the
// defaults every flag shows.
type Settings struct {
	// Runtime is what the runtime reads: Display (how frames are made and
	// paced: -fullscreen, -vsync, -msaa, -refresh, -latency, -motion,
	// -delay, -spin, -focuspause and the scheduling levers), Duration
	// (-duration: if above 0, the run ends that long after the first
	// frame) and ScreenshotDir (where F12 saves screenshots, named after
	// the title, "" meaning the working directory).
	Runtime
	// Sim is the simulation's catch-up (Timing's MaxDelta, MaxSteps and
	// Overload: -maxdelta, -maxsteps, -overload), its queues and its first
	// snapshot (simthread.Tuning). Its Timing.Rate is Config.Rate, which
	// replaces it; its recording fields are -record's and -replay's.
	Sim simthread.Tuning
	// Near and Far, if above 0, are the camera's clip planes in metres
	// over Config.Camera's (-near, -far).
	Near, Far float32
	// Tools are the instruments and the files a run leaves (report,
	// plot, profiles, recording, screenshot, frame log), and the faults
	// tests inject.
	Tools Tools
}

// The runtime's settings, named here as the flags and the package doc
// name them (package loop has the fields' documentation).
type (
	Look    = loop.Look
	Mouse   = loop.Mouse
	Runtime = loop.Settings
	KeyMap  = loop.KeyMap
)

// Display is how frames are made and paced (Settings.Display; package
// loop has the fields' documentation). Its zero value, vsync at the
// display's rate with low latency, is ready to use: set the fields that
// differ.
type Display = loop.Display

// The instruments' types, named here as Config.Finish and Config.Tools
// name them (package instrument has their documentation).
type (
	Report       = instrument.Report
	PresentFault = instrument.PresentFault
)

// Ground is the ground plane (loop.Ground): its zero value is the default
// 400 m square, shown, ready to use in Look.
type Ground = loop.Ground

// The latency modes, for Display.Latency (-latency low or throughput).
const (
	LowLatency = loop.LowLatency
	Throughput = loop.Throughput
)

// DefaultKeys returns the keys the app reserves unless Config.Keys says
// otherwise: Esc, Space, F, V, H and F12.
func DefaultKeys() KeyMap { return loop.DefaultKeys() }

// Tools are a run's instruments and the files it leaves, and the faults
// tests inject. Main sets them from the flags every app has; the
// package-level Run writes every file asked for on every path out once
// the window has opened (a run whose window never opened leaves none).
type Tools struct {
	// Screenshot, if set, is where the run saves the last frame as a PNG
	// (its name must end in .png).
	Screenshot string
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
	// (the recording format, docs/recording.md: the inputs by tick, the world's hash
	// every second of ticks, the final tick and hash); Replay, if set, is
	// a recording it replays at the recording's rate, live input refused,
	// and checks hash by hash. Both need a world that implements
	// simthread.Hasher; the recording names the world by Title.
	Record, Replay string
	// Truth, if set, is the exact position of the body at index
	// TruthBody (0: the first) at a simulated time in seconds, and
	// TruthSpeed its speed: the app then measures its animation error
	// against it (see interp.Meter). Bodies are named by their index in
	// Snapshot.Bodies, the only name they have, so a world need not
	// publish its reference body first.
	Truth      func(simSeconds float64) mgl64.Vec3
	TruthSpeed float64
	TruthBody  int
	// Marker draws every frame's marker (renderer.DrawMarker), for an
	// observer outside the app (package observe, tickframe observe).
	Marker bool
	// FrameLog, if set, is where the package-level Run writes every
	// drawn frame's verdict (shown or dropped, when, and the simulated
	// time it showed) once the run ends, whatever ended it, for an
	// observer to compare with what it saw (framelog.Log.WriteFile:
	// a path ending in .csv has PresentMon's columns). The log holds a
	// run of Duration (an hour without) at up to 240 Hz or Refresh;
	// frames past it are counted lost.
	FrameLog string
	// PresentFault breaks the present path on purpose (tests).
	PresentFault PresentFault
}

// App is a running tickframe application, the handle Config.Finish is
// given: the runtime with the instruments the settings ask for attached.
// Its methods must be called on the main thread.
type App struct {
	rt    *loop.App
	cfg   Config
	set   Settings
	world simthread.World
	inst  *instrument.Set // nil without the instruments (Bare)
}

// newApp opens the window, creates the renderer and the simulation for
// world, with the instruments at the loop's seams unless bare, and then
// more (the tests' own hooks). The world belongs to the simulation from
// now on. It must be called on the main thread.
func newApp(cfg Config, set Settings, world simthread.World, bare bool, more ...loop.Hook) (*App, error) {
	if err := Validate(cfg, set); err != nil {
		return nil, err
	}
	if err := set.Tools.PresentFault.Validate(); err != nil {
		return nil, err
	}
	rc, react := runtimeConfig(&cfg, &set), &instrument.Reactions{}
	var hooks []loop.Hook
	var inst *instrument.Set
	if !bare {
		// The marker is drawn before anything holds the swap back; the
		// instruments read the render thread's wait last before the swap.
		if set.Tools.Marker {
			rc.Input = react.Input(rc.Input) // the reaction patch's count
			hooks = append(hooks, instrument.Marker(react))
		}
		if set.Tools.PresentFault != (PresentFault{}) {
			hooks = append(hooks, set.Tools.PresentFault.Hook(react))
		}
		inst = instrument.New(instruments(&set))
		hooks = append(hooks, inst)
	}
	la, err := loop.New(rc, world, append(hooks, more...)...)
	if err != nil {
		return nil, err
	}
	return &App{rt: la, cfg: cfg, set: set, world: world, inst: inst}, nil
}

// instruments is what the instruments measure for set: with Tools.Truth,
// the animation error of body Tools.TruthBody (the meter and the
// renderer's read-back follow it); with Tools.FrameLog, the frame log.
func instruments(set *Settings) instrument.Options {
	o := instrument.Options{Reference: reference(set)}
	if set.Tools.FrameLog != "" {
		o.FrameLog = frameLogRoom(set)
	}
	return o
}

// report returns the figures of the run (instrument.Set.Report), nil
// without the instruments. Call it once the run has returned.
func (a *App) report() *Report {
	if a.inst == nil {
		return nil
	}
	return a.inst.Report(a.world)
}

// runtimeConfig is what the runtime runs for cfg and set: the game's
// part, the runtime's settings as they are (Settings.Runtime) and the
// simulation at cfg's rate. What the instruments measure they ask the
// runtime for themselves (instruments).
func runtimeConfig(cfg *Config, set *Settings) loop.Config {
	sim := set.Sim
	sim.Timing.Rate = cfg.Rate
	return loop.Config{Title: cfg.Title, Width: cfg.Width, Height: cfg.Height, Sim: sim, Scene: cfg.Scene,
		Camera: camera(cfg, set), Look: cfg.Look, Input: cfg.Input, Keys: cfg.Keys, Mouse: cfg.Mouse,
		Settings: set.Runtime}
}

// camera is where the orbit camera starts: the default, changed by
// Config.Camera, clipped by Settings.Near and Far; nil where none of
// them is set.
func camera(cfg *Config, set *Settings) *renderer.Camera {
	if cfg.Camera == nil && set.Near == 0 && set.Far == 0 {
		return nil
	}
	c := renderer.DefaultCamera()
	if cfg.Camera != nil {
		cfg.Camera(&c)
	}
	if set.Near > 0 {
		c.Near = set.Near
	}
	if set.Far > 0 {
		c.Far = set.Far
	}
	return &c
}

// reference is the body the meter follows against Tools.Truth (body
// Tools.TruthBody); nil without one.
func reference(set *Settings) *interp.Reference {
	if set.Tools.Truth == nil {
		return nil
	}
	return &interp.Reference{Body: set.Tools.TruthBody, Truth: set.Tools.Truth, Speed: set.Tools.TruthSpeed}
}

// frameLogRoom is how many frames Tools.FrameLog's log holds: a run of
// Runtime.Duration, or an hour, at 240 Hz or the emulated refresh if
// faster, and a thousand more.
func frameLogRoom(set *Settings) int {
	d := set.Duration
	if d <= 0 {
		d = time.Hour
	}
	return int(d.Seconds()*max(240, set.Display.Refresh)) + 1024
}

// Config returns the configuration the App was made with, as the flags
// left it.
func (a *App) Config() Config { return a.cfg }

// Settings returns the settings the App was made with, as the flags left
// them.
func (a *App) Settings() Settings { return a.set }

// simulation returns the simulation: its telemetry (ticks run, inputs dropped)
// may be read at any time, its input log and checkpoints once the run
// has returned.
func (a *App) simulation() *sim.Sim { return a.rt.Sim() }

// Renderer returns the renderer: in Finish, the registry and the last
// frame's figures.
func (a *App) Renderer() *renderer.Renderer { return a.rt.Renderer() }

// Camera returns the camera the last frame was drawn from.
func (a *App) Camera() renderer.Camera { return a.rt.Camera() }

// SaveFrame draws the last frame once more and saves it to path as a
// PNG: in Finish, the run's last frame.
func (a *App) SaveFrame(path string) error { return a.rt.SaveFrame(path) }

// meter returns the animation-error meter, nil without Tools.Truth.
func (a *App) meter() *interp.Meter {
	if m := a.rt.Pipeline().Meter(); m != nil {
		return m.Meter
	}
	return nil
}

// run runs the frame loop (loop.App.Run): it starts the simulation and
// draws frames until the window is closed, Esc is pressed, ctx is done or
// Runtime.Duration has passed; then it stops the simulation, waits for
// it, and saves the last frame if asked (Tools.Screenshot). It returns
// the first error of the world, of GL or of saving.
func (a *App) run(ctx context.Context) error {
	if err := a.rt.Run(ctx); err != nil {
		return err
	}
	if a.set.Tools.Screenshot != "" {
		return a.rt.SaveFrame(a.set.Tools.Screenshot)
	}
	return nil
}

// close detaches the instruments, frees the renderer and closes the
// window. The App must not be used afterwards.
func (a *App) close() {
	if a.inst != nil {
		a.inst.Close()
	}
	a.rt.Close()
}
