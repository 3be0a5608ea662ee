package renderer_test

import (
	"fmt"
	"image/color"
	"strings"
	"sync"
	"testing"

	"github.com/tickframe/tickframe/renderer/gltf"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/platform"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/simthread"
)

// isColour reports whether c is within 3 of the sRGB encoding of the
// linear colour lin.
func isColour(c color.RGBA, lin mgl32.Vec3) bool {
	return near(c, color.RGBA{srgb(float64(lin[0])), srgb(float64(lin[1])), srgb(float64(lin[2])), 255}, 3)
}

// TestRegistryQueuesFromAnyGoroutine queues meshes, materials and static
// bodies from goroutines other than the render thread, before and after
// the renderer exists, interleaved with the render thread's own AddModel
// and AddMaterial: every id that comes back draws what it was handed out
// for (a body of each queued material shows its colour; the materials
// registered after the model are not shifted by its two); a static body
// is drawn in every frame, also one whose snapshot has no bodies, until
// ClearStatic; a queued material whose shader does not compile makes the
// next Frame fail once, naming it, and draws as the default.
func TestRegistryQueuesFromAnyGoroutine(t *testing.T) {
	m := twoQuads(t)
	reg := renderer.NewRegistry()
	colours := []mgl32.Vec3{{0.8, 0.1, 0.05}, {0.1, 0.7, 0.2}, {0.1, 0.2, 0.9}, {0.9, 0.8, 0.1}}
	before, err := reg.AddMaterial(unlit(colours[0].Vec4(1), nil))
	if err != nil {
		t.Fatal(err)
	}
	sphere, err := reg.AddMesh(renderer.SphereMesh(24, 12))
	if err != nil {
		t.Fatal(err)
	}
	if before != 1 || sphere != 1 {
		t.Fatalf("a fresh registry handed out material %d and mesh %d, want 1 and 1", before, sphere)
	}
	if _, err := reg.AddMesh(); err == nil {
		t.Error("AddMesh queued no parts")
	}
	if _, err := reg.AddMesh(renderer.Part{Positions: []mgl32.Vec3{{0, 0, 0}}, Indices: []uint32{0, 0, 0}, Material: 99}); err == nil {
		t.Error("AddMesh queued a part naming material 99, never handed out")
	}
	onMain(t, func(*platform.Window) error {
		r, err := renderer.New(simthread.DefaultHistory, renderer.Options{Samples: -1, Registry: reg})
		if err != nil {
			return err
		}
		defer r.Delete()
		r.HUD().Visible = false
		if _, err := renderer.New(simthread.DefaultHistory, renderer.Options{Samples: -1, Registry: reg}); err == nil {
			return fmt.Errorf("a second renderer took the same registry")
		}
		model, err := r.AddModel(m, renderer.FitCube(m.Bounds))
		if err != nil {
			return err
		}
		// Queued from a goroutine while the render thread registers.
		var wg sync.WaitGroup
		var queued [2]simthread.MaterialID
		var qerr error
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range queued {
				id, err := reg.AddMaterial(unlit(colours[1+i].Vec4(1), nil))
				if err != nil {
					qerr = err
				}
				queued[i] = id
			}
			reg.AddStatic(simthread.Body{Pos: mgl32.Vec3{3, 5, 0}, Scale: simthread.UniformScale(0.5), Color: simthread.White, Material: before})
		}()
		direct, err := r.AddMaterial(unlit(colours[3].Vec4(1), nil))
		if err != nil {
			return err
		}
		wg.Wait()
		if qerr != nil {
			return qerr
		}
		broken, err := reg.AddMaterial(gltf.Material{BaseColor: mgl32.Vec4{1, 1, 1, 1}, Shader: "missing.frag", ShaderFS: unlitFS})
		if err != nil {
			return err
		}
		ids := map[simthread.MaterialID]bool{before: true, queued[0]: true, queued[1]: true, direct: true, broken: true}
		if len(ids) != 5 {
			return fmt.Errorf("material ids %v %v %v %v collide", before, queued, direct, broken)
		}
		cam := frontCamera()
		ball := func(x float32, mat simthread.MaterialID) simthread.Body {
			return simthread.Body{Pos: mgl32.Vec3{x, 5, 0}, Scale: simthread.UniformScale(0.5), Color: simthread.White, Mesh: sphere, Material: mat}
		}
		bodies := []simthread.Body{ball(-3, before), ball(-1.5, queued[0]), ball(0, queued[1]), ball(1.5, direct),
			ball(-3, broken), {Pos: mgl32.Vec3{0, 2, 0}, Scale: simthread.UniformScale(2.5), Color: simthread.White, Mesh: model}}
		bodies[4].Pos[1] = 7
		s := newScene()
		s.publish(1, bodies)
		plan := s.newest()
		if err := r.Draw(&plan, &cam, width, height); err == nil || !strings.Contains(err.Error(), "missing.frag") ||
			!strings.Contains(err.Error(), fmt.Sprintf("material %d is drawn as the default", broken)) {
			return fmt.Errorf("the frame after a broken material was queued returned %v", err)
		}
		img, err := render(r, plan, cam)
		if err != nil {
			return fmt.Errorf("the failure was reported twice: %w", err)
		}
		for i, b := range bodies[:4] {
			got, err := pixelAt(img, cam, b.Pos.Add(mgl32.Vec3{0, 0, 0.5}))
			if err != nil {
				return err
			}
			want := colours[i]
			if !isColour(got, want) {
				return fmt.Errorf("ball %d (material %d) is %v, want linear %v%s", i, b.Material, got, want, saveFailure(img))
			}
		}
		if got, _ := pixelAt(img, cam, bodies[4].Pos.Add(mgl32.Vec3{0, 0, 0.5})); max(got.R, got.G, got.B)-min(got.R, got.G, got.B) > 20 || got.R < 60 {
			return fmt.Errorf("the ball of the broken material is %v, want the default material's lit white%s", got, saveFailure(img))
		}
		static := mgl32.Vec3{3, 5, 0.5}
		if got, _ := pixelAt(img, cam, static); !isColour(got, colours[0]) {
			return fmt.Errorf("the static body is %v%s", got, saveFailure(img))
		}
		// Snapshots without bodies: the static body is still drawn; after
		// ClearStatic it is not.
		for k := range 3 {
			if k == 2 {
				reg.ClearStatic()
			}
			img, err := drawBodies(r, s, cam, nil)
			if err != nil {
				return err
			}
			got, _ := pixelAt(img, cam, static)
			if shown := isColour(got, colours[0]); shown != (k < 2) {
				return fmt.Errorf("frame %d of an empty snapshot: the static body's pixel is %v%s", k, got, saveFailure(img))
			}
		}
		return gl2err(gl.GetError())
	})
}

