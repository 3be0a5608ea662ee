package renderer_test

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"testing"
	"time"

	"github.com/tickframe/tickframe/renderer/gltf"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/platform"
	"github.com/tickframe/tickframe/platform/internal/refworld"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/renderer/internal/glnoop"
	"github.com/tickframe/tickframe/renderer/interp"
	"github.com/tickframe/tickframe/simthread"
)

// BenchmarkGLFrame measures Renderer.Draw with a real GL context, for a
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
		plan = planner.Plan(frame)
		if err := r.Draw(&plan, &cam, width, height); err != nil {
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
		if err := r.Draw(&plan, &cam, width, height); err != nil {
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

// BenchmarkFrameCPU measures the render thread's own CPU work in
// Renderer.Draw, apart from the driver's: after a warm-up with the real
// driver (every buffer grown, every draw item set up), it loads a driver
// that does nothing (renderer/internal/glnoop: every GL entry point is one
// C function that counts the call and returns 0) and times Frame, with the
// probe on as the app runs it, HUD hidden, into a 320×240 viewport.
//
// Under llvmpipe a GL call runs the software GPU on the CPU, so timing
// Draw with the real driver measures llvmpipe (BenchmarkGLFrame); on a
// GPU the driver's share is its own. What is left here is what the
// renderer decides and pays to ask for. ns/op is Frame alone: the Go code
// plus one cgo transition per GL call, gl-calls/op of them. Right after
// each frame the op makes as many glGetError calls through the same
// driver, timed apart (ns/glcall each): go-ns/op, the frame's time minus
// theirs, is the renderer's Go work alone (slightly over, as calls with
// arguments cost a little more than glGetError).
//
// meshes=1 draws every body as a cube; meshes=8 draws eight meshes, each
// with its own textured material, the bodies interleaved so that every
// snapshot needs the counting sort. snapshot=none: frames between two
// snapshots already uploaded, alpha moving, as on a display faster than
// the tick rate. snapshot=new: every frame gets a newer snapshot (the
// plan's older one is the previous frame's newer), so it pays the
// per-snapshot grouping, O(bodies); the driver's copy of the bodies is a
// no-op here.
func BenchmarkFrameCPU(b *testing.B) {
	if os.Getenv("DISPLAY") == "" {
		b.Skip("needs a display: run `make test`, which starts Xvfb, or set DISPLAY")
	}
	for _, snap := range []string{"none", "new"} {
		for _, meshes := range []int{1, 8} {
			for _, size := range []struct {
				name string
				n    int
			}{{"1k", 1_000}, {"10k", 10_000}} {
				b.Run(fmt.Sprintf("snapshot=%s/meshes=%d/bodies=%s", snap, meshes, size.name), func(b *testing.B) {
					var err error
					platform.Call(func() {
						var w *platform.Window
						w, err = platform.Open(platform.Config{Title: b.Name(), Width: 320, Height: 240})
						if err != nil {
							return
						}
						defer w.Close()
						err = frameCPU(b, meshes, size.n, snap == "new")
					})
					if err != nil {
						b.Fatal(err)
					}
				})
			}
		}
	}
}

func frameCPU(b *testing.B, meshes, n int, fresh bool) error {
	r, err := renderer.New(simthread.DefaultHistory, renderer.Options{Samples: -1, Probe: true})
	if err != nil {
		return err
	}
	defer r.Delete()
	r.HUD().Visible = false
	ids := []simthread.MeshID{0}
	for k := 1; k < meshes; k++ {
		tex := solid(16, 16, color.NRGBA{uint8(30 * k), 200, uint8(255 - 30*k), 255})
		mat, err := r.AddMaterial(gltf.Material{BaseColor: mgl32.Vec4{1, 1, 1, 1}, Roughness: 0.5, BaseColorTexture: tex})
		if err != nil {
			return err
		}
		p := quad()
		if k%2 == 0 {
			p = pyramid()
		}
		p.Material = mat
		id, err := r.AddMesh(p)
		if err != nil {
			return err
		}
		ids = append(ids, id)
	}
	// Two snapshots of the same bodies, apart: the frames alternate them.
	var snaps [2]*simthread.Snapshot
	for k := range snaps {
		bodies := make([]simthread.Body, n)
		for i := range bodies {
			a := float64(i)*0.37 + float64(k)*0.01
			bodies[i] = simthread.Body{
				Pos:   mgl32.Vec3{float32(8 * math.Cos(a)), 1 + float32(i%7), float32(8 * math.Sin(a))},
				Rot:   mgl32.QuatRotate(float32(a), mgl32.Vec3{0, 1, 0}),
				Scale: simthread.UniformScale(0.1), Color: 0xff9090ff, Mesh: ids[i%len(ids)],
			}
		}
		snaps[k] = &simthread.Snapshot{Tick: uint64(k + 1), Time: time.Duration(k+1) * 10 * time.Millisecond, Bodies: bodies}
	}
	cam := renderer.DefaultCamera()
	plan := interp.Plan{Prev: snaps[0], Next: snaps[1], PrevSeq: 1, NextSeq: 2, Alpha: 0.5, Ready: true}
	// With the real driver: the buffers grow, the draw items are set up.
	for range 4 {
		if err := r.Draw(&plan, &cam, 320, 240); err != nil {
			return err
		}
	}
	if want := len(ids); r.DrawCalls() != want {
		return fmt.Errorf("%d draw calls for %d meshes", r.DrawCalls(), want)
	}
	gl.Finish()

	if err := gl.InitWithProcAddrFunc(glnoop.ProcAddr); err != nil {
		return err
	}
	defer gl.Init() // the real driver back, before anything else draws
	seq := plan.NextSeq
	step := func(i int) error {
		if fresh {
			// The newer snapshot becomes the older; a new one arrives.
			seq++
			plan.Prev, plan.Next = plan.Next, plan.Prev
			plan.PrevSeq, plan.NextSeq = plan.NextSeq, seq
		} else {
			plan.Alpha = float32(i%64) / 64
		}
		return r.Draw(&plan, &cam, 320, 240)
	}
	// A few frames first: the probe gives up the read-backs the real
	// driver left in flight, which costs calls the steady state does not.
	const settle = 8
	for i := range settle {
		if err := step(i); err != nil {
			return err
		}
	}
	c0 := glnoop.Calls()
	if err := step(settle); err != nil {
		return err
	}
	calls := int(glnoop.Calls() - c0)
	// Each op times a frame, then as many glGetError calls as the frame
	// made GL calls: the same cgo transitions, alone. Timed back to back,
	// both see the same machine, so their difference, the renderer's Go
	// work, holds up when other processes load it.
	var frameNs, callNs int64
	i := settle + 1
	b.ReportAllocs()
	for b.Loop() {
		t0 := time.Now()
		if err := step(i); err != nil {
			return err
		}
		t1 := time.Now()
		for range calls {
			gl.GetError()
		}
		t2 := time.Now()
		frameNs += t1.Sub(t0).Nanoseconds()
		callNs += t2.Sub(t1).Nanoseconds()
		i++
	}
	ops := float64(b.N)
	b.ReportMetric(float64(frameNs)/ops, "ns/op")
	b.ReportMetric(float64(calls), "gl-calls/op")
	b.ReportMetric(float64(callNs)/ops/float64(calls), "ns/glcall")
	b.ReportMetric(float64(frameNs-callNs)/ops, "go-ns/op")
	return nil
}
