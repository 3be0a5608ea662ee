package tickframe

import (
	"image"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/renderer/gltf"
	"github.com/tickframe/tickframe/simthread"
)

// redGreenModel writes a glTF model to dir/name: a box 40 m wide, placed
// 500 m away by its node, red on its +x half and green on its −x half
// (two primitives), so that only framing it by its bounds shows it, and
// only its own, untinted materials show those colours. It returns the
// path.
func redGreenModel(t *testing.T, dir, name string) string {
	t.Helper()
	var b gltf.Builder
	red := gltf.DefaultMaterial()
	red.Name, red.BaseColor, red.Metallic, red.Roughness = "red", mgl32.Vec4{0.9, 0.02, 0.02, 1}, 0, 0.7
	green := gltf.DefaultMaterial()
	green.Name, green.BaseColor, green.Metallic, green.Roughness = "green", mgl32.Vec4{0.02, 0.9, 0.02, 1}, 0, 0.7
	half := func(lo, hi mgl32.Vec3, mat int) gltf.Primitive {
		p := gltf.Primitive{Material: mat}
		for axis := range 3 {
			for _, sign := range []float32{1, -1} {
				var n, u, v mgl32.Vec3
				n[axis], u[(axis+1)%3], v[(axis+2)%3] = sign, 1, 1
				if sign < 0 {
					u, v = v, u
				}
				base := uint32(len(p.Positions))
				for _, c := range [][2]float32{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}} {
					q := n.Add(u.Mul(c[0])).Add(v.Mul(c[1])) // on the unit cube
					for k := range 3 {
						q[k] = lo[k] + (q[k]+1)/2*(hi[k]-lo[k])
					}
					p.Positions = append(p.Positions, q)
					p.Normals = append(p.Normals, n)
				}
				p.Indices = append(p.Indices, base, base+1, base+2, base, base+2, base+3)
			}
		}
		return p
	}
	mesh := b.AddMesh("box",
		half(mgl32.Vec3{0, -10, -10}, mgl32.Vec3{20, 10, 10}, b.AddMaterial(red)),
		half(mgl32.Vec3{-20, -10, -10}, mgl32.Vec3{0, 10, 10}, b.AddMaterial(green)),
	)
	b.AddNode(gltf.Node{Name: "far", Mesh: mesh, Translation: mgl32.Vec3{500, 40, 0}})
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

// hueCount counts img's clearly red and clearly green pixels and returns
// the bounding box of both together.
func hueCount(img image.Image) (red, green int, box image.Rectangle) {
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
			r, g, bl := int(c.R), int(c.G), int(c.B)
			switch {
			case r > g+60 && r > bl+60:
				red++
			case g > r+60 && g > bl+60:
				green++
			default:
				continue
			}
			box = box.Union(image.Rect(x, y, x+1, y+1))
		}
	}
	return red, green, box
}

// greyPixels counts img's light grey pixels: the ground's.
func greyPixels(img image.Image) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
			lo, hi := min(c.R, c.G, c.B), max(c.R, c.G, c.B)
			if lo > 60 && hi-lo < 25 {
				n++
			}
		}
	}
	return n
}

