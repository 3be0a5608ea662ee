package tickframe

import (
	"context"
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
	"github.com/tickframe/tickframe/platform/internal/refworld"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/renderer/gltf"
	"github.com/tickframe/tickframe/simthread"
)

// demo runs the demo as every app runs, on app.Run: the reference
// world is built once the flags are parsed (-bodies, -seed, those of a
// recording on -replay), the template records and replays it, and its
// report carries the demo's loads (Loads). The demo's own services (the
// pprof server, the loads) start with the world and stop before demo
// returns, on every path out; app.Run writes every file asked for.
func demo(d *demoFlags, stderr io.Writer) (err error) {
	o, cfg := d.o, d.cfg
	// SIGINT, SIGTERM and SIGHUP end the run like closing the window
	// does. A second one, once this returns, kills the process as usual.
	ctx, stopSignals := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stopSignals()
	stop := func() error { return nil }
	defer func() {
		if serr := stop(); err == nil {
			err = serr
		}
	}()
	// A panic below becomes an error, so that the deferred stops happen.
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("internal error: %v", p)
		}
	}()
	var world *refworld.World
	var seed uint64
	var model *gltf.Model
	// A replay takes the recording's size; a recording says the size the
	// run had (the template records -bodies as it ends).
	light := !o.bodiesGiven && d.set.Tools.Replay == ""
	cfg.Scene = func(r *renderer.Renderer) error {
		if err := lighten(r, o, world, seed, model, light, stderr); err != nil {
			return err
		}
		if scene := modelScene(model); scene != nil {
			return scene(r)
		}
		return nil
	}
	cfg.Finish = func(_ *app.App, r *app.Report, _ error) error {
		r.Extra = loads(o)
		return nil
	}
	return app.Run(ctx, cfg, nil, app.WithSettings(&d.set), app.WorldFunc(func(cfg app.Config) (simthread.World, error) {
		var err error
		if model, err = loadModel(o.model); err != nil {
			return nil, err
		}
		seed = cfg.Seed
		if world, err = refworld.New(o.bodies, seed); err != nil {
			return nil, err
		}
		if model != nil {
			world.SetMesh(modelMesh, 0) // every body, with the model's own materials
		}
		if stop, err = startServices(ctx, o, stderr); err != nil {
			return nil, err
		}
		if o.stepCost > 0 {
			return &costlyWorld{World: world, cost: o.stepCost}, nil
		}
		return world, nil
	}))
}

// softBodies is the demo's scene where a software rasterizer draws it
// (llvmpipe: make run's Xvfb, a machine without a GPU): 4096 bodies at
// 1280×720 drew 24.6 fps there, a newcomer's first screenshot of a
// product about timing; this many keep up with the display.
const softBodies = 256

// lighten swaps, on a software rasterizer, the world for one of
// softBodies bodies before the simulation starts, where light allows
// (-bodies not given, nothing replayed) and the world is
// larger, and says so with the flag that asks for the full scene. The
// Scene calls it once the renderer exists, before the world's first tick.
func lighten(r *renderer.Renderer, o *options, world *refworld.World, seed uint64, model *gltf.Model, light bool, stderr io.Writer) error {
	if !r.Software() || !light || o.bodies <= softBodies {
		return nil
	}
	small, err := refworld.New(softBodies, seed)
	if err != nil {
		return err
	}
	*world = *small // the simulation has not started: nothing has read the world yet
	if model != nil {
		world.SetMesh(modelMesh, 0)
	}
	fmt.Fprintf(stderr, "tickframe: a software rasterizer draws this window: %d bodies instead of %d, to keep up with the display (-bodies %d draws them all)\n",
		softBodies, o.bodies, o.bodies)
	o.bodies = softBodies // the snapshot's size
	return nil
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

// inputFor turns the demo's keys into world inputs: R resets the scene
// (a teleport: no streaks), K kicks every body upwards, N spawns 256 more.
func inputFor(e platform.Event) (simthread.Input, bool) {
	if e.Kind != platform.KeyEvent || e.Action != platform.Press {
		return simthread.Input{}, false
	}
	switch e.Key {
	case 'R':
		return simthread.Input{Kind: refworld.Reset}, true
	case 'K':
		return simthread.Input{Kind: refworld.Kick, X: 4}, true
	case 'N':
		return simthread.Input{Kind: refworld.Spawn, Code: 256}, true
	}
	return simthread.Input{}, false
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
