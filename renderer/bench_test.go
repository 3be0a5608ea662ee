package renderer_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/tickframe/tickframe/platform"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/renderer/interp"
	"github.com/tickframe/tickframe/simthread"
	"github.com/tickframe/tickframe/simthread/refworld"
)

// BenchmarkGLFrame measures Renderer.Frame with a real GL context, for a
// frame that gets no new snapshot (nothing to upload) with the reference
// world at three sizes: one op is Frame plus gl.Finish, so that the work is
// not hidden in the driver's queue, into a 320×240 viewport without MSAA,
// HUD hidden. Alpha changes every op as it does between frames. probe=on
// adds the read-back of the reference body's pose and a GPU timestamp
// (Options.Probe), at 1k bodies only, as its cost does not depend on the
// body count.
//
// On a GPU the CPU's share of this is a handful of GL calls whatever the
// body count. Under Xvfb, Mesa's llvmpipe runs the vertex shading, the
// transform feedback and the rasterisation on the CPU (on its own threads,
// which ns/op includes as it is wall time), so here ns/op grows with the
// body count: it measures the software GPU, not the renderer's own CPU
// cost. Only platform/app's BenchmarkFrame, which stops at the GL calls,
// shows that the frame's own CPU work does not depend on the body count.
func BenchmarkGLFrame(b *testing.B) {
	if os.Getenv("DISPLAY") == "" {
		b.Skip("needs a display: run `make test`, which starts Xvfb, or set DISPLAY")
	}
	for _, size := range []struct {
		name string
		n    int
	}{{"1k", 1_000}, {"10k", 10_000}, {"100k", 100_000}} {
		for _, probe := range []bool{false, true} {
			if probe && size.n > 1_000 {
				continue // its cost is a 48-byte copy, a query and a fence, whatever the body count
			}
			name := fmt.Sprintf("bodies=%s/snapshot=none/probe=%s", size.name, map[bool]string{false: "off", true: "on"}[probe])
			b.Run(name, func(b *testing.B) {
				var err error
				// All of the benchmark's GL work, b.Loop included, runs in
				// one call on the main thread; it must not call b.Fatal there.
				platform.Call(func() {
					var w *platform.Window
					w, err = platform.Open(platform.Config{Title: b.Name(), Width: 320, Height: 240})
					if err != nil {
						return
					}
					defer w.Close()
					err = glFrames(b, size.n, 320, 240, probe)
				})
				if err != nil {
					b.Fatal(err)
				}
			})
		}
	}
}

// glFrames runs the simulation for a few ticks, drawing a frame after each
// so that every instance buffer is filled, then measures frames that draw
// the last plan again without a new snapshot. With probe, each frame also
// reads back the reference body's pose and a GPU timestamp, polling the
// records with Probed; the benchmark reports how many frames late they
// come (frames-late/record, 0 here as gl.Finish ends every op) and fails
// if any frame's record is missing.
func glFrames(b *testing.B, n, width, height int, probe bool) error {
	world, err := refworld.New(n, 1)
	if err != nil {
		return err
	}
	clock := new(simthread.VirtualClock)
	sim, err := simthread.New(simthread.Config{InitSnapshot: func(s *simthread.Snapshot) {
		s.Bodies = make([]simthread.Body, 0, n)
	}}, world, clock)
	if err != nil {
		return err
	}
	planner := interp.NewPlanner(sim.Snapshots(), interp.NewDelay(sim.Step(), 0))
	r, err := renderer.New(planner.Depth(), renderer.Options{Samples: -1, Probe: probe})
	if err != nil {
		return err
	}
	defer r.Delete()
	r.HUD().Visible = false
	cam := renderer.DefaultCamera()
	next, err := sim.Wake()
	var plan interp.Plan
	for range 2 * planner.Depth() {
		if err != nil {
			return err
		}
		clock.Set(next)
		frame := next
		next, err = sim.Wake()
		plan = planner.Frame(frame)
		if err := r.Frame(&plan, &cam, width, height); err != nil {
			return err
		}
	}
	if err != nil {
		return err
	}
	if !plan.Ready || plan.Prev == plan.Next {
		return fmt.Errorf("no bracketing pair after the warm-up: %+v", plan)
	}
	gl.Finish()
	for _, ok := r.Probed(); ok; _, ok = r.Probed() {
	}
	first := r.Frames() + 1
	var records, late uint64
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		plan.Alpha = float32(i%64) / 64
		i++
		if err := r.Frame(&plan, &cam, width, height); err != nil {
			return err
		}
		gl.Finish()
		for p, ok := r.Probed(); ok; p, ok = r.Probed() {
			records++
			late += r.Frames() - p.Frame
		}
	}
	if probe {
		if frames := r.Frames() - first + 1; records != frames {
			return fmt.Errorf("%d probe records for %d frames", records, frames)
		}
		b.ReportMetric(float64(late)/float64(max(records, 1)), "frames-late/record")
	}
	return nil
}
