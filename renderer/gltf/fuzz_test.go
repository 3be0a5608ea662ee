package gltf_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/tickframe/tickframe/renderer/gltf"
)

// seedCorpus returns the fuzz targets' seeds: GLB and .gltf files (the
// latter with their buffers embedded) that between them use every
// container, vertex attribute, material feature, node transform and
// interpolation Decode reads (morph targets: TestValidatorOracle's own
// morph mutations).
func seedCorpus(f testing.TB) [][]byte {
	var seeds [][]byte
	seeds = append(seeds, mustGLB(f, texturedBox()))
	inter := texturedBox()
	inter.Interleave = true
	flat := boxPrimitive(0)
	flat.Normals, flat.IndexBytes = nil, 2
	inter.AddChild(1, inter.AddNode(gltf.Node{Mesh: inter.AddMesh("flat", flat), Scale: mgl32.Vec3{-1, 1, 1}}))
	seeds = append(seeds, mustGLB(f, inter))
	js, _, err := texturedBox().GLTF("")
	if err != nil {
		f.Fatal(err)
	}
	seeds = append(seeds, js)
	var tri gltf.Builder
	tri.AddNode(gltf.Node{Mesh: tri.AddMesh("tri", gltf.Primitive{
		Positions: []mgl32.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}},
		Material:  -1,
	}), Matrix: mgl32.Translate3D(1, 2, 3)})
	js, _, err = tri.GLTF("")
	if err != nil {
		f.Fatal(err)
	}
	seeds = append(seeds, js, mustGLB(f, &tri))
	seeds = append(seeds, mustGLB(f, fullAnimated()))
	return seeds
}

// fullAnimated returns a builder holding a box (node 0) with every
// material feature and vertex attribute, and an animation whose channel
// j, driving its translation, rotation and scale (LINEAR, STEP and
// CUBICSPLINE), uses sampler j.
func fullAnimated() *gltf.Builder {
	var full gltf.Builder
	p := boxPrimitive(full.AddMaterial(fullMaterial()))
	p.UVs1 = p.UVs
	for range p.Positions {
		p.Colors = append(p.Colors, mgl32.Vec4{0.5, 0.25, 1, 1})
		p.Tangents = append(p.Tangents, mgl32.Vec4{1, 0, 0, 1})
	}
	box := full.AddNode(gltf.Node{Mesh: full.AddMesh("box", p)})
	full.AddAnimation(gltf.Animation{Channels: []gltf.Channel{
		{Node: box, Path: gltf.Translation, Times: []float32{0, 1}, Values: []float32{0, 0, 0, 1, 2, 3}},
		{Node: box, Path: gltf.Rotation, Interp: gltf.InterpStep, Times: []float32{0, 1}, Values: []float32{0, 0, 0, 1, 0, 1, 0, 0}},
		{Node: box, Path: gltf.Scale, Interp: gltf.InterpCubicSpline, Times: []float32{0, 2},
			Values: []float32{0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 2, 2, 2, 0, 0, 0}},
	}})
	return &full
}

// FuzzDecode checks that Decode never panics and that what it returns keeps
// its promises, before and after Bake.
func FuzzDecode(f *testing.F) {
	for _, seed := range seedCorpus(f) {
		f.Add(seed)
	}

	decode := func(t *testing.T, data []byte) {
		m, err := gltf.Decode(data, "fuzz.glb", nil)
		if err != nil {
			var ge *gltf.Error
			if !errors.As(err, &ge) || ge.File != "fuzz.glb" {
				t.Fatalf("error %q is not a *gltf.Error naming the file", err)
			}
			return
		}
		checkModel(t, m)
		// Every animation samples into finite poses.
		pose := make([]gltf.TRS, len(m.Nodes))
		world := make([]mgl32.Mat4, len(m.Nodes))
		for i := range m.Animations {
			a := &m.Animations[i]
			for _, at := range []float32{a.Start - 1, (a.Start + a.End) / 2, a.End + 1} {
				m.RestPose(pose)
				a.Sample(at, pose)
				m.WorldPose(pose, world)
			}
		}
		m.Bake()
		checkModel(t, m)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		decode(t, data)
		// Most insertions and deletions break a GLB's total length, which
		// Decode checks first; try again with it repaired, to reach the
		// chunks behind it.
		if len(data) >= 12 && string(data[:4]) == "glTF" {
			fixed := bytes.Clone(data)
			binary.LittleEndian.PutUint32(fixed[8:], uint32(len(fixed)))
			decode(t, fixed)
		}
	})
}
