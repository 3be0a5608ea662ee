package gltf_test

import (
	"encoding/binary"
	"errors"
	"math"
	"strconv"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/renderer/gltf"
)

// Rings of the bending tube: their heights, and each ring's weight on
// the upper bone (the lower one has the rest).
var (
	tubeRings  = []float32{0, 0.5, 1, 1.5, 2}
	tubeUpper  = []float32{0, 0, 0.5, 1, 1}
	tubeCorner = [4][2]float32{{-0.2, -0.2}, {0.2, -0.2}, {0.2, 0.2}, {-0.2, 0.2}}
)

// bendingTube builds a two-bone tube standing on the origin, 2 high and
// 0.4 wide: a lower bone at the origin and an upper one at (0, 1, 0),
// its child, the rings below 1 on the lower, above it on the upper, the
// middle ring half and half; animation 0 turns the upper bone about z
// by 90° over a second (LINEAR). The tube has no normals, so that Decode
// gives every triangle its own vertices (and joints). It returns the
// builder and the tube's vertex of corner c on ring r at index 4r+c.
func bendingTube() *gltf.Builder {
	var p gltf.Primitive
	for r, y := range tubeRings {
		for _, c := range tubeCorner {
			p.Positions = append(p.Positions, mgl32.Vec3{c[0], y, c[1]})
			w := tubeUpper[r]
			p.Joints = append(p.Joints, [4]uint16{0, 1, 0, 0})
			p.Weights = append(p.Weights, mgl32.Vec4{1 - w, w, 0, 0})
		}
	}
	for r := range len(tubeRings) - 1 {
		for c := range 4 {
			a, b := uint32(4*r+c), uint32(4*r+(c+1)%4)
			// Counter-clockwise seen from outside.
			p.Indices = append(p.Indices, a, a+4, b, b, a+4, b+4)
		}
	}
	p.Material = -1
	var b gltf.Builder
	mesh := b.AddMesh("tube", p)
	lower := b.AddNode(gltf.Node{Name: "lower", Mesh: -1})
	upper := b.AddNode(gltf.Node{Name: "upper", Mesh: -1, Translation: mgl32.Vec3{0, 1, 0}})
	b.AddChild(lower, upper)
	tube := b.AddNode(gltf.Node{Name: "tube", Mesh: mesh})
	b.AddSkin(gltf.Skin{Name: "bones", Joints: []int{lower, upper}, Skeleton: lower,
		InverseBind: []mgl32.Mat4{mgl32.Ident4(), mgl32.Translate3D(0, -1, 0)}}, tube)
	q := mgl32.QuatRotate(math.Pi/2, mgl32.Vec3{0, 0, 1})
	b.AddAnimation(gltf.Animation{Name: "bend", Channels: []gltf.Channel{{
		Node: upper, Path: gltf.Rotation, Times: []float32{0, 1},
		Values: []float32{0, 0, 0, 1, q.V[0], q.V[1], q.V[2], q.W},
	}}})
	return &b
}

