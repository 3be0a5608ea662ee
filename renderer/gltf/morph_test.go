package gltf_test

import (
	"errors"
	"strconv"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/renderer/gltf"
)

// morphTube builds a skinned box tube, 0.4 wide and 1 high on one joint,
// with normals and two morph targets: target 0 moves its top ring 0.5
// along +x, target 1 widens the whole tube by 0.1 outwards (positions
// and normals). Its node's weights are (0.25, 0); animation 0 ("morph",
// LINEAR) takes them from (0, 0) at 0 s to (1, 0.5) at 1 s. A second,
// unskinned copy of the mesh, placed at x = 3 with weights (1, 0), is
// drawn as it rests.
func morphTube() *gltf.Builder {
	p := gltf.Primitive{Material: -1, Targets: make([]gltf.Target, 2)}
	for _, y := range []float32{0, 1} {
		for _, c := range tubeCorner {
			p.Positions = append(p.Positions, mgl32.Vec3{c[0], y, c[1]})
			n := mgl32.Vec3{c[0], 0, c[1]}.Normalize()
			p.Normals = append(p.Normals, n)
			p.Joints = append(p.Joints, [4]uint16{})
			p.Weights = append(p.Weights, mgl32.Vec4{1})
			p.Targets[0].Positions = append(p.Targets[0].Positions, mgl32.Vec3{0.5 * y, 0, 0})
			p.Targets[1].Positions = append(p.Targets[1].Positions, mgl32.Vec3{c[0], 0, c[1]}.Mul(0.5))
			p.Targets[1].Normals = append(p.Targets[1].Normals, mgl32.Vec3{0, 0.1, 0})
		}
	}
	for c := range 4 {
		a, b := uint32(c), uint32((c+1)%4)
		p.Indices = append(p.Indices, a, a+4, b, b, a+4, b+4)
	}
	var b gltf.Builder
	mesh := b.AddMesh("tube", p)
	plain := p
	plain.Joints, plain.Weights = nil, nil
	rest := b.AddMesh("rest", plain)
	root := b.AddNode(gltf.Node{Name: "root", Mesh: -1})
	tube := b.AddNode(gltf.Node{Name: "tube", Mesh: mesh, Weights: []float32{0.25, 0}})
	b.AddSkin(gltf.Skeleton{Name: "one", Joints: []int{root}, Root: -1}, tube)
	b.AddNode(gltf.Node{Name: "rest", Mesh: rest, Translation: mgl32.Vec3{3, 0, 0}, Weights: []float32{1, 0}})
	b.AddAnimation(gltf.Animation{Name: "morph", Channels: []gltf.Channel{{
		Node: tube, Path: gltf.Weights, Times: []float32{0, 1}, Values: []float32{0, 0, 1, 0.5},
	}}})
	return &b
}

