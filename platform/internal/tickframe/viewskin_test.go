package tickframe

import (
	"image/color"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/renderer/gltf"
	"github.com/tickframe/tickframe/simthread"
)

// TestViewWorldSkinned: the viewer's world plays a skinned model's first
// animation on its ticks, publishing the character (model viewSkin, the
// loops as its epoch) and its joints, the bent joint where the
// animation puts it; a tick allocates nothing.
func TestViewWorldSkinned(t *testing.T) {
	var b gltf.Builder
	var p gltf.Primitive
	p.Material = -1
	for _, y := range []float32{0, 1, 2} {
		for _, x := range []float32{-0.2, 0.2} {
			p.Positions = append(p.Positions, mgl32.Vec3{x, y, 0})
			w := y / 2
			p.Joints = append(p.Joints, [4]uint16{0, 1, 0, 0})
			p.Weights = append(p.Weights, mgl32.Vec4{1 - w, w, 0, 0})
		}
	}
	p.Indices = []uint32{0, 1, 3, 0, 3, 2, 2, 3, 5, 2, 5, 4}
	mesh := b.AddMesh("strip", p)
	lower := b.AddNode(gltf.Node{Mesh: -1})
	upper := b.AddNode(gltf.Node{Mesh: -1, Translation: mgl32.Vec3{0, 1, 0}})
	b.AddChild(lower, upper)
	b.AddSkin(gltf.Skeleton{Joints: []int{lower, upper}, Root: -1}, b.AddNode(gltf.Node{Mesh: mesh}))
	q := mgl32.QuatRotate(math.Pi/2, mgl32.Vec3{0, 0, 1})
	b.AddAnimation(gltf.Animation{Channels: []gltf.Channel{{Node: upper, Path: gltf.Rotation, Times: []float32{0, 2},
		Values: []float32{0, 0, 0, 1, q.V[0], q.V[1], q.V[2], q.W}}}})
	glb, err := b.GLB()
	if err != nil {
		t.Fatal(err)
	}
	m, err := gltf.Decode(glb, "strip.glb", nil)
	if err != nil {
		t.Fatal(err)
	}
	fit := fitView(m.Bounds, 320, 240)
	w := newViewWorld(m, fit, 0, 0)
	if w.skin == nil || len(w.nodes) != 0 {
		t.Fatalf("character %v, node meshes %+v: want the character alone", w.skin, w.nodes)
	}
	const dt = 1.0 / 128
	var snap simthread.Snapshot
	tick := uint64(0)
	for _, c := range []struct {
		tick  uint64
		angle float64
		epoch uint32
	}{{0, 0, 0}, {128, math.Pi / 4, 0}, {320, math.Pi / 8, 1}} {
		for ; tick < c.tick; tick++ {
			w.Step(tick+1, dt, nil)
		}
		w.Snapshot(&snap)
		if len(snap.Skins) != 1 || len(snap.Joints) != 2 || snap.Skins[0].Model != viewSkin || snap.Skins[0].Epoch != c.epoch {
			t.Fatalf("tick %d: skins %+v, %d joints", c.tick, snap.Skins, len(snap.Joints))
		}
		want := fit.place.Mat3().Mat4().Mul4(mgl32.QuatRotate(float32(c.angle), mgl32.Vec3{0, 0, 1}).Mat4())
		got := snap.Joints[1].Rot.Mat4()
		// The fit scales uniformly: compare directions.
		x, y := want.Col(0).Vec3().Normalize(), got.Col(0).Vec3().Normalize()
		if x.Sub(y).Len() > 1e-4 {
			t.Errorf("tick %d: the upper joint's x axis %v, want %v", c.tick, y, x)
		}
	}
	if n := testing.AllocsPerRun(100, func() { w.Step(1, dt, nil); w.Snapshot(&snap) }); n != 0 {
		t.Errorf("a tick allocates %v times", n)
	}
}