// TestSkin decodes the bending tube and skins it on the CPU: at rest as
// it was bound, bent by the animation where the joint matrices put it.
func TestSkin(t *testing.T) {
	m, err := gltf.Decode(mustGLB(t, bendingTube()), "tube.glb", nil)
	if err != nil {
		t.Fatal(err)
	}
	checkModel(t, m)
	if len(m.Skins) != 1 || len(m.Skins[0].Joints) != 2 || m.Skins[0].Skeleton != m.Skins[0].Joints[0] {
		t.Fatalf("skins %+v", m.Skins)
	}
	if got, want := m.Skins[0].InverseBind[1], mgl32.Translate3D(0, -1, 0); got != want {
		t.Errorf("inverse bind 1: %v, want %v", got, want)
	}
	if len(m.Meshes) != 1 || len(m.Ignored) != 0 {
		t.Fatalf("%d meshes, ignored %v", len(m.Meshes), m.Ignored)
	}
	me := &m.Meshes[0]
	if me.Joints == nil || len(me.Joints) != len(me.Positions) || len(me.Weights) != len(me.Positions) || me.Transform != mgl32.Ident4() {
		t.Fatalf("mesh: %d positions, %d joints, %d weights, transform %v", len(me.Positions), len(me.Joints), len(me.Weights), me.Transform)
	}
	if len(me.Positions) != 3*32 { // flat normals: every triangle its own vertices
		t.Fatalf("%d vertices, want 96", len(me.Positions))
	}
	if want := (gltf.Box{Min: mgl32.Vec3{-0.2, 0, -0.2}, Max: mgl32.Vec3{0.2, 2, 0.2}}); !near(m.Bounds.Min, want.Min) || !near(m.Bounds.Max, want.Max) {
		t.Errorf("bounds %v, want %v", m.Bounds, want)
	}
	pose := make([]gltf.TRS, len(m.Nodes))
	world := make([]mgl32.Mat4, len(m.Nodes))
	jm := make([]mgl32.Mat4, 2)
	m.RestPose(pose)
	m.Animations[0].Sample(1, pose)
	m.WorldPose(pose, world)
	m.JointMatrices(0, world, jm)
	// The upper bone turned 90° about z at (0, 1, 0): a point (x, y, z)
	// of the bind pose above it goes to (1 - y, 1 + x, z); the middle
	// ring is halfway between that and where it was.
	bent := func(p mgl32.Vec3) mgl32.Vec3 { return mgl32.Vec3{1 - p[1], 1 + p[0], p[2]} }
	for i, p := range me.Positions {
		var w float32
		for r, y := range tubeRings {
			if y == p[1] {
				w = tubeUpper[r]
			}
		}
		want := p.Mul(1 - w).Add(bent(p).Mul(w))
		if got := me.SkinPosition(i, jm); !near(got, want) {
			t.Errorf("vertex %d %v: skinned to %v, want %v", i, p, got, want)
		}
	}
}

// TestDamagedSkins: invalid joints, weights and skins are errors with
// their JSON path.
func TestDamagedSkins(t *testing.T) {
	glb := mustGLB(t, bendingTube())
	attr := func(d map[string]any, name string) int {
		return getInt(d, "meshes.0.primitives.0.attributes."+name)
	}
	for _, c := range []struct {
		name, path string
		edit       func(map[string]any, []byte)
	}{
		{"joint out of range", "meshes[0].primitives[0].attributes.JOINTS_0", func(d map[string]any, bin []byte) {
			bin[accessorOffset(d, attr(d, "JOINTS_0"))+1] = 2 // vertex 0's second joint: the skin has 2
		}},
		{"weights sum", "meshes[0].primitives[0].attributes.WEIGHTS_0", func(d map[string]any, bin []byte) {
			off := accessorOffset(d, attr(d, "WEIGHTS_0"))
			binary.LittleEndian.PutUint32(bin[off:], math.Float32bits(0.5)) // vertex 0: 0.5 + 0
		}},
		{"negative weight", "meshes[0].primitives[0].attributes.WEIGHTS_0", func(d map[string]any, bin []byte) {
			off := accessorOffset(d, attr(d, "WEIGHTS_0"))
			binary.LittleEndian.PutUint32(bin[off+4:], math.Float32bits(-0.5))
		}},
		{"weights type", "meshes[0].primitives[0].attributes.WEIGHTS_0", func(d map[string]any, _ []byte) {
			set(d, "accessors."+strconv.Itoa(attr(d, "WEIGHTS_0"))+".type", "VEC3")
		}},
		{"joints normalized", "meshes[0].primitives[0].attributes.JOINTS_0", func(d map[string]any, _ []byte) {
			set(d, "accessors."+strconv.Itoa(attr(d, "JOINTS_0"))+".normalized", true)
		}},
		{"no joints", "meshes[0].primitives[0].attributes", func(d map[string]any, _ []byte) {
			delete(get(d, "meshes.0.primitives.0.attributes").(map[string]any), "JOINTS_0")
		}},
		{"no joints or weights", "meshes[0].primitives[0].attributes", func(d map[string]any, _ []byte) {
			a := get(d, "meshes.0.primitives.0.attributes").(map[string]any)
			delete(a, "JOINTS_0")
			delete(a, "WEIGHTS_0")
		}},
		{"inverse bind count", "skins[0].inverseBindMatrices", func(d map[string]any, _ []byte) {
			set(d, "accessors."+strconv.Itoa(getInt(d, "skins.0.inverseBindMatrices"))+".count", 1)
		}},
		{"inverse bind type", "skins[0].inverseBindMatrices", func(d map[string]any, _ []byte) {
			set(d, "skins.0.inverseBindMatrices", attr(d, "WEIGHTS_0"))
		}},
		{"inverse bind bottom row", "skins[0].inverseBindMatrices", func(d map[string]any, bin []byte) {
			off := accessorOffset(d, getInt(d, "skins.0.inverseBindMatrices"))
			binary.LittleEndian.PutUint32(bin[off+12:], math.Float32bits(1))
		}},
		{"joint node", "skins[0].joints[1]", func(d map[string]any, _ []byte) { set(d, "skins.0.joints.1", 9) }},
		{"joint twice", "skins[0].joints[1]", func(d map[string]any, _ []byte) { set(d, "skins.0.joints.1", 0) }},
		{"no joints in skin", "skins[0].joints", func(d map[string]any, _ []byte) { set(d, "skins.0.joints", []any{}) }},
		{"skeleton", "skins[0].skeleton", func(d map[string]any, _ []byte) { set(d, "skins.0.skeleton", 1) }},
		{"skin index", "nodes[2].skin", func(d map[string]any, _ []byte) { set(d, "nodes.2.skin", 3) }},
		{"skin without mesh", "nodes[0].skin", func(d map[string]any, _ []byte) { set(d, "nodes.0.skin", 0) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			edited := editGLB(t, glb, func(doc map[string]any, bin []byte) []byte { c.edit(doc, bin); return bin })
			_, err := gltf.Decode(edited, "bad.glb", nil)
			if err == nil {
				t.Fatal("Decode succeeded")
			}
			checkError(t, err, "bad.glb", c.path)
			if errors.Is(err, errors.ErrUnsupported) {
				t.Errorf("%v: refused as unsupported, want damaged", err)
			}
		})
	}
}

