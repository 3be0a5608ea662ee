package tickframe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/tickframe/tickframe/platform"
	"github.com/tickframe/tickframe/platform/app"
	"github.com/tickframe/tickframe/platform/internal/outfile"
	"github.com/tickframe/tickframe/platform/internal/sched"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/renderer/gltf"
	"github.com/tickframe/tickframe/simthread"
	"github.com/tickframe/tickframe/simthread/record"
	"github.com/tickframe/tickframe/simthread/refworld"
)

// worldName names the reference world in recordings.
const worldName = "refworld"

// demo runs the demo with o on app.Run, the path every app takes.
// Whatever happens after the flags are checked, every file asked for is
// written before it returns.
func demo(o *options, stdout, stderr io.Writer) (err error) {
	var rec *record.Log
	if o.replay != "" {
		if rec, err = loadReplay(o); err != nil {
			return err
		}
	}
	model, err := loadModel(o.model)
	if err != nil {
		return err
	}
	// SIGINT, SIGTERM and SIGHUP end the run like closing the window
	// does. A second one, once this returns, kills the process as usual.
	ctx, stopSignals := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stopSignals()
	// The demo's own services stop in reverse order of starting, on
	// every path out; app.Run writes the files.
	stop, err := startServices(ctx, o, stderr)
	defer func() {
		if serr := stop(); err == nil {
			err = serr
		}
	}()
	if err != nil {
		return err
	}
	// A panic below becomes an error, so that the deferred stops happen.
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("internal error: %v", p)
		}
	}()
	world, err := refworld.New(o.bodies, o.seed)
	if err != nil {
		return err
	}
	if rec != nil && rec.FinalTick == 0 {
		// The recorded run stopped before its first tick: nothing to
		// step or show, the world as built is what it recorded.
		if err := rec.Verify(nil, 0, world.Hash()); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "tickframe: replay matches the recording: it ends at tick 0 (the recorded run stopped before its first tick), state hash %016x\n", rec.FinalHash)
		return nil
	}
	if model != nil {
		world.SetMesh(modelMesh, 0) // every body, with the model's own materials
	}
	var w simthread.World = world
	if o.stepCost > 0 {
		w = &costlyWorld{World: world, cost: o.stepCost}
	}
	cfg := appConfig(o, simConfig(o, rec), model)
	cfg.Scene = lightScene(o, world, model, cfg.Scene, stderr)
	presentConfig(o, &cfg)
	cfg.Finish = func(a *app.App, r *app.Report, runErr error) error {
		// The world has stopped: it may be read here.
		r.Extra = loads(o)
		var errs []error
		if o.record != "" {
			errs = append(errs, saveRecording(o, a.Sim(), world, stdout))
		}
		if rec != nil && runErr == nil {
			errs = append(errs, checkReplay(rec, a.Sim(), world, stdout))
		}
		return errors.Join(errs...)
	}
	return app.Run(ctx, cfg, w)
}

// softBodies is the demo's scene where a software rasterizer draws it
// (llvmpipe: make run's Xvfb, a machine without a GPU): 4096 bodies at
// 1280×720 drew 24.6 fps there, a newcomer's first screenshot of a
// product about timing; this many keep up with the display.
const softBodies = 256

// lightScene returns the Scene that, on a software rasterizer, swaps the
// world for one of softBodies bodies before the simulation starts, unless
// -bodies was given or a recording is replayed (it names its size), and
// says so with the flag that asks for the full scene; then it calls next.
// New calls it once the renderer exists, before the world's first tick.
func lightScene(o *options, world *refworld.World, model *gltf.Model, next func(*renderer.Renderer) error, stderr io.Writer) func(*renderer.Renderer) error {
	return func(r *renderer.Renderer) error {
		if r.Software() && !o.set["bodies"] && o.replay == "" && o.bodies > softBodies {
			light, err := refworld.New(softBodies, o.seed)
			if err != nil {
				return err
			}
			*world = *light // the simulation has not started: nothing has read the world yet
			if model != nil {
				world.SetMesh(modelMesh, 0)
			}
			fmt.Fprintf(stderr, "tickframe: a software rasterizer draws this window: %d bodies instead of %d, to keep up with the display (-bodies %d draws them all)\n",
				softBodies, o.bodies, o.bodies)
			o.bodies = softBodies // what a recording says
		}
		if next != nil {
			return next(r)
		}
		return nil
	}
}

