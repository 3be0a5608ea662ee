// Package app runs a tickframe application with everything an app has:
// the runtime (package loop: a World of yours stepped at a fixed rate on
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
// Main parses the flags every app has (Flags), runs (Run) and exits 0, 1
// on a failure at run time, or 2 on a bad flag or setting, which Run
// finds before any window opens. Run is the same without the flags and
// the exit; it writes the timing report, the frame log, the plot, the
// profiles and the recording asked for on every path out, and the world may be read again
// once it returns (or in Config.Finish). New, App.Run and Close are the
// steps Run takes. Main, Run and New must be called on the main goroutine:
// package platform locks it to the main thread, where GLFW and OpenGL
// must run. An app that wants none of the instruments runs a loop.App.
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
	"flag"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/tickframe/tickframe/platform"
	"github.com/tickframe/tickframe/platform/internal/instrument"
	"github.com/tickframe/tickframe/platform/internal/loop"
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

// The runtime's settings, named here as the flags and the package doc
// name them (package loop has the fields' documentation).
type (
	Look        = loop.Look
	Mouse       = loop.Mouse
	Display     = loop.Display
	KeyMap      = loop.KeyMap
	LatencyMode = loop.LatencyMode
)

// The instruments' types, named here as Config.Finish and Config.Tools
// name them (package instrument has their documentation).
type (
	Report       = instrument.Report
	PresentFault = instrument.PresentFault
)

// Ground is the ground plane (loop.Ground): its zero value is the default
// 400 m square, shown, ready to use in Look.
type Ground = loop.Ground

// The latency modes (loop.LatencyMode).
const (
	LowLatency = loop.LowLatency
	Throughput = loop.Throughput
)

// DefaultKeys returns the keys the app reserves unless Config.Keys says
// otherwise: Esc, Space, F, V, H and F12.
func DefaultKeys() KeyMap { return loop.DefaultKeys() }

// ParseLatency parses "low" or "throughput".
func ParseLatency(s string) (LatencyMode, error) { return loop.ParseLatency(s) }

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

// App is a running tickframe application: the runtime (loop.App, whose
// methods it has) with the instruments Config.Tools asks for attached.
// Its methods must be called on the main thread.
type App struct {
	*loop.App
	cfg   Config
	world simthread.World
	inst  *instrument.Set
}

// New opens the window, creates the renderer and the simulation for world,
// and attaches the instruments. The world belongs to the simulation from
// now on. New must be called on the main thread.
func New(cfg Config, world simthread.World) (*App, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := cfg.Tools.PresentFault.Validate(); err != nil {
		return nil, err
	}
	rc, react := cfg.runtime(), &instrument.Reactions{}
	if cfg.Tools.Marker {
		rc.Input = react.Input(rc.Input) // the reaction patch's count
	}
	la, err := loop.New(rc, world)
	if err != nil {
		return nil, err
	}
	a := &App{App: la, cfg: cfg, world: world}
	// The marker is drawn before anything holds the swap back; the
	// instruments read the render thread's wait last before the swap.
	if cfg.Tools.Marker {
		la.Attach(instrument.Marker(la, react))
	}
	if cfg.Tools.PresentFault != (PresentFault{}) {
		la.Attach(cfg.Tools.PresentFault.Hook(react))
	}
	o := instrument.Options{}
	if cfg.Tools.FrameLog != "" {
		o.FrameLog = frameLogRoom(&cfg)
	}
	a.inst = instrument.New(la, o)
	la.Attach(a.inst)
	return a, nil
}

// Report returns the figures of the run (instrument.Set.Report). Call it
// after Run has returned: the simulation has stopped, so the world may be
// read.
func (a *App) Report() *Report { return a.inst.Report(a.world) }

// WritePlot draws the frame intervals and the animation error of the run
// over time as PNG or SVG by path's extension, titled with r's figures
// (instrument.Set.WritePlot). Call it after Run.
func (a *App) WritePlot(path string, r *Report) error { return a.inst.WritePlot(path, r) }

// runtime is the runtime's part of cfg: the instruments read back body 0
// and time each frame on the GPU, so that what was drawn and when it was
// shown are measured, not assumed.
func (cfg *Config) runtime() loop.Config {
	return loop.Config{Title: cfg.Title, Width: cfg.Width, Height: cfg.Height, Sim: cfg.Sim, Scene: cfg.Scene,
		Camera: cfg.Camera, Look: cfg.Look, Input: cfg.Input, Keys: cfg.Keys, Mouse: cfg.Mouse, Display: cfg.Display,
		Duration: cfg.Tools.Duration, ScreenshotDir: cfg.Tools.ScreenshotDir, Reference: cfg.reference(), Probe: true}
}

// reference is the body the meter follows against Tools.Truth (body
// Tools.TruthBody); nil without one.
func (cfg *Config) reference() *interp.Reference {
	if cfg.Tools.Truth == nil {
		return nil
	}
	return &interp.Reference{Body: cfg.Tools.TruthBody, Truth: cfg.Tools.Truth, Speed: cfg.Tools.TruthSpeed}
}

// Pipeline returns the chain from the world to the plans that New builds
// for cfg (loop.Config.Pipeline), the same as the verifier checks.
func (cfg Config) Pipeline() interp.PipelineConfig {
	rc := cfg.runtime()
	return rc.Pipeline()
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

// Config returns the configuration the App was made with.
func (a *App) Config() Config { return a.cfg }

// Meter returns the animation-error meter, nil without Config.Tools.Truth.
func (a *App) Meter() *interp.Meter {
	if m := a.Pipeline().Meter(); m != nil {
		return m.Meter
	}
	return nil
}

// Run runs the frame loop (loop.App.Run): it starts the simulation and
// draws frames until the window is closed, Esc is pressed, ctx is done or
// Config.Tools.Duration has passed; then it stops the simulation, waits
// for it, and saves the last frame if asked (Tools.Screenshot). It returns
// the first error of the world, of GL or of saving.
func (a *App) Run(ctx context.Context) error {
	if err := a.App.Run(ctx); err != nil {
		return err
	}
	if a.cfg.Tools.Screenshot != "" {
		return a.SaveFrame(a.cfg.Tools.Screenshot)
	}
	return nil
}

// Close detaches the instruments, frees the renderer and closes the
// window. The App must not be used afterwards.
func (a *App) Close() {
	a.inst.Close()
	a.App.Close()
}
