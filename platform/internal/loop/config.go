package loop

import (
	"fmt"
	"math"
	"time"

	"github.com/tickframe/tickframe/platform"
	"github.com/tickframe/tickframe/platform/internal/interp"
	"github.com/tickframe/tickframe/platform/internal/sched"
	"github.com/tickframe/tickframe/platform/internal/sim"
	"github.com/tickframe/tickframe/platform/internal/window"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/simthread"
)

// Config is what New runs: the game's part of package app's Config (its
// window, its simulation, scene, camera, look, input, keys and mouse) and
// the tuning knobs (Settings) the flags every app has set. Its zero value
// runs a 1280×720 window with vsync at the display's refresh and the
// simulation at 120 Hz. Package app's Config says more of each field.
type Config struct {
	// Title and the window's size (0: 1280×720). The title also names
	// the screenshots.
	Title         string
	Width, Height int
	// Sim configures the simulation goroutine.
	Sim simthread.Tuning
	// Scene, if set, is called once by New on the main thread right after
	// the renderer is created, before any frame and before the simulation
	// starts: register meshes and materials there. An error closes the
	// window and New returns it.
	Scene func(*renderer.Renderer) error
	// Camera, if set, is where the orbit camera starts; nil frames the
	// reference world (renderer.DefaultCamera).
	Camera *renderer.Camera
	// Look is the sky, the ground and the HUD at the start.
	Look Look
	// Input turns a key, button, cursor or scroll event into an input for
	// the world, applied at the start of the next tick (every event but
	// the reserved keys'). It runs on the main thread and must not block.
	Input func(platform.Event) (simthread.Input, bool)
	// Keys remaps or turns off the keys the app reserves; its zero value
	// is DefaultKeys().
	Keys KeyMap
	// Mouse is what the mouse does besides reaching Input.
	Mouse Mouse
	// Settings are the tuning knobs: how frames are made and paced, how
	// long to run, where screenshots go.
	Settings
}

// Settings are the runtime's tuning knobs, which the flags every app has
// set (package app's Settings holds them beside the instruments'): most
// apps leave them alone. Its zero value is vsync at the display's rate,
// low latency, interpolated motion, an adaptive render delay and the
// scheduling design's defaults, run until the window closes.
type Settings struct {
	// Display is how frames are made and paced.
	Display Display
	// Duration, if above 0, ends Run that long after the first frame.
	Duration time.Duration
	// ScreenshotDir is where the screenshot key saves its PNG files,
	// named after the title; "" is the working directory.
	ScreenshotDir string
}

// Look is the scene's look at the start: -clear, -ground, -groundsize and
// -hud set it.
type Look struct {
	// ClearColor is the sky, the colour every frame starts from, as
	// simthread.RGB makes it; 0 means the default near-black
	// (renderer.Options.ClearColor).
	ClearColor uint32
	// Ground is the ground plane the app starts with; its zero value is
	// the default, shown. Config.Scene may give it a material
	// (renderer.SetGround) or bound it (SetGroundRect).
	Ground Ground
	// HideHUD starts with the HUD hidden.
	HideHUD bool
}

// Ground is the ground plane: a square about the origin at y = 0 with a
// metre grid. Its zero value is the default 400 m square, shown.
type Ground struct {
	// Hidden leaves the ground out: the sky shows under the bodies. -ground=false sets it.
	Hidden bool
	// Size is the square's side in metres; 0 means 400. -groundsize sets it.
	Size float32
}

// DefaultGroundSize is the renderer's default ground square's side, metres.
const DefaultGroundSize = 400

// Mouse is what the mouse does besides reaching Config.Input.
type Mouse struct {
	// CaptureCursor hides and locks the cursor for the whole run, with
	// raw mouse motion where the system has it (mouse look). GLFW frees
	// it while the window is unfocused and takes it back on focus.
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
	// Fullscreen opens the window on the primary monitor at its current
	// video mode; NoVSync swaps with interval 0 instead of 1. The
	// reserved keys F and V toggle them while the app runs.
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
	// Motion is how bodies move between snapshots (renderer.MotionMode):
	// lerp and slerp (the zero value), Hermite with the bodies'
	// velocities, or Extrapolate, with no render delay.
	Motion renderer.MotionMode
	// Delay, if above 0, fixes the render delay instead of adapting it.
	Delay time.Duration
	// Spin is how long the simulation and the software pacer spin before
	// a deadline; 0 means sim.DefaultSpin, -1 none.
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

// MaxWindow is the largest window side platform opens.
const MaxWindow = 16384

// Validate reports the first setting out of range, without opening a
// window.
func (cfg *Config) Validate() error {
	switch {
	case cfg.Display.Refresh != 0 && !(cfg.Display.Refresh >= 1 && cfg.Display.Refresh <= window.MaxRefresh):
		return fmt.Errorf("loop: refresh rate %v Hz out of range [1, %d] (or 0 for the display's)", cfg.Display.Refresh, window.MaxRefresh)
	case cfg.Duration < 0:
		return fmt.Errorf("loop: negative duration %v", cfg.Duration)
	case cfg.Display.Delay < 0:
		return fmt.Errorf("loop: negative render delay %v", cfg.Display.Delay)
	case !(cfg.Width == 0 && cfg.Height == 0) && (cfg.Width < 1 || cfg.Height < 1 || cfg.Width > MaxWindow || cfg.Height > MaxWindow):
		return fmt.Errorf("loop: window size %dx%d out of range [1, %d] (or 0x0 for 1280x720)", cfg.Width, cfg.Height, MaxWindow)
	}
	if err := cfg.Display.Sched.Validate(); err != nil {
		return fmt.Errorf("loop: %w", err)
	}
	if err := cfg.Keys.Validate(); err != nil {
		return err
	}
	if err := cfg.Sim.Timing.Validate(); err != nil {
		return err
	}
	if c := cfg.Camera; c != nil && !(c.Near > 0 && c.Far > c.Near && finite32(c.Near, c.Far)) {
		return fmt.Errorf("loop: camera clip planes near %v m, far %v m: want 0 < near < far, both finite", c.Near, c.Far)
	}
	if s := cfg.Look.Ground.Size; s != 0 && !(s > 0 && finite32(s)) {
		return fmt.Errorf("loop: ground size %v m: want a positive, finite side (or 0 for %d m)", s, DefaultGroundSize)
	}
	return nil
}

func finite32(vs ...float32) bool {
	for _, v := range vs {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return false
		}
	}
	return true
}

// Pipeline returns the chain from the world to the plans that New builds
// for cfg, before the hooks add to it (Hook.Open: a meter's reference),
// the same as the verifier checks: the history sized for the delay's
// reach at one snapshot a step, the delay fixed or adaptive, and the
// motion mode.
func (cfg *Config) Pipeline() interp.PipelineConfig {
	return interp.PipelineConfig{Sim: cfg.Sim, Delay: cfg.Display.Delay, Motion: cfg.Display.Motion}
}

// newPipeline builds the simulation of world on clock and the chain from
// it to the plans, as pc asks: what New and NewHeadless run.
func newPipeline(pc interp.PipelineConfig, world simthread.World, clock sim.Clock) (*interp.Pipeline, error) {
	s, err := sim.New(pc.SimConfig(), world, clock)
	if err != nil {
		return nil, err
	}
	return interp.NewPipeline(pc, s)
}
