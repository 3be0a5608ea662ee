package renderer_test

import (
	"fmt"
	"image"
	"image/color"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/renderer/gltf"
	"github.com/tickframe/tickframe/renderer/internal/gltest"
	"github.com/tickframe/tickframe/simthread"
)

func TestFitCube(t *testing.T) {
	box := gltf.Box{Min: mgl32.Vec3{1, 2, 3}, Max: mgl32.Vec3{3, 6, 5}}
	m := renderer.FitCube(box)
	for _, c := range []struct{ in, want mgl32.Vec3 }{
		{box.Center(), mgl32.Vec3{}},
		{box.Min, mgl32.Vec3{-0.5, -1, -0.5}},
		{box.Max, mgl32.Vec3{0.5, 1, 0.5}},
	} {
		if got := m.Mul4x1(c.in.Vec4(1)).Vec3(); !got.ApproxEqual(c.want) {
			t.Errorf("FitCube maps %v to %v, want %v", c.in, got, c.want)
		}
	}
	if got := renderer.FitCube(gltf.Box{Min: mgl32.Vec3{2, 2, 2}, Max: mgl32.Vec3{2, 2, 2}}).Mul4x1(mgl32.Vec4{2, 2, 2, 1}); got != (mgl32.Vec4{0, 0, 0, 1}) {
		t.Errorf("an empty box: %v", got)
	}
}

// solid is a w×h image of one sRGB colour.
func solid(w, h int, c color.NRGBA) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = c.R, c.G, c.B, c.A
	}
	return img
}

// twoQuads is a glTF model, written with gltf.Builder and decoded: a quad
// placed twice, on the left with a red material, on the right mirrored
// (scale −1 along x) with a blue texture, 5 units wide in all.
func twoQuads(t testing.TB) *gltf.Model {
	var b gltf.Builder
	red := gltf.DefaultMaterial()
	red.Name, red.BaseColor, red.Metallic = "red", mgl32.Vec4{0.8, 0.05, 0.02, 1}, 0
	blue := gltf.DefaultMaterial()
	blue.Name, blue.Metallic, blue.BaseColorTexture = "blue", 0, solid(4, 4, color.NRGBA{20, 40, 230, 255})
	q := quad()
	left := b.AddMesh("left", gltf.Primitive{Positions: q.Positions, Normals: q.Normals, UVs: q.UVs, Indices: q.Indices, Material: b.AddMaterial(red)})
	right := b.AddMesh("right", gltf.Primitive{Positions: q.Positions, Normals: q.Normals, UVs: q.UVs, Indices: q.Indices, Material: b.AddMaterial(blue)})
	b.AddNode(gltf.Node{Name: "left", Mesh: left, Translation: mgl32.Vec3{-1.5, 0, 0}})
	b.AddNode(gltf.Node{Name: "right", Mesh: right, Translation: mgl32.Vec3{1.5, 0, 0}, Scale: mgl32.Vec3{-1, 1, 1}})
	glb, err := b.GLB()
	if err != nil {
		t.Fatal(err)
	}
	m, err := gltf.Decode(glb, "two-quads.glb", nil)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestAddModel registers a glTF model fitted to the cube and draws a body
// with it: both quads show, in their materials' colours, where the node
// transforms put them; the mirrored one too (rewound, so not culled).
func TestAddModel(t *testing.T) {
	m := twoQuads(t)
	onMain(t, func(*gltest.Window) error {
		r, err := newTestRenderer()
		if err != nil {
			return err
		}
		defer r.Delete()
		id, err := r.AddModel(m, renderer.FitCube(m.Bounds))
		if err != nil {
			return err
		}
		if id != 1 || r.Materials() != 3 {
			return fmt.Errorf("the model is mesh %d with %d materials registered; want mesh 1, the default and two", id, r.Materials())
		}
		cam := frontCamera()
		// FitCube scales the 5-unit model by 2/5; the body by 2.5 more.
		body := simthread.Body{Pos: mgl32.Vec3{0, 5, 0}, Scale: simthread.UniformScale(2.5), Rot: ident, Color: simthread.RGB(255, 255, 255), Mesh: id}
		img, err := drawBodies(r, newScene(), cam, []simthread.Body{body})
		if err != nil {
			return err
		}
		if r.DrawCalls() != 2 {
			return fmt.Errorf("%d draw calls for a model of two parts", r.DrawCalls())
		}
		for _, c := range []struct {
			x    float32
			name string
			ok   func(color.RGBA) bool
		}{
			{-1.5, "red", func(c color.RGBA) bool { return int(c.R) > int(c.G)+60 && int(c.R) > int(c.B)+60 }},
			{1.5, "blue", func(c color.RGBA) bool { return int(c.B) > int(c.R)+60 && int(c.B) > int(c.G)+40 }},
		} {
			got, err := pixelAt(img, cam, body.Pos.Add(mgl32.Vec3{c.x, 0, 0}))
			if err != nil {
				return err
			}
			if !c.ok(got) {
				return fmt.Errorf("the %s quad at x=%v is %v%s", c.name, c.x, got, saveFailure(img))
			}
		}
		if _, err := r.AddModel(&gltf.Model{}, mgl32.Ident4()); err == nil {
			return fmt.Errorf("AddModel accepted an empty model")
		}
		return nil
	})
}