// TestMorph decodes the morph tube: the skinned mesh keeps its targets
// and its node's weights, morphs on the CPU as glTF says, and its
// animation samples weights; the unskinned copy is baked at its weights.
func TestMorph(t *testing.T) {
	m, err := gltf.Decode(mustGLB(t, morphTube()), "morph.glb", nil)
	if err != nil {
		t.Fatal(err)
	}
	checkModel(t, m)
	if len(m.Meshes) != 2 {
		t.Fatalf("%d meshes, want 2", len(m.Meshes))
	}
	me, rest := &m.Meshes[0], &m.Meshes[1]
	if me.Joints == nil || len(me.Targets) != 2 || len(me.TargetWeights) != 2 || me.TargetWeights[0] != 0.25 {
		t.Fatalf("skinned mesh: %d targets, weights %v", len(me.Targets), me.TargetWeights)
	}
	if rest.Targets != nil || rest.TargetWeights != nil || rest.Positions[4] != (mgl32.Vec3{0.3, 1, -0.2}) {
		t.Errorf("unskinned mesh: targets %v, top corner %v; want it baked at weight 1: (0.3, 1, -0.2)", rest.Targets, rest.Positions[4])
	}
	pos, nrm := make([]mgl32.Vec3, 8), make([]mgl32.Vec3, 8)
	me.Morph([]float32{1, 0.5}, pos, nrm, nil)
	// The top corner (-0.2, 1, -0.2): +0.5 x, then widened by a quarter of
	// its offset.
	if want := (mgl32.Vec3{0.25, 1, -0.25}); pos[4].Sub(want).Len() > 1e-6 {
		t.Errorf("morphed corner %v, want %v", pos[4], want)
	}
	if want := (mgl32.Vec3{-1, 0, -1}).Normalize().Add(mgl32.Vec3{0, 0.05, 0}).Normalize(); nrm[0].Sub(want).Len() > 1e-6 {
		t.Errorf("morphed normal %v, want %v", nrm[0], want)
	}
	if len(m.Animations) != 1 || len(m.Animations[0].Channels) != 1 || m.Animations[0].Channels[0].Path != gltf.Weights {
		t.Fatalf("animations %+v", m.Animations)
	}
	a := &m.Animations[0]
	w := make([]float32, 2)
	for _, c := range []struct {
		t    float32
		want [2]float32
	}{{-1, [2]float32{0, 0}}, {0.5, [2]float32{0.5, 0.25}}, {2, [2]float32{1, 0.5}}} {
		if !a.SampleWeights(c.t, me.NodeIndex, w) || w[0] != c.want[0] || w[1] != c.want[1] {
			t.Errorf("weights at %v s: %v, want %v", c.t, w, c.want)
		}
	}
	if len(m.Ignored) != 0 {
		t.Errorf("ignored %q, want nothing", m.Ignored)
	}
	// A target's other attributes are read past, and listed.
	glb := editGLB(t, mustGLB(t, morphTube()), func(d map[string]any, bin []byte) []byte {
		set(d, "meshes.0.primitives.0.targets.0.TEXCOORD_0", getInt(d, "meshes.0.primitives.0.targets.0.POSITION"))
		return bin
	})
	if m2, err := gltf.Decode(glb, "uv.glb", nil); err != nil {
		t.Errorf("a target's TEXCOORD_0: %v", err)
	} else if len(m2.Ignored) != 1 || m2.Ignored[0] != "morph TEXCOORD_0" {
		t.Errorf("a target's TEXCOORD_0: ignored %q, want \"morph TEXCOORD_0\"", m2.Ignored)
	}
	if a.SampleWeights(0.5, rest.NodeIndex, w) {
		t.Error("the animation drives the unanimated node's weights")
	}
	// Sample leaves poses alone: a weights channel is no transform.
	pose := make([]gltf.TRS, len(m.Nodes))
	m.RestPose(pose)
	before := append([]gltf.TRS(nil), pose...)
	a.Sample(0.5, pose)
	for i := range pose {
		if pose[i] != before[i] {
			t.Errorf("Sample moved node %d", i)
		}
	}
}

// TestDamagedMorphs: target counts, weight counts and sizes that do not
// match are errors naming the JSON path; more targets than MaxTargets and
// weights past the limit are ErrLimit.
func TestDamagedMorphs(t *testing.T) {
	glb := mustGLB(t, morphTube())
	for _, c := range []struct {
		name, path string
		edit       func(map[string]any, []byte)
		limit      bool
	}{
		{"primitives disagree", "meshes[0].primitives[1].targets", func(d map[string]any, _ []byte) {
			ps := d["meshes"].([]any)[0].(map[string]any)["primitives"].([]any)
			q := map[string]any{"attributes": map[string]any{"POSITION": getInt(d, "meshes.1.primitives.0.attributes.POSITION")}}
			d["meshes"].([]any)[0].(map[string]any)["primitives"] = append(ps, q)
		}, false},
		{"node weights", "nodes[1].weights", func(d map[string]any, _ []byte) {
			set(d, "nodes.1.weights", []any{1})
		}, false},
		{"mesh weights", "meshes[0].weights", func(d map[string]any, _ []byte) {
			delete(d["nodes"].([]any)[1].(map[string]any), "weights")
			set(d, "meshes.0.weights", []any{1, 2, 3})
		}, false},
		{"weight too large", "nodes[1].weights", func(d map[string]any, _ []byte) {
			set(d, "nodes.1.weights", []any{1e6, 0})
		}, true},
		{"nine targets", "meshes[0].primitives[0].targets", func(d map[string]any, _ []byte) {
			ts := d["meshes"].([]any)[0].(map[string]any)["primitives"].([]any)[0].(map[string]any)["targets"].([]any)
			for len(ts) < 9 {
				ts = append(ts, ts[0])
			}
			set(d, "meshes.0.primitives.0.targets", ts)
		}, true},
		{"target count", "meshes[0].primitives[0].targets[0].POSITION", func(d map[string]any, _ []byte) {
			set(d, "meshes.0.primitives.0.targets.0.POSITION", getInt(d, "meshes.0.primitives.0.indices"))
		}, false},
		{"keyframe values", "animations[0].samplers[0].output", func(d map[string]any, _ []byte) {
			set(d, "accessors."+strconv.Itoa(getInt(d, "animations.0.samplers.0.output"))+".count", 3)
		}, false},
		{"morph reach", "animations[0]", func(d map[string]any, _ []byte) {
			// At rest within 1e18 (1.1e16), but a weight of 1000 on the
			// 0.5 lean reaches 5e18.
			set(d, "nodes.0.scale", []any{1e16, 1e16, 1e16})
		}, true},
		{"weights without a mesh", "nodes[0].weights", func(d map[string]any, _ []byte) {
			set(d, "nodes.0.weights", []any{1})
		}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			edited := editGLB(t, glb, func(doc map[string]any, bin []byte) []byte { c.edit(doc, bin); return bin })
			_, err := gltf.Decode(edited, "bad.glb", nil)
			if err == nil {
				t.Fatal("Decode succeeded")
			}
			checkError(t, err, "bad.glb", c.path)
			if errors.Is(err, gltf.ErrLimit) != c.limit || errors.Is(err, errors.ErrUnsupported) {
				t.Errorf("%v: ErrLimit %v, want %v", err, !c.limit, c.limit)
			}
		})
	}
}

