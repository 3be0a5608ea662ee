package tickframe

import (
	"math"
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
	b.AddSkin(gltf.Skin{Joints: []int{lower, upper}, Skeleton: -1}, b.AddNode(gltf.Node{Mesh: mesh}))
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
