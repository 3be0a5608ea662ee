package renderer_test

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"os"
	"testing"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/platform"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/renderer/gltf"
	"github.com/tickframe/tickframe/simthread"
)

// denseModel is a glTF model of a UV sphere of about tris triangles, one
// primitive, decoded from the Builder's GLB: what `tickframe view` draws
// for a dense asset; textured, with a 512² base colour texture and a
// normal map (tangents computed), else of one plain colour.
func denseModel(tb testing.TB, tris int, textured bool) *gltf.Model {
	n := int(math.Sqrt(float64(tris) / 2))
	var p gltf.Primitive
	for i := range n + 1 {
		lat := math.Pi * float64(i) / float64(n)
		for j := range n + 1 {
			lon := 2 * math.Pi * float64(j) / float64(n)
			v := mgl32.Vec3{float32(math.Sin(lat) * math.Cos(lon)), float32(math.Cos(lat)), float32(math.Sin(lat) * math.Sin(lon))}
			p.Positions = append(p.Positions, v)
			p.Normals = append(p.Normals, v)
			p.UVs = append(p.UVs, mgl32.Vec2{float32(j) / float32(n), float32(i) / float32(n)})
		}
	}
	for i := range uint32(n) {
		for j := range uint32(n) {
			a := i*uint32(n+1) + j
			b := a + uint32(n+1)
			p.Indices = append(p.Indices, a, a+1, b, a+1, b+1, b)
		}
	}
	tex := image.NewNRGBA(image.Rect(0, 0, 512, 512))
	bump := image.NewNRGBA(image.Rect(0, 0, 512, 512))
	for y := range 512 {
		for x := range 512 {
			tex.SetNRGBA(x, y, color.NRGBA{uint8(x / 2), uint8(y / 2), 160, 255})
			bump.SetNRGBA(x, y, color.NRGBA{128 + uint8(40*math.Sin(float64(x)/9)), 128, 230, 255})
		}
	}
	var b gltf.Builder
	mat := gltf.DefaultMaterial()
	mat.Metallic = 0
	if textured {
		mat.BaseColorTexture, mat.NormalTexture = tex, bump
	}
	p.Material = b.AddMaterial(mat)
	b.AddNode(gltf.Node{Mesh: b.AddMesh("dense", p)})
	glb, err := b.GLB()
	if err != nil {
		tb.Fatal(err)
	}
	m, err := gltf.Decode(glb, "dense.glb", nil)
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// BenchmarkModelFrame draws a dense model (about 100k triangles,
// denseModel), plain or textured and normal-mapped, as the viewer does,
// one body filling most of a 1280×720 window, no MSAA on llvmpipe (the
// renderer's choice), HUD hidden. One op is Frame plus gl.Finish, so that
// ns/op is the whole frame's wall time, the software GPU's included; fps
// is 1 s over it; cpu-ms/op is the CPU time of every thread of the
// process per frame (llvmpipe's), which moves less than wall time on a
// loaded machine. The target is at least 30 fps on llvmpipe; the
// frame must not allocate (allocs/op 0).
func BenchmarkModelFrame(b *testing.B) {
	if os.Getenv("DISPLAY") == "" {
		b.Skip("needs a display: run `make test`, which starts Xvfb, or set DISPLAY")
	}
	const w, h = 1280, 720
	for _, textured := range []bool{false, true} {
		m := denseModel(b, 100_000, textured)
		tris := 0
		for _, me := range m.Meshes {
			tris += len(me.Indices) / 3
		}
		name := map[bool]string{false: "plain", true: "textured"}[textured]
		b.Run(fmt.Sprintf("tris=%dk/material=%s/%dx%d", tris/1000, name, w, h), func(b *testing.B) {
			var err error
			platform.Call(func() {
				var win *platform.Window
				win, err = platform.Open(platform.Config{Title: b.Name(), Width: w, Height: h})
				if err != nil {
					return
				}
				defer win.Close()
				err = modelFrames(b, m, w, h)
			})
			if err != nil {
				b.Fatal(err)
			}
		})
	}
}

func modelFrames(b *testing.B, m *gltf.Model, w, h int) error {
	r, err := renderer.New(simthread.DefaultHistory, renderer.Options{})
	if err != nil {
		return err
	}
	defer r.Delete()
	r.HUD().Visible = false
	mesh, err := r.AddModel(m, renderer.FitCube(m.Bounds))
	if err != nil {
		return err
	}
	s := newScene()
	body := simthread.Body{Pos: mgl32.Vec3{0, 1.5, 0}, Scale: simthread.UniformScale(1.5), Rot: ident, Color: simthread.White, Mesh: mesh}
	s.publish(1, []simthread.Body{body})
	body.Rot = mgl32.QuatRotate(0.1, mgl32.Vec3{0, 1, 0})
	s.publish(2, []simthread.Body{body})
	plan := s.pair(0.5)
	cam := renderer.DefaultCamera()
	cam.Target, cam.Distance, cam.Pitch = mgl32.Vec3{0, 1.5, 0}, 4.2, 0.3
	for range 3 {
		if err := r.Draw(&plan, &cam, w, h); err != nil {
			return err
		}
	}
	gl.Finish()
	b.ReportAllocs()
	cpu := processCPU()
	i := 0
	for b.Loop() {
		plan.Alpha = float32(i%64) / 64
		i++
		if err := r.Draw(&plan, &cam, w, h); err != nil {
			return err
		}
		gl.Finish()
	}
	if cpu = processCPU() - cpu; cpu > 0 {
		b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "fps")
	return nil
}

// TestMaterialFrameDoesNotAllocate draws frames of bodies whose materials
// use every feature (textures in every slot with their own samplers,
// MASK, BLEND, which sorts the blended parts each frame, double-sided):
// a frame allocates nothing.
func TestMaterialFrameDoesNotAllocate(t *testing.T) {
	onMain(t, func(*platform.Window) error {
		r, err := newTestRenderer()
		if err != nil {
			return err
		}
		defer r.Delete()
		grey := solid(4, 4, color.NRGBA{128, 128, 128, 200})
		var ids []simthread.MeshID
		for k, mode := range []gltf.AlphaMode{gltf.Opaque, gltf.Mask, gltf.Blend, gltf.Blend} {
			mat := gltf.DefaultMaterial()
			mat.AlphaMode, mat.DoubleSided = mode, k%2 == 1
			mat.BaseColor[3] = 0.6
			mat.BaseColorTexture, mat.MetallicRoughnessTexture, mat.NormalTexture = grey, grey, grey
			mat.OcclusionTexture, mat.EmissiveTexture = grey, grey
			mat.Sampling[gltf.NormalSlot].Sampler = gltf.Sampler{MagFilter: gltf.Nearest, WrapS: gltf.ClampToEdge}
			mat.Sampling[gltf.EmissiveSlot].Transform = &gltf.TextureTransform{Scale: mgl32.Vec2{2, 2}}
			id, err := r.AddMaterial(mat)
			if err != nil {
				return err
			}
			p := quad()
			p.Material = id
			p.Tangents = renderer.Tangents(p.Positions, p.Normals, p.UVs, p.Indices)
			mesh, err := r.AddMesh(p)
			if err != nil {
				return err
			}
			ids = append(ids, mesh)
		}
		var bodies []simthread.Body
		for i := range 40 {
			bodies = append(bodies, simthread.Body{Pos: mgl32.Vec3{float32(i%8) - 4, 5 + float32(i/8), float32(i % 3)},
				Scale: simthread.UniformScale(0.4), Rot: ident, Color: simthread.White, Mesh: ids[i%len(ids)]})
		}
		s := newScene()
		s.publish(1, bodies)
		s.publish(2, bodies)
		plan := s.pair(0.5)
		cam := frontCamera()
		var ferr error
		frame := func() {
			cam.Yaw += 0.01 // the blended parts' order is sorted again
			if err := r.Draw(&plan, &cam, width, height); err != nil && ferr == nil {
				ferr = err
			}
		}
		frame()
		if n := testing.AllocsPerRun(50, frame); n != 0 {
			return fmt.Errorf("a frame allocates %v times", n)
		}
		return ferr
	})
}