// TestView runs `tickframe view` on a model far from the origin: the last
// frame shows it framed (large, centred, nowhere cut by the frame's
// edges), in its own colours, red and green (the demo's tints would turn
// both blue to violet), and the turntable turns it: seen from +z a little
// to the +x side, the red +x half faces the camera at rest, and as the
// turntable turns +x towards −z the green share of the box's pixels grows
// for half a turn. With -turn 8s, runs of 1 s and 3 s stay within that
// half turn however late the simulation's ticks come on a loaded machine
// (it never runs ahead of the clock), so the shares must grow from run to
// run. The summary line counts what the file holds.
func TestView(t *testing.T) {
	t.Parallel() // a functional run: beside another (main_test.go)
	needDisplay(t)
	dir := t.TempDir()
	model := redGreenModel(t, dir, "box.glb")
	const w, h = 320, 240
	shots := map[string]string{}
	for _, run := range []struct{ name, duration, turn, ground string }{
		{"rest", "1s", "0", "-ground=true"}, {"1s", "1s", "8s", "-ground=true"}, {"3s", "3s", "8s", "-ground=true"},
		{"no ground", "1s", "0", "-ground=false"},
	} {
		shot := filepath.Join(dir, strings.ReplaceAll(run.name, " ", "-")+".png")
		r := tickframe(t, opts{}, "view", model, "-width", "320", "-height", "240", "-hud=false",
			"-turn", run.turn, "-duration", run.duration, run.ground, "-screenshot", shot)
		wantOK(t, r)
		want := "tickframe view: box.glb: 1 mesh, 2 primitives, 48 vertices, 24 triangles, 2 materials, 0 textures\n"
		if r.stdout != want {
			t.Errorf("stdout %q, want %q", r.stdout, want)
		}
		shots[run.name] = shot
	}
	// The ground is grey, the sky nearly black: without the ground, no
	// pixel of the frame is a light grey.
	for name, want := range map[string]bool{"rest": true, "no ground": false} {
		if n := greyPixels(decodePNG(t, shots[name])); (n > w*h/10) != want {
			t.Errorf("%s: %d grey ground pixels of %d (%s)", name, n, w*h, shots[name])
		}
	}
	share := map[string]float64{}
	for name, shot := range shots {
		red, green, box := hueCount(decodePNG(t, shot))
		t.Logf("%s: %d red, %d green pixels in %v", name, red, green, box)
		all := red + green
		if all < w*h/10 {
			t.Errorf("%s: the model covers %d of %d pixels: not framed (%s)", name, all, w*h, shot)
			continue
		}
		if box.Min.X <= 0 || box.Min.Y <= 0 || box.Max.X >= w || box.Max.Y >= h {
			t.Errorf("%s: the model's pixels %v touch the frame's edge: framed too tight (%s)", name, box, shot)
		}
		cx, cy := float64(box.Min.X+box.Max.X)/2, float64(box.Min.Y+box.Max.Y)/2
		if math.Abs(cx-w/2) > w/8 || math.Abs(cy-h/2) > h/6 {
			t.Errorf("%s: the model's centre is at (%.0f, %.0f), not near the frame's (%d, %d) (%s)", name, cx, cy, w/2, h/2, shot)
		}
		share[name] = float64(green) / float64(all)
	}
	if !(share["rest"] < 0.5 && share["rest"]+0.03 < share["1s"] && share["1s"]+0.03 < share["3s"]) {
		t.Errorf("green shares at rest, after 1 s and after 3 s of an 8 s turn: %.2f, %.2f, %.2f: want the red half facing the camera at rest, then growing green", share["rest"], share["1s"], share["3s"])
	}
}

// TestViewBadArguments: a missing or damaged file, one without triangles,
// one of another kind, no file or two, a bad flag: one line naming the
// problem, exit 2, nothing written.
func TestViewBadArguments(t *testing.T) {
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
	good := redGreenModel(t, dir, "good.glb")
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{filepath.Join(dir, "missing.glb")}, []string{"view", "missing.glb"}},
		{[]string{garbage}, []string{"gltf: ", "garbage.glb"}},
		{[]string{nothing}, []string{"nothing.glb", "no triangles"}},
		{[]string{filepath.Join(dir, "model.obj")}, []string{"model.obj", ".glb or .gltf"}},
		{nil, []string{"no model file"}},
		{[]string{good, good}, []string{"one model file at a time"}},
		{[]string{good, "-turn", "-1s"}, []string{"-turn"}},
		{[]string{good, "-anim", "-2"}, []string{"-anim"}},
		{[]string{good, "-anim", "3"}, []string{"-anim 3", "0 animations"}},
		{[]string{good, "-width", "0"}, []string{"window size"}},
		{[]string{good, "-bogus"}, []string{"bogus"}},
		{[]string{good, "-screenshot", filepath.Join(dir, "no", "such", "dir.png")}, []string{"-screenshot"}},
	} {
		out := t.TempDir()
		r := tickframe(t, opts{dir: out}, append([]string{"view", "-duration", "2s", "-screenshot", "s.png"}, c.args...)...)
		line := wantOneLine(t, r, 2)
		for _, w := range c.want {
			if !strings.Contains(line, w) {
				t.Errorf("view %q: %q lacks %q", c.args, line, w)
			}
		}
		if files := listFiles(t, out); len(files) > 0 {
			t.Errorf("view %q: left files: %q", c.args, files)
		}
	}
}