// startServices starts what the demo runs beside the app: the pprof
// server and the loads. stop stops what started, last first, and returns
// the first error; it must be called whatever startServices returned.
func startServices(ctx context.Context, o *options, stderr io.Writer) (stop func() error, err error) {
	var closers []func() error
	stop = func() error {
		var first error
		for i := len(closers) - 1; i >= 0; i-- {
			if cerr := closers[i](); cerr != nil && first == nil {
				first = cerr
			}
		}
		closers = nil
		return first
	}
	if o.pprofAddr != "" {
		s, err := servePprof(o.pprofAddr, stderr)
		if err != nil {
			return stop, err
		}
		closers = append(closers, s)
	}
	if o.stress > 0 || o.gcPressureMB > 0 {
		l := startLoad(ctx, o.stress, o.gcPressureMB)
		closers = append(closers, func() error { l.stop(); return nil })
	}
	return stop, nil
}

// simConfig is the simulation's configuration for o, replaying rec if
// set.
func simConfig(o *options, rec *record.Log) simthread.Config {
	simCfg := simthread.Config{
		Timing: simthread.Timing{Rate: o.hz, MaxSteps: o.maxSteps, MaxDelta: o.maxDelta, Overload: o.overload},
		InitSnapshot: func(s *simthread.Snapshot) {
			s.Bodies = make([]simthread.Body, 0, o.bodies) // publishing never allocates
		},
	}
	if o.record != "" {
		simCfg.Record = true
		simCfg.CheckpointEvery = uint64(o.hz) // once a second
	}
	if rec != nil {
		rc := rec.ReplayConfig()
		simCfg.Replay, simCfg.StopAfter, simCfg.CheckpointEvery = rc.Replay, rc.StopAfter, rc.CheckpointEvery
	}
	return simCfg
}

// appConfig is the app's configuration for o.
func appConfig(o *options, simCfg simthread.Config, model *gltf.Model) app.Config {
	spin := o.spin
	if spin == 0 {
		spin = -1 // app: none
	}
	return app.Config{
		Title:  appWindowTitle,
		Width:  o.width,
		Height: o.height,
		Sim:    simCfg,
		Input:  inputFor,
		Scene:  modelScene(model),
		Look:   app.Look{HideHUD: !o.hud},
		Display: app.Display{
			Fullscreen:           o.fullscreen,
			NoVSync:              !o.vsync,
			Samples:              samples(o),
			Refresh:              o.refresh,
			Latency:              o.latency,
			Motion:               o.motion,
			Delay:                o.delay,
			Spin:                 spin,
			Sched:                schedConfig(o),
			KeepRunningUnfocused: !o.focusPause,
		},
		Tools: app.Tools{
			Duration:   o.duration,
			Screenshot: o.screenshot,
			Report:     o.report,
			Plot:       o.plot,
			CPUProfile: o.cpuProfile,
			Trace:      o.tracePath,
			MemProfile: o.memProfile,
			Truth:      refworld.RefPosition,
			TruthSpeed: refworld.RefSpeed,
		},
	}
}

// schedConfig maps -headroom, -bgnice, -critnice, -critslice, -critrt and
// -brokerrt to sched.Config.
func schedConfig(o *options) sched.Config {
	c := sched.Config{Headroom: o.headroom, BackgroundNice: o.bgNice, CriticalNice: o.critNice, CriticalSlice: o.critSlice, CriticalRT: o.critRT, BrokerRT: o.brokerRT}
	if c.CriticalSlice == 0 {
		c.CriticalSlice = -1 // do not ask
	}
	if c.Headroom == 0 {
		c.Headroom = -1 // no headroom asked: leave GOMAXPROCS alone
	}
	if c.CriticalNice == 0 {
		c.CriticalNice = 1 // do not ask
	}
	return c
}

// samples maps -msaa to app.Config.Display.Samples: the renderer's automatic choice
// unless the flag was given, -1 for 0 (off).
func samples(o *options) int {
	switch {
	case !o.set["msaa"]:
		return 0
	case o.msaa == 0:
		return -1
	}
	return o.msaa
}

func nonNil(errs []error) []error {
	var out []error
	for _, e := range errs {
		if e != nil {
			out = append(out, e)
		}
	}
	return out
}