// TestViewSkinned runs `tickframe view` on a skinned strip, 2 high and
// red, still on the turntable: its upper joint (the strip's top, weighted
// in linearly up the strip) is translated 0.8 to −x at 0 s and to +x from
// 0.5 s on. After 3 s (the simulation never runs ahead of the clock, and
// may fall 2 s behind) the last frame shows the strip leaning right: its
// top's red pixels right of its foot's. A viewer that does not play the
// animation shows it leaning left, one that does not skin shows it
// straight.
func TestViewSkinned(t *testing.T) {
	t.Parallel() // a functional run: beside another (main_test.go)
	needDisplay(t)
	dir := t.TempDir()
	var b gltf.Builder
	red := gltf.DefaultMaterial()
	red.BaseColor, red.Metallic, red.DoubleSided = mgl32.Vec4{0.9, 0.02, 0.02, 1}, 0, true
	p := gltf.Primitive{Material: b.AddMaterial(red)}
	for _, y := range []float32{0, 0.5, 1, 1.5, 2} {
		for _, x := range []float32{-0.2, 0.2} {
			p.Positions = append(p.Positions, mgl32.Vec3{x, y, 0})
			p.Normals = append(p.Normals, mgl32.Vec3{0, 0, 1})
			p.Joints = append(p.Joints, [4]uint16{0, 1})
			p.Weights = append(p.Weights, mgl32.Vec4{1 - y/2, y / 2})
		}
	}
	for r := range uint32(4) {
		a := 2 * r
		p.Indices = append(p.Indices, a, a+1, a+3, a, a+3, a+2)
	}
	lower := b.AddNode(gltf.Node{Name: "lower", Mesh: -1})
	upper := b.AddNode(gltf.Node{Name: "upper", Mesh: -1, Translation: mgl32.Vec3{0, 1, 0}})
	b.AddChild(lower, upper)
	b.AddSkin(gltf.Skeleton{Joints: []int{lower, upper}, Root: lower,
		InverseBind: []mgl32.Mat4{mgl32.Ident4(), mgl32.Translate3D(0, -1, 0)}},
		b.AddNode(gltf.Node{Name: "strip", Mesh: b.AddMesh("strip", p)}))
	b.AddAnimation(gltf.Animation{Name: "lean", Channels: []gltf.Channel{{Node: upper, Path: gltf.Translation,
		Times: []float32{0, 0.5, 8}, Values: []float32{-0.8, 1, 0, 0.8, 1, 0, 0.8, 1, 0}}}})
	glb, err := b.GLB()
	if err != nil {
		t.Fatal(err)
	}
	model, shot := filepath.Join(dir, "strip.glb"), filepath.Join(dir, "last.png")
	if err := os.WriteFile(model, glb, 0o644); err != nil {
		t.Fatal(err)
	}
	r := tickframe(t, opts{}, "view", model, "-width", "320", "-height", "240", "-hud=false", "-turn", "0",
		"-duration", "3s", "-screenshot", shot)
	wantOK(t, r)
	img := decodePNG(t, shot)
	// The strip's red rows, and the mean x of each.
	var rows []float64
	top := -1
	for y := range 240 {
		sum, n := 0, 0
		for x := range 320 {
			c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
			if int(c.R) > 60 && int(c.R) > 3*int(c.G) && int(c.R) > 3*int(c.B) {
				sum, n = sum+x, n+1
			}
		}
		if n > 0 {
			if top < 0 {
				top = y
			}
			rows = append(rows, float64(sum)/float64(n))
		}
	}
	if len(rows) < 40 {
		t.Fatalf("%d rows with red pixels: the strip is not drawn (%s)", len(rows), shot)
	}
	band := len(rows) / 6
	mean := func(xs []float64) float64 {
		s := 0.0
		for _, x := range xs {
			s += x
		}
		return s / float64(len(xs))
	}
	head, foot := mean(rows[:band]), mean(rows[len(rows)-band:])
	t.Logf("%d red rows from y %d: the top's at x %.0f, the foot's at x %.0f", len(rows), top, head, foot)
	if head < foot+30 {
		t.Errorf("the strip's top is at x %.0f, its foot at %.0f: want the top 30 pixels right of the foot, as the animation leans it (%s)",
			head, foot, shot)
	}
}