// TestViewWorldAnimation steps the viewer's world with an animated model
// (a box node moving LINEAR along x from −1 to 1 m over 2 s, the turntable
// still) and checks the box's body at ticks against the sampler's closed
// form through the fitting transform; past the end the animation loops,
// and the body's epoch counts the loops, so that the jump back is not
// interpolated. Step and Snapshot do not allocate.
func TestViewWorldAnimation(t *testing.T) {
	var b gltf.Builder
	box := b.AddNode(gltf.Node{Name: "box", Mesh: b.AddMesh("box", gltf.Primitive{
		Positions: []mgl32.Vec3{{-1, -1, 0}, {1, -1, 0}, {1, 1, 0}, {-1, 1, 0}},
		Indices:   []uint32{0, 1, 2, 0, 2, 3}, Material: -1})})
	b.AddAnimation(gltf.Animation{Name: "slide", Channels: []gltf.Channel{{Node: box, Path: gltf.Translation,
		Interp: gltf.InterpLinear, Times: []float32{0, 2}, Values: []float32{-1, 0, 0, 1, 0, 0}}}})
	glb, err := b.GLB()
	if err != nil {
		t.Fatal(err)
	}
	m, err := gltf.Decode(glb, "slide.glb", nil)
	if err != nil {
		t.Fatal(err)
	}
	fit := fitView(m.Bounds, 320, 240)
	w := newViewWorld(m, fit, 0, 0)
	if len(w.nodes) != 1 || w.nodes[0].Mesh != viewMesh {
		t.Fatalf("node meshes %+v", w.nodes)
	}
	const dt = 1.0 / 128 // exact in binary: the sums of steps are exact
	var snap simthread.Snapshot
	tick := uint64(0)
	for _, c := range []struct {
		tick  uint64
		x     float32
		epoch uint32
	}{{0, -1, 0}, {64, -0.5, 0}, {192, 0.5, 0}, {320, -0.5, 1}, {512, -1, 2}} {
		for ; tick < c.tick; tick++ {
			w.Step(tick+1, dt, nil)
		}
		w.Snapshot(&snap)
		if len(snap.Bodies) != 2 {
			t.Fatalf("%d bodies, want the marker and the box", len(snap.Bodies))
		}
		got := snap.Bodies[1]
		want := fit.centre.Add(fit.place.Mul4x1(mgl32.Vec4{c.x, 0, 0, 1}).Vec3())
		if got.Pos.Sub(want).Len() > 1e-5 || got.Epoch != c.epoch || got.Mesh != viewMesh {
			t.Errorf("tick %d: the box at %v, epoch %d, mesh %d; want %v, epoch %d, mesh %d", c.tick, got.Pos, got.Epoch, got.Mesh, want, c.epoch, viewMesh)
		}
	}
	if n := testing.AllocsPerRun(100, func() { w.Step(1, dt, nil); w.Snapshot(&snap) }); n != 0 {
		t.Errorf("a tick allocates %v times", n)
	}
}

