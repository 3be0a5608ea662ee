package gltf_test

import (
	"errors"
	"math"
	"strconv"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/tickframe/tickframe/renderer/gltf"
)

// animatedModel is a box on node 0, the child of node 1 (translated by
// (0, 10, 0)), with two animations of node 0: "move", a LINEAR
// translation from (0, 0, 0) at 1 s to (4, 0, 0) at 3 s, a STEP scale of
// 1 then 2 from 2 s and a LINEAR rotation about y from 0 at 0 s to 90° at
// 4 s; "spline", a CUBICSPLINE translation along x.
func animatedModel(t testing.TB) *gltf.Model {
	var b gltf.Builder
	child := b.AddNode(gltf.Node{Name: "box", Mesh: b.AddMesh("box", boxPrimitive(-1))})
	b.AddNode(gltf.Node{Name: "root", Mesh: -1, Translation: mgl32.Vec3{0, 10, 0}, Children: []int{child}})
	q := func(a float64) []float32 { // about y, x y z w
		return []float32{0, float32(math.Sin(a / 2)), 0, float32(math.Cos(a / 2))}
	}
	rot := append(q(0), q(math.Pi/2)...)
	b.AddAnimation(gltf.Animation{Name: "move", Channels: []gltf.Channel{
		{Node: child, Path: gltf.Translation, Interp: gltf.InterpLinear, Times: []float32{1, 3}, Values: []float32{0, 0, 0, 4, 0, 0}},
		{Node: child, Path: gltf.Scale, Interp: gltf.InterpStep, Times: []float32{0, 2}, Values: []float32{1, 1, 1, 2, 2, 2}},
		{Node: child, Path: gltf.Rotation, Interp: gltf.InterpLinear, Times: []float32{0, 4}, Values: rot},
	}})
	// A cubic spline: the value goes 0 → 1 over [0, 2] with out-tangent 3
	// at the first keyframe and in-tangent 0 at the second.
	b.AddAnimation(gltf.Animation{Name: "spline", Channels: []gltf.Channel{
		{Node: child, Path: gltf.Translation, Interp: gltf.InterpCubicSpline, Times: []float32{0, 2},
			Values: []float32{
				0, 0, 0, 0, 0, 0, 3, 0, 0, // in, value, out
				0, 0, 0, 1, 0, 0, 0, 0, 0,
			}},
	}})
	m, err := gltf.Decode(mustGLB(t, &b), "anim.glb", nil)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestAnimationSampling samples each interpolation where its closed form
// is known, before, inside and after the keyframes, and composes the
// node tree.
func TestAnimationSampling(t *testing.T) {
	m := animatedModel(t)
	if len(m.Animations) != 2 || len(m.Nodes) != 2 || len(m.Ignored) > 0 {
		t.Fatalf("%d animations, %d nodes, ignored %q", len(m.Animations), len(m.Nodes), m.Ignored)
	}
	a := &m.Animations[0]
	if a.Start != 0 || a.End != 4 || a.Name != "move" {
		t.Errorf("animation %q from %v to %v s, want move from 0 to 4", a.Name, a.Start, a.End)
	}
	pose := make([]gltf.TRS, len(m.Nodes))
	world := make([]mgl32.Mat4, len(m.Nodes))
	box := m.Meshes[0].NodeIndex
	for _, c := range []struct {
		t     float32
		pos   mgl32.Vec3
		scale float32
		angle float64
	}{
		{0, mgl32.Vec3{0, 10, 0}, 1, 0},                  // before the translation's first key
		{1.5, mgl32.Vec3{1, 10, 0}, 1, math.Pi / 16 * 3}, // linear: a quarter of the way
		{2, mgl32.Vec3{2, 10, 0}, 2, math.Pi / 4},        // step: the new key from its time on
		{5, mgl32.Vec3{4, 10, 0}, 2, math.Pi / 2},        // after the last keys
	} {
		m.RestPose(pose)
		a.Sample(c.t, pose)
		m.WorldPose(pose, world)
		w := world[box]
		if got := w.Col(3).Vec3(); got.Sub(c.pos).Len() > 1e-5 {
			t.Errorf("at %v s the box is at %v, want %v", c.t, got, c.pos)
		}
		// The box's x axis: scaled, turned by the angle about y.
		s, co := math.Sincos(c.angle)
		want := mgl32.Vec3{float32(co), 0, float32(-s)}.Mul(c.scale)
		if got := w.Col(0).Vec3(); got.Sub(want).Len() > 1e-5 {
			t.Errorf("at %v s the box's x axis is %v, want %v (scale %v, angle %.4f)", c.t, got, want, c.scale, c.angle)
		}
	}
	// The cubic spline: p(s) = h10·td·3 + h01·1 with td = 2.
	sp := &m.Animations[1]
	for _, tt := range []float32{0.5, 1, 1.5} {
		s := float64(tt / 2)
		want := float32((s*s*s-2*s*s+s)*2*3 + (-2*s*s*s + 3*s*s))
		m.RestPose(pose)
		sp.Sample(tt, pose)
		if got := pose[box].T[0]; math.Abs(float64(got-want)) > 1e-6 {
			t.Errorf("spline at %v s: %v, want %v", tt, got, want)
		}
	}
	moved := m.Animated(a)
	if !moved[box] || moved[1-box] {
		t.Errorf("animated nodes %v: want the box's alone", moved)
	}
}

// TestDamagedAnimations: times that do not increase, outputs that do not
// match, a matrix node targeted, an unknown path, weights of a mesh
// without morph targets are errors.
func TestDamagedAnimations(t *testing.T) {
	var b gltf.Builder
	child := b.AddNode(gltf.Node{Name: "box", Mesh: b.AddMesh("box", boxPrimitive(-1))})
	b.AddAnimation(gltf.Animation{Channels: []gltf.Channel{
		{Node: child, Path: gltf.Translation, Times: []float32{0, 1}, Values: []float32{0, 0, 0, 1, 1, 1}},
	}})
	glb := mustGLB(t, &b)
	for _, c := range []struct {
		name, path string
		edit       func(map[string]any, []byte)
		refused    bool
	}{
		{"times", "animations[0].samplers[0].input", func(d map[string]any, bin []byte) {
			off := accessorOffset(d, getInt(d, "animations.0.samplers.0.input"))
			copy(bin[off+4:off+8], bin[off:off+4]) // the second time = the first
		}, false},
		{"count", "animations[0].samplers[0].output", func(d map[string]any, _ []byte) {
			set(d, "accessors."+strconv.Itoa(getInt(d, "animations.0.samplers.0.output"))+".count", 1)
		}, false},
		{"interpolation", "animations[0].samplers[0].interpolation", func(d map[string]any, _ []byte) {
			set(d, "animations.0.samplers.0.interpolation", "QUADRATIC")
		}, true}, // the validator warns (VALUE_NOT_IN_LIST): a newer version's, maybe
		{"path", "animations[0].channels[0].target.path", func(d map[string]any, _ []byte) {
			set(d, "animations.0.channels.0.target.path", "colour")
		}, true},
		{"weights", "animations[0].channels[0].target.node", func(d map[string]any, _ []byte) {
			set(d, "animations.0.channels.0.target.path", "weights") // the box has no morph targets
		}, false},
		{"matrix", "animations[0].channels[0].target.node", func(d map[string]any, _ []byte) {
			set(d, "nodes.0.matrix", []any{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1})
		}, false},
		{"node", "animations[0].channels[0].target.node", func(d map[string]any, _ []byte) {
			set(d, "animations.0.channels.0.target.node", 7)
		}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			edited := editGLB(t, glb, func(doc map[string]any, bin []byte) []byte { c.edit(doc, bin); return bin })
			_, err := gltf.Decode(edited, "bad.glb", nil)
			if err == nil {
				t.Fatal("Decode succeeded")
			}
			checkError(t, err, "bad.glb", c.path)
			if errors.Is(err, errors.ErrUnsupported) != c.refused {
				t.Errorf("%v: refused %v, want %v", err, !c.refused, c.refused)
			}
		})
	}
}

// TestDecompose recovers T, R and S from T·R·S, mirrored too.
func TestDecompose(t *testing.T) {
	for _, want := range []gltf.TRS{
		{T: mgl32.Vec3{1, 2, 3}, R: mgl32.QuatRotate(0.7, mgl32.Vec3{1, 2, 3}.Normalize()), S: mgl32.Vec3{0.5, 2, 3}},
		{T: mgl32.Vec3{-4, 0, 1}, R: mgl32.QuatRotate(2.9, mgl32.Vec3{0, 1, 0}), S: mgl32.Vec3{-1, 1, 2}},
	} {
		got := gltf.Decompose(want.Mat4())
		if got.T.Sub(want.T).Len() > 1e-5 || got.S.Sub(want.S).Len() > 1e-5 || math.Abs(float64(got.R.Dot(want.R))) < 1-1e-6 {
			t.Errorf("Decompose(%+v) = %+v", want, got)
		}
	}
}