// TestGroundRect bounds the ground to a 4 m square and looks down on it:
// inside, the ground; outside, the clear colour, which the default ground
// covers.
func TestGroundRect(t *testing.T) {
	onMain(t, func(*platform.Window) error {
		r, err := newTestRenderer()
		if err != nil {
			return err
		}
		defer r.Delete()
		cam := renderer.DefaultCamera()
		cam.Target, cam.Yaw, cam.Pitch, cam.Distance = mgl32.Vec3{}, 0, 1.2, 12
		s := newScene()
		clear := color.RGBA{14, 15, 19, 255} // the renderer's clear colour, sRGB (0.055, 0.06, 0.075)
		for _, c := range []struct {
			bounded   bool
			in, out   mgl32.Vec3
			outGround bool
		}{
			{false, mgl32.Vec3{0, 0, 0}, mgl32.Vec3{3, 0, 0}, true},
			{true, mgl32.Vec3{1.7, 0, 1.2}, mgl32.Vec3{2.5, 0, 0}, false},
		} {
			if c.bounded {
				if err := r.SetGroundRect(mgl32.Vec2{-2, -2}, mgl32.Vec2{2, 2}); err != nil {
					return err
				}
			}
			img, err := drawBodies(r, s, cam, nil)
			if err != nil {
				return err
			}
			in, err := pixelAt(img, cam, c.in)
			if err != nil {
				return err
			}
			out, err := pixelAt(img, cam, c.out)
			if err != nil {
				return err
			}
			if near(in, clear, 4) || near(out, clear, 4) == c.outGround {
				return fmt.Errorf("bounded %v: inside %v, outside %v (clear %v)%s", c.bounded, in, out, clear, saveFailure(img))
			}
		}
		if err := r.SetGroundRect(mgl32.Vec2{1, 0}, mgl32.Vec2{0, 1}); err == nil {
			return fmt.Errorf("SetGroundRect took an empty rectangle")
		}
		return gl2err(gl.GetError())
	})
}