// inputFor turns the demo's keys into world inputs: R resets the scene
// (a teleport: no streaks), K kicks every body upwards, N spawns 256 more.
func inputFor(e platform.Event) (simthread.Input, bool) {
	if e.Kind != platform.KeyEvent || e.Action != platform.Press {
		return simthread.Input{}, false
	}
	switch e.Key {
	case platform.KeyR:
		return simthread.Input{Kind: refworld.Reset}, true
	case platform.KeyK:
		return simthread.Input{Kind: refworld.Kick, X: 4}, true
	case platform.KeyN:
		return simthread.Input{Kind: refworld.Spawn, Code: 256}, true
	}
	return simthread.Input{}, false
}

// loadReplay reads the recording and takes the world's settings from it.
func loadReplay(o *options) (*record.Log, error) {
	rec, err := record.ReadFile(o.replay)
	if err != nil {
		return nil, usagef("-replay: %v", err)
	}
	if rec.World != worldName {
		return nil, usagef("-replay %s: a recording of world %q, this demo runs %q", o.replay, rec.World, worldName)
	}
	for _, c := range []struct {
		flag       string
		given, got uint64
	}{
		{"hz", uint64(o.hz), uint64(rec.Rate)},
		{"bodies", uint64(o.bodies), uint64(rec.Bodies)},
		{"seed", o.seed, rec.Seed},
	} {
		if o.set[c.flag] && c.given != c.got {
			return nil, usagef("-%s %d conflicts with the recording's %d", c.flag, c.given, c.got)
		}
	}
	o.hz, o.bodies, o.seed = rec.Rate, rec.Bodies, rec.Seed
	// The recording's rate may make a -maxdelta given with it too short;
	// the default follows the rate.
	if err := maxDeltaIn(o.maxDelta, o.hz); err != nil {
		return nil, usagef("-replay %s: the recording runs at %d Hz: %v", o.replay, rec.Rate, err)
	}
	if o.bodies < 1 || o.bodies > refworld.MaxBodies {
		return nil, usagef("-replay %s: offset 14: the recording's %d bodies, out of the demo's range [1, %d]", o.replay, rec.Bodies, refworld.MaxBodies)
	}
	return rec, nil
}

// saveRecording writes the run's inputs, checkpoints and final hash, up
// to the last tick the world completed (simthread.Sim.Final): after a
// panic at tick T, T−1; tick 0 alone when the run stopped before its
// first tick.
func saveRecording(o *options, sim *simthread.Sim, world *refworld.World, stdout io.Writer) error {
	last, panicked, ok := sim.Final()
	if !ok {
		last = simthread.Checkpoint{Tick: 0, Hash: world.Hash()} // never started
	}
	log := &record.Log{
		Header: record.Header{
			World:           worldName,
			Build:           record.CurrentBuild(),
			Seed:            o.seed,
			Bodies:          o.bodies,
			Rate:            o.hz,
			CheckpointEvery: uint64(o.hz),
		},
		Inputs:      append([]simthread.TickInput{}, sim.InputLog()...),
		Checkpoints: sim.Checkpoints(),
		FinalTick:   last.Tick,
		FinalHash:   last.Hash,
	}
	if err := outfile.Write(o.record, func(w io.Writer) error { return record.Write(w, log) }); err != nil {
		return fmt.Errorf("record: %w", err)
	}
	if panicked {
		fmt.Fprintf(stdout, "tickframe: -record %s: recorded up to tick %d, the last before the world panicked; a replay stops there\n", o.record, last.Tick)
	}
	return nil
}

// checkReplay compares the replayed run with the recording.
func checkReplay(rec *record.Log, sim *simthread.Sim, world *refworld.World, stdout io.Writer) error {
	if !sim.Stopped() {
		return fmt.Errorf("replay stopped at tick %d, before the recording's end at tick %d: nothing verified", world.Tick(), rec.FinalTick)
	}
	if err := rec.Verify(sim.Checkpoints(), world.Tick(), world.Hash()); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "tickframe: replay matches the recording: %d inputs, %d checkpoints, final tick %d, state hash %016x\n",
		len(rec.Inputs), len(rec.Checkpoints), rec.FinalTick, rec.FinalHash)
	return nil
}

// servePprof serves net/http/pprof on addr until the returned function is
// called.
func servePprof(addr string, stderr io.Writer) (func() error, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("-pprof: %v", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Serve(ln)
	}()
	fmt.Fprintf(stderr, "tickframe: pprof at http://%s/debug/pprof/\n", ln.Addr())
	return func() error {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		err := srv.Shutdown(ctx)
		<-done
		return err
	}, nil
}
