package gltf_test

import (
	"encoding/binary"
	"errors"
	"math"
	"strconv"
	"strings"
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
	b.AddSkin(gltf.Skeleton{Name: "bones", Joints: []int{lower, upper}, Root: lower,
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
	if len(m.Skins) != 1 || len(m.Skins[0].Joints) != 2 || m.Skins[0].Root != m.Skins[0].Joints[0] {
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
// Decode or the Khronos validator would, with the JSON path they would
// have been written at (where the same defect is in TestDamagedSkins,
// the path Decode names).
func TestSkinBuilderChecks(t *testing.T) {
	const attrs = "meshes[0].primitives[0].attributes"
	for _, c := range []struct {
		name, path string
		edit       func(p *gltf.Primitive, s *gltf.Skeleton) []int // the nodes given the skin, nil: the mesh's
	}{
		{"weights sum", attrs + ".WEIGHTS_0", func(p *gltf.Primitive, _ *gltf.Skeleton) []int {
			p.Weights[0] = mgl32.Vec4{0.5, 0, 0, 0}
			return nil
		}},
		{"negative weight", attrs + ".WEIGHTS_0", func(p *gltf.Primitive, _ *gltf.Skeleton) []int {
			p.Weights[1] = mgl32.Vec4{1.5, -0.5, 0, 0}
			return nil
		}},
		{"joint out of range", attrs + ".JOINTS_0", func(p *gltf.Primitive, _ *gltf.Skeleton) []int {
			p.Joints[2][1] = 2
			return nil
		}},
		{"joint named twice", attrs + ".JOINTS_0", func(p *gltf.Primitive, _ *gltf.Skeleton) []int {
			p.Joints[1] = [4]uint16{1, 1}
			return nil
		}},
		{"count", attrs + ".JOINTS_0", func(p *gltf.Primitive, _ *gltf.Skeleton) []int {
			p.Weights = p.Weights[1:]
			return nil
		}},
		{"second set count", attrs + ".JOINTS_1", func(p *gltf.Primitive, _ *gltf.Skeleton) []int {
			p.Joints1 = make([][4]uint16, 3)
			return nil
		}},
		{"second set without a first", attrs + ".JOINTS_1", func(p *gltf.Primitive, _ *gltf.Skeleton) []int {
			p.Joints1, p.Weights1, p.Joints, p.Weights = p.Joints, p.Weights, nil, nil
			return nil
		}},
		{"joint out of range in the second set", attrs + ".JOINTS_1", func(p *gltf.Primitive, _ *gltf.Skeleton) []int {
			p.Joints1, p.Weights1 = [][4]uint16{{}, {0, 0, 5}, {}}, make([]mgl32.Vec4, 3)
			return nil
		}},
		{"weights sum over both sets", attrs + ".WEIGHTS_0", func(p *gltf.Primitive, _ *gltf.Skeleton) []int {
			p.Joints1, p.Weights1 = [][4]uint16{{}, {}, {0}}, []mgl32.Vec4{{}, {}, {0.5}}
			return nil
		}},
		{"no joints", attrs, func(p *gltf.Primitive, _ *gltf.Skeleton) []int {
			p.Joints, p.Weights = nil, nil
			return nil
		}},
		{"inverse binds", "skins[0].inverseBindMatrices", func(_ *gltf.Primitive, s *gltf.Skeleton) []int {
			s.InverseBind = s.InverseBind[:1]
			return nil
		}},
		{"skeleton", "skins[0].skeleton", func(_ *gltf.Primitive, s *gltf.Skeleton) []int {
			s.Root = 1
			return nil
		}},
		{"joint twice", "skins[0].joints[1]", func(_ *gltf.Primitive, s *gltf.Skeleton) []int {
			s.Joints[1] = 0
			return nil
		}},
		{"joint node", "skins[0].joints[1]", func(_ *gltf.Primitive, s *gltf.Skeleton) []int {
			s.Joints[1] = 9
			return nil
		}},
		{"no common root", "skins[0].joints", func(_ *gltf.Primitive, s *gltf.Skeleton) []int {
			s.Joints[1] = 2 // the mesh's node: a root of its own
			return nil
		}},
		{"no joints in skin", "skins[0].joints", func(_ *gltf.Primitive, s *gltf.Skeleton) []int {
			s.Joints, s.InverseBind = nil, nil
			return nil
		}},
		{"skin without mesh", "nodes[0].skin", func(*gltf.Primitive, *gltf.Skeleton) []int { return []int{0} }},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := gltf.Primitive{Material: -1, Positions: []mgl32.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}},
				Joints: [][4]uint16{{0, 1}, {0, 1}, {0, 1}}, Weights: []mgl32.Vec4{{1, 0, 0, 0}, {0.5, 0.5, 0, 0}, {0, 1, 0, 0}}}
			s := gltf.Skeleton{Joints: []int{0, 1}, Root: -1, InverseBind: []mgl32.Mat4{mgl32.Ident4(), mgl32.Ident4()}}
			nodes := c.edit(&p, &s)
			var b gltf.Builder
			mesh := b.AddMesh("m", p)
			root := b.AddNode(gltf.Node{Mesh: -1})
			b.AddChild(root, b.AddNode(gltf.Node{Mesh: -1}))
			meshNode := b.AddNode(gltf.Node{Mesh: mesh})
			if nodes == nil {
				nodes = []int{meshNode}
			}
			b.AddSkin(s, nodes...)
			_, err := b.GLB()
			if err == nil {
				t.Fatal("GLB succeeded")
			}
			var ge *gltf.Error
			if !errors.As(err, &ge) || ge.File != "builder" || ge.Path != c.path {
				t.Fatalf("error %q: want a *gltf.Error of the builder at %s", err, c.path)
			}
			if want := "gltf: builder: " + c.path + ": "; !strings.HasPrefix(err.Error(), want) {
				t.Errorf("error %q does not start with %q", err, want)
			}
			t.Log(err)
		})
	}
}