// TestViewAnimated runs `tickframe view` on a model whose only node
// slides LINEAR along x, from −20 to 20 m over 8 s, the turntable still:
// the red plate is left of the frame's middle after 1 s and right of it
// after 6 s, as the animation, sampled by the simulation, puts it (the
// simulation never runs ahead of the clock, and may fall 2 s behind).
func TestViewAnimated(t *testing.T) {
	t.Parallel() // a functional run: beside another (main_test.go)
	needDisplay(t)
	dir := t.TempDir()
	var b gltf.Builder
	red := gltf.DefaultMaterial()
	red.BaseColor, red.Metallic = mgl32.Vec4{0.9, 0.02, 0.02, 1}, 0
	var p gltf.Primitive
	for _, q := range []mgl32.Vec3{{-4, -4, 0}, {4, -4, 0}, {4, 4, 0}, {-4, 4, 0}} {
		p.Positions = append(p.Positions, q)
		p.Normals = append(p.Normals, mgl32.Vec3{0, 0, 1})
	}
	p.Indices, p.Material = []uint32{0, 1, 2, 0, 2, 3}, b.AddMaterial(red)
	n := b.AddNode(gltf.Node{Name: "slider", Mesh: b.AddMesh("plate", p)})
	b.AddAnimation(gltf.Animation{Name: "slide", Channels: []gltf.Channel{{Node: n, Path: gltf.Translation,
		Interp: gltf.InterpLinear, Times: []float32{0, 8}, Values: []float32{-20, 0, 0, 20, 0, 0}}}})
	glb, err := b.GLB()
	if err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, "slide.glb")
	if err := os.WriteFile(model, glb, 0o644); err != nil {
		t.Fatal(err)
	}
	centre := map[string]float64{}
	for _, at := range []string{"1s", "6s"} {
		shot := filepath.Join(dir, at+".png")
		r := tickframe(t, opts{}, "view", model, "-width", "320", "-height", "240", "-hud=false", "-turn", "0",
			"-duration", at, "-screenshot", shot)
		wantOK(t, r)
		if !strings.Contains(r.stdout, "1 animation") {
			t.Errorf("stdout %q does not count the animation", r.stdout)
		}
		// The plate's deep red, not the marker's orange.
		img := decodePNG(t, shot)
		sum, count := 0, 0
		for y := range 240 {
			for x := range 320 {
				c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
				if int(c.R) > 60 && int(c.R) > 3*int(c.G) && int(c.R) > 3*int(c.B) {
					sum, count = sum+x, count+1
				}
			}
		}
		if count == 0 {
			t.Fatalf("after %s: no red pixels (%s)", at, shot)
		}
		centre[at] = float64(sum) / float64(count)
		t.Logf("after %s: %d red pixels about x %.0f", at, count, centre[at])
	}
	if !(centre["1s"] < 160-10 && centre["6s"] > 160+10) {
		t.Errorf("the plate's centre is at x %.0f after 1 s and %.0f after 6 s: want left of 160, then right of it", centre["1s"], centre["6s"])
	}
}

// TestViewKeys presses N in the viewer's window once: the last frame is
// the normals view, whose still box shows its faces' normals as colours
// ((n + 1) / 2: +z blue-white, +x pink, +y light green), which the shaded
// red and green box never does.
func TestViewKeys(t *testing.T) {
	// Not beside another run (main_test.go): it presses keys, and a
	// window shown beside it takes the focus and the keys with it (GLFW
	// focuses the windows it shows; a parallel run once got this test's
	// N, and this one recorded its keys out of order).
	needDisplay(t)
	dir := t.TempDir()
	model := redGreenModel(t, dir, "box.glb")
	shot := filepath.Join(dir, "normals.png")
	p := start(t, opts{}, "view", model, "-width", "320", "-height", "240", "-hud=false", "-turn", "0",
		"-duration", "4s", "-screenshot", shot)
	pressKeys(t, p, "n")
	wantOK(t, p.wait())
	img := decodePNG(t, shot)
	faces := [3]color.NRGBA{{188, 188, 255, 255}, {255, 188, 188, 255}, {188, 255, 188, 255}}
	n := 0
	for y := range 240 {
		for x := range 320 {
			c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
			for _, f := range faces {
				if absDiff8(c.R, f.R) <= 6 && absDiff8(c.G, f.G) <= 6 && absDiff8(c.B, f.B) <= 6 {
					n++
				}
			}
		}
	}
	if n < 320*240/20 {
		t.Errorf("%d pixels in the colours of the box's normals after N: want at least 5 %% of the frame (%s)", n, shot)
	}
}

func absDiff8(a, b uint8) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}
