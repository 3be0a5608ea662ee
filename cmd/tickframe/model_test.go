package main

import (
	"image"
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/renderer/gltf"
)

// greenModel writes a glTF model to dir/name: a square pyramid of two
// primitives (its base and its sides), green, the sides through a green
// texture, placed by a node that scales it 10× and moves it 100 m away, so
// that only fitting it by its bounding box brings it back to the bodies.
// It returns the path.
func greenModel(t *testing.T, dir, name string) string {
	t.Helper()
	var b gltf.Builder
	green := gltf.DefaultMaterial()
	green.Name, green.BaseColor, green.Metallic, green.Roughness = "green", mgl32.Vec4{0.05, 0.9, 0.05, 1}, 0, 0.6
	tex := image.NewNRGBA(image.Rect(0, 0, 8, 8))
	for i := 0; i < len(tex.Pix); i += 4 {
		copy(tex.Pix[i:], []uint8{30, 230, 40, 255})
	}
	textured := gltf.DefaultMaterial()
	textured.Name, textured.Metallic, textured.BaseColorTexture = "textured", 0, tex
	apex := mgl32.Vec3{0, 1, 0}
	corners := []mgl32.Vec3{{-1, -1, -1}, {1, -1, -1}, {1, -1, 1}, {-1, -1, 1}}
	var sides []mgl32.Vec3
	var uvs []mgl32.Vec2
	for i := range corners {
		sides = append(sides, corners[(i+1)%4], corners[i], apex)
		uvs = append(uvs, mgl32.Vec2{0, 1}, mgl32.Vec2{1, 1}, mgl32.Vec2{0.5, 0})
	}
	mesh := b.AddMesh("pyramid",
		gltf.Primitive{Positions: corners, Indices: []uint32{0, 1, 2, 0, 2, 3}, Material: b.AddMaterial(green)},
		gltf.Primitive{Positions: sides, UVs: uvs, Material: b.AddMaterial(textured)},
	)
	b.AddNode(gltf.Node{Name: "far", Mesh: mesh, Translation: mgl32.Vec3{100, 0, 0}, Scale: mgl32.Vec3{10, 10, 10}})
	glb, err := b.GLB()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, glb, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// greenPixels counts the pixels of img that are clearly green: the
// reference world's own colours (blue to violet, orange) never are.
func greenPixels(img image.Image) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
			if int(c.G) > int(c.R)+40 && int(c.G) > int(c.B)+40 {
				n++
			}
		}
	}
	return n
}

// TestModel runs the demo with -model and a .glb the test wrote: every
// body is drawn with the green pyramid, fitted to the cube's size, so the
// last frame is full of green where without -model there is none.
func TestModel(t *testing.T) {
	needDisplay(t)
	dir := t.TempDir()
	model := greenModel(t, dir, "pyramid.glb")
	args := withSmall("-duration", "2s", "-hud=false", "-bodies", "1024")
	plain := filepath.Join(dir, "plain.png")
	wantOK(t, tickframe(t, opts{}, append(args, "-screenshot", plain)...))
	shot := filepath.Join(dir, "model.png")
	wantOK(t, tickframe(t, opts{}, append(args, "-screenshot", shot, "-model", model)...))
	before, after := greenPixels(decodePNG(t, plain)), greenPixels(decodePNG(t, shot))
	b := decodePNG(t, shot).Bounds()
	t.Logf("green pixels: %d without -model, %d with, of %d", before, after, b.Dx()*b.Dy())
	if before > 50 || after < b.Dx()*b.Dy()/50 {
		t.Errorf("green pixels: %d without -model, %d with; want few, then at least 2%% of the frame (%s)", before, after, shot)
	}
}

// TestBadModel: a -model file that is missing, not glTF, not supported,
// without triangles or of another kind is refused before anything opens:
// one line naming the problem, exit 2, no file written.
func TestBadModel(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.glb")
	if err := os.WriteFile(garbage, []byte("glTF\x02\x00\x00\x00 not really"), 0o644); err != nil {
		t.Fatal(err)
	}
	var empty gltf.Builder
	empty.AddNode(gltf.Node{Name: "nothing", Mesh: -1})
	glb, err := empty.GLB()
	if err != nil {
		t.Fatal(err)
	}
	nothing := filepath.Join(dir, "nothing.glb")
	if err := os.WriteFile(nothing, glb, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		model string
		want  []string
	}{
		{filepath.Join(dir, "missing.glb"), []string{"-model", "missing.glb"}},
		{garbage, []string{"-model", "gltf: ", "garbage.glb"}},
		{nothing, []string{"-model", "nothing.glb", "no triangles"}},
		{filepath.Join(dir, "model.obj"), []string{"-model", "model.obj", ".glb or .gltf"}},
	} {
		out := t.TempDir()
		r := tickframe(t, opts{dir: out}, withSmall("-duration", "2s", "-model", c.model, "-screenshot", "s.png", "-report", "r.json")...)
		line := wantOneLine(t, r, 2)
		for _, w := range c.want {
			if !strings.Contains(line, w) {
				t.Errorf("-model %s: %q lacks %q", filepath.Base(c.model), line, w)
			}
		}
		if files := listFiles(t, out); len(files) > 0 {
			t.Errorf("-model %s: a refused model left files: %q", filepath.Base(c.model), files)
		}
	}
}