// twoSetTube builds a triangle skinned by eight joints (the first at the
// origin, the root of the others, each translated along x by its index), each vertex with influences in
// JOINTS_0/WEIGHTS_0 and JOINTS_1/WEIGHTS_1, one vertex's weights
// summing to 0.995, and normals and tangents; one morph target moves
// positions, normals and tangents.
func twoSetTube() *gltf.Builder {
	p := gltf.Primitive{Material: -1,
		Positions: []mgl32.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}},
		Normals:   []mgl32.Vec3{{0, 0, 1}, {0, 0, 1}, {0, 0, 1}},
		Tangents:  []mgl32.Vec4{{1, 0, 0, 1}, {1, 0, 0, 1}, {1, 0, 0, 1}},
		Indices:   []uint32{0, 1, 2},
		Joints:    [][4]uint16{{0, 1, 2, 3}, {1, 0, 0, 0}, {7, 6, 5, 0}},
		Weights:   []mgl32.Vec4{{0.4, 0.2, 0.1, 0.05}, {0.995, 0, 0, 0}, {0.3, 0.1, 0.05, 0}},
		Joints1:   [][4]uint16{{4, 5, 6, 0}, {0, 0, 0, 0}, {3, 2, 0, 0}},
		Weights1:  []mgl32.Vec4{{0.15, 0.08, 0.02, 0}, {}, {0.35, 0.2, 0, 0}},
		Targets: []gltf.Target{{
			Positions: []mgl32.Vec3{{0, 0, 0.5}, {0, 0, 0}, {0, 0, 0}},
			Normals:   []mgl32.Vec3{{0, 1, -1}, {0, 0, 0}, {0, 0, 0}},
			Tangents:  []mgl32.Vec3{{-1, 1, 0}, {0, 0, 0}, {0, 0, 0}},
		}},
	}
	var b gltf.Builder
	mesh := b.AddMesh("triangle", p)
	var joints []int
	for j := range 8 {
		joints = append(joints, b.AddNode(gltf.Node{Mesh: -1, Translation: mgl32.Vec3{float32(j), 0, 0}}))
		if j > 0 {
			b.AddChild(joints[0], joints[j])
		}
	}
	inv := make([]mgl32.Mat4, 8)
	for j := range inv {
		inv[j] = mgl32.Translate3D(-float32(j), 0, 0)
	}
	b.AddSkin(gltf.Skeleton{Name: "eight", Joints: joints, Root: -1, InverseBind: inv},
		b.AddNode(gltf.Node{Name: "triangle", Mesh: mesh, Weights: []float32{0}}))
	return &b
}

// TestSkinTwoSets: a vertex with influences in two sets keeps its four
// largest, scaled to sum to 1, in order of weight; the morph target's
// tangent displacements are decoded and Morph turns the tangent with
// them.
func TestSkinTwoSets(t *testing.T) {
	m, err := gltf.Decode(mustGLB(t, twoSetTube()), "two.glb", nil)
	if err != nil {
		t.Fatal(err)
	}
	checkModel(t, m)
	me := &m.Meshes[0]
	for v, want := range []struct {
		joints  [4]uint16
		weights mgl32.Vec4
	}{
		{[4]uint16{0, 1, 4, 2}, mgl32.Vec4{0.4, 0.2, 0.15, 0.1}.Mul(1 / 0.85)},
		{[4]uint16{1, 0, 0, 0}, mgl32.Vec4{1, 0, 0, 0}},
		{[4]uint16{3, 7, 2, 6}, mgl32.Vec4{0.35, 0.3, 0.2, 0.1}.Mul(1 / 0.95)},
	} {
		if me.Joints[v] != want.joints || me.Weights[v].Sub(want.weights).Len() > 1e-6 {
			t.Errorf("vertex %d: joints %v weights %v, want %v and %v", v, me.Joints[v], me.Weights[v], want.joints, want.weights)
		}
	}
	// Joint j moves a vertex by j along x: vertex 0 by its weights'
	// mean joint.
	pose, world, jm := make([]gltf.TRS, len(m.Nodes)), make([]mgl32.Mat4, len(m.Nodes)), make([]mgl32.Mat4, 8)
	m.RestPose(pose)
	for j := range 8 {
		pose[j].T = mgl32.Vec3{2 * float32(j), 0, 0}
	}
	m.WorldPose(pose, world)
	m.JointMatrices(0, world, jm)
	if got, want := me.SkinPosition(0, jm), (mgl32.Vec3{(0.2 + 4*0.15 + 2*0.1) / 0.85, 0, 0}); !near(got, want) {
		t.Errorf("vertex 0 skinned to %v, want %v", got, want)
	}
	if len(me.Targets) != 1 || me.Targets[0].Tangents == nil {
		t.Fatalf("targets %+v: want one, with tangent displacements", me.Targets)
	}
	tan := make([]mgl32.Vec4, 3)
	me.Morph([]float32{1}, nil, nil, tan)
	if want := (mgl32.Vec4{0, 1, 0, 1}); tan[0].Sub(want).Len() > 1e-6 {
		t.Errorf("tangent morphed at weight 1: %v, want %v", tan[0], want)
	}
}
