package tickframe

import (
	"bytes"
	encbin "encoding/binary"
	"encoding/json"
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
	t.Parallel() // a functional run: beside another (main_test.go)
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

// writeModel writes b's GLB to dir/name, the file requiring the
// extensions required (and listing them as used), and returns the path.
func writeModel(t *testing.T, b *gltf.Builder, dir, name string, required ...string) string {
	t.Helper()
	glb, err := b.GLB()
	if err != nil {
		t.Fatal(err)
	}
	if len(required) > 0 {
		// The JSON chunk (at byte 20, its length at 12) rewritten, the
		// BIN chunk after it kept.
		le := encbin.LittleEndian
		n := le.Uint32(glb[12:])
		var doc map[string]any
		if err := json.Unmarshal(glb[20:20+n], &doc); err != nil {
			t.Fatal(err)
		}
		doc["extensionsUsed"], doc["extensionsRequired"] = required, required
		js, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		for len(js)%4 != 0 {
			js = append(js, ' ')
		}
		rest := glb[20+n:]
		out := le.AppendUint32(bytes.Clone(glb[:8]), uint32(20+len(js)+len(rest)))
		out = le.AppendUint32(out, uint32(len(js)))
		out = le.AppendUint32(out, le.Uint32(glb[16:]))
		glb = append(append(out, js...), rest...)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, glb, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// triangleAt returns a builder holding one triangle placed by a node
// translated to t.
func triangleAt(t mgl32.Vec3) *gltf.Builder {
	var b gltf.Builder
	b.AddNode(gltf.Node{Mesh: b.AddMesh("tri", gltf.Primitive{
		Positions: []mgl32.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, Material: -1,
	}), Translation: t})
	return &b
}

// printable reports whether s holds no control character (C0, DEL, C1):
// printing it cannot retitle or clear a terminal.
func printable(s string) bool {
	for _, r := range s {
		if r < 0x20 || r >= 0x7f && r < 0xa0 {
			return false
		}
	}
	return true
}

// TestHostileModels (issue 24, items 15 and 16): a validator-valid file
// whose node moves it to x = 3e38 (which loaded, then failed at the first
// draw with NaN positions) and one requiring an extension whose name is
// a terminal escape are refused before any window, by view and by
// -model: exit 2, one printable line naming the JSON path, no file.
func TestHostileModels(t *testing.T) {
	dir := t.TempDir()
	far := writeModel(t, triangleAt(mgl32.Vec3{3e38, 0, 0}), dir, "far.glb")
	escape := writeModel(t, triangleAt(mgl32.Vec3{}), dir, "escape.glb", "\x1b]0;owned\x07\x1b[2J")
	for _, c := range []struct {
		model string
		want  []string
	}{
		{far, []string{"far.glb: nodes[0]", "more than 1e+18"}},
		{escape, []string{"escape.glb: extensionsRequired[0]", `"\x1b]0;owned\a\x1b[2J"`}},
	} {
		for _, args := range [][]string{
			{"view", "-duration", "2s", "-screenshot", "s.png", c.model},
			withSmall("-duration", "2s", "-model", c.model, "-screenshot", "s.png"),
		} {
			out := t.TempDir()
			r := tickframe(t, opts{dir: out}, args...)
			line := wantOneLine(t, r, 2)
			if !printable(r.stderr[:len(r.stderr)-1]) {
				t.Errorf("%q: stderr holds control characters: %q", args, r.stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(line, w) {
					t.Errorf("%q: %q lacks %q", args, line, w)
				}
			}
			if files := listFiles(t, out); len(files) > 0 {
				t.Errorf("%q: a refused model left files: %q", args, files)
			}
		}
	}
}

// TestSummaryQuotesNames: the names view prints from a file (extensions,
// attributes) come out quoted where they are not plain names, so that a
// crafted file cannot reach the terminal with an escape.
func TestSummaryQuotesNames(t *testing.T) {
	m := &gltf.Model{Ignored: []string{"cameras", "KHR_lights_punctual", "\x1b]0;owned\x07", "COLOR_1", "a b"}}
	got := modelSummary("m.glb", m)
	want := `m.glb: 0 meshes, 0 primitives, 0 vertices, 0 triangles, 0 materials, 0 textures; ignored: cameras, KHR_lights_punctual, "\x1b]0;owned\a", COLOR_1, "a b"`
	if got != want || !printable(got) {
		t.Errorf("summary %q, want %q", got, want)
	}
}