// TestStaticFrameDoesNotAllocate draws frames with static bodies of two
// materials beside a snapshot's and an empty queue: no allocation.
func TestStaticFrameDoesNotAllocate(t *testing.T) {
	onMain(t, func(*platform.Window) error {
		r, err := newTestRenderer()
		if err != nil {
			return err
		}
		defer r.Delete()
		reg := r.Registry()
		red, _ := reg.AddMaterial(unlit(mgl32.Vec4{1, 0, 0, 1}, nil))
		ball, _ := reg.AddMesh(renderer.SphereMesh(12, 6))
		var statics []simthread.Body
		for i := range 40 {
			statics = append(statics, simthread.Body{Pos: mgl32.Vec3{float32(i%8) - 4, 3 + float32(i/8), 0}, Scale: simthread.UniformScale(0.3),
				Mesh: ball * simthread.MeshID(i%2), Material: red * simthread.MaterialID(i%3%2)})
		}
		reg.AddStatic(statics...)
		s := newScene()
		s.publish(1, []simthread.Body{{Pos: mgl32.Vec3{0, 5, 0}}})
		plan := s.newest()
		cam := frontCamera()
		var ferr error
		frame := func() {
			if err := r.Draw(&plan, &cam, width, height); err != nil && ferr == nil {
				ferr = err
			}
		}
		for range 5 {
			frame()
		}
		if n := testing.AllocsPerRun(50, frame); n != 0 {
			return fmt.Errorf("a frame with static bodies allocates %v times", n)
		}
		return ferr
	})
}

// TestStaticDrawsAsASnapshotBody draws a rotated, non-uniformly scaled,
// tinted cube as a static body alone, then the same body in a snapshot
// alone, and compares the two frames pixel for pixel (the static poses
// are computed on the CPU, the snapshot's by the interpolation pass): at
// most a few edge pixels may differ, by rounding. A zero Scale and Rot
// draw alike too.
func TestStaticDrawsAsASnapshotBody(t *testing.T) {
	onMain(t, func(*platform.Window) error {
		r, err := newTestRenderer()
		if err != nil {
			return err
		}
		defer r.Delete()
		flat, err := r.AddMaterial(unlit(mgl32.Vec4{0.9, 0.8, 0.7, 1}, nil))
		if err != nil {
			return err
		}
		cam := frontCamera()
		s := newScene()
		for _, body := range []simthread.Body{
			{Pos: mgl32.Vec3{0.3, 5, 0}, Rot: mgl32.QuatRotate(0.6, mgl32.Vec3{0.3, 1, 0.2}.Normalize()), Scale: mgl32.Vec3{1.2, 0.5, 0.8},
				Color: simthread.RGB(200, 120, 60), Material: flat},
			{Pos: mgl32.Vec3{-0.4, 5.2, 0}, Color: simthread.RGB(90, 200, 140), Material: flat},
		} {
			empty, err := drawBodies(r, s, cam, nil)
			if err != nil {
				return err
			}
			r.Registry().AddStatic(body)
			static, err := drawBodies(r, s, cam, nil)
			if err != nil {
				return err
			}
			r.Registry().ClearStatic()
			snap, err := drawBodies(r, s, cam, []simthread.Body{body})
			if err != nil {
				return err
			}
			differ, covered := 0, 0
			for y := range height {
				for x := range width {
					if snap.RGBAAt(x, y) != empty.RGBAAt(x, y) {
						covered++ // the body's pixels
					}
					if !near(static.RGBAAt(x, y), snap.RGBAAt(x, y), 1) {
						differ++
					}
				}
			}
			if covered < 1000 || differ > 20 {
				return fmt.Errorf("body %+v: %d pixels differ between its frame as a static body and as a snapshot body (%d covered)%s%s",
					body, differ, covered, saveFailure(static), saveFailure(snap))
			}
		}
		return gl2err(gl.GetError())
	})
}