// TestSkinBuilderChecks: the builder refuses joints and weights that
// Decode would.
func TestSkinBuilderChecks(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(p *gltf.Primitive, s *gltf.Skin)
	}{
		{"weights sum", func(p *gltf.Primitive, _ *gltf.Skin) { p.Weights[0] = mgl32.Vec4{0.5, 0, 0, 0} }},
		{"joint out of range", func(p *gltf.Primitive, _ *gltf.Skin) { p.Joints[0][1] = 2 }},
		{"count", func(p *gltf.Primitive, _ *gltf.Skin) { p.Weights = p.Weights[1:] }},
		{"inverse binds", func(_ *gltf.Primitive, s *gltf.Skin) { s.InverseBind = s.InverseBind[:1] }},
		{"skeleton", func(_ *gltf.Primitive, s *gltf.Skin) { s.Skeleton = 1 }},
		{"joint twice", func(_ *gltf.Primitive, s *gltf.Skin) { s.Joints[1] = 0 }},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := gltf.Primitive{Material: -1, Positions: []mgl32.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}},
				Joints: [][4]uint16{{0, 1}, {0, 1}, {0, 1}}, Weights: []mgl32.Vec4{{1, 0, 0, 0}, {0.5, 0.5, 0, 0}, {0, 1, 0, 0}}}
			s := gltf.Skin{Joints: []int{0, 1}, Skeleton: -1, InverseBind: []mgl32.Mat4{mgl32.Ident4(), mgl32.Ident4()}}
			c.edit(&p, &s)
			var b gltf.Builder
			mesh := b.AddMesh("m", p)
			root := b.AddNode(gltf.Node{Mesh: -1})
			b.AddChild(root, b.AddNode(gltf.Node{Mesh: -1}))
			b.AddSkin(s, b.AddNode(gltf.Node{Mesh: mesh}))
			if _, err := b.GLB(); err == nil {
				t.Fatal("GLB succeeded")
			}
		})
	}
}