// TestMorphBuilderChecks: the builder refuses morph targets that Decode
// or the Khronos validator would, with the JSON path they would have
// been written at (Decode's, where TestDamagedMorphs has the same
// defect).
func TestMorphBuilderChecks(t *testing.T) {
	for _, c := range []struct {
		name, path string
		edit       func(p, q *gltf.Primitive, n *gltf.Node)
	}{
		{"primitives disagree", "meshes[0].primitives[1].targets", func(_, q *gltf.Primitive, _ *gltf.Node) {
			q.Targets = q.Targets[:1]
		}},
		{"nine targets", "meshes[0].primitives[0].targets", func(p, _ *gltf.Primitive, _ *gltf.Node) {
			for len(p.Targets) < 9 {
				p.Targets = append(p.Targets, p.Targets[0])
			}
		}},
		{"target count", "meshes[0].primitives[0].targets[0].POSITION", func(p, _ *gltf.Primitive, _ *gltf.Node) {
			p.Targets[0].Positions = p.Targets[0].Positions[1:]
		}},
		{"normals without normals", "meshes[0].primitives[1].targets[1].NORMAL", func(_, q *gltf.Primitive, _ *gltf.Node) {
			q.Normals = nil
		}},
		{"tangents without tangents", "meshes[0].primitives[0].targets[0].TANGENT", func(p, _ *gltf.Primitive, _ *gltf.Node) {
			p.Targets[0].Tangents = make([]mgl32.Vec3, len(p.Positions))
		}},
		{"node weights", "nodes[0].weights", func(_, _ *gltf.Primitive, n *gltf.Node) { n.Weights = []float32{1} }},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := gltf.Primitive{Material: -1, Positions: []mgl32.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}},
				Normals: []mgl32.Vec3{{0, 0, 1}, {0, 0, 1}, {0, 0, 1}}, Targets: []gltf.Target{
					{Positions: []mgl32.Vec3{{1, 0, 0}, {1, 0, 0}, {1, 0, 0}}},
					{Normals: []mgl32.Vec3{{0, 1, 0}, {0, 1, 0}, {0, 1, 0}}},
				}}
			q := p
			q.Targets = append([]gltf.Target(nil), p.Targets...)
			n := gltf.Node{Weights: []float32{0.5, 0.5}}
			c.edit(&p, &q, &n)
			var b gltf.Builder
			n.Mesh = b.AddMesh("m", p, q)
			b.AddNode(n)
			_, err := b.GLB()
			var ge *gltf.Error
			if !errors.As(err, &ge) || ge.File != "builder" || ge.Path != c.path {
				t.Fatalf("error %v: want a *gltf.Error of the builder at %s", err, c.path)
			}
			t.Log(err)
		})
	}
}
