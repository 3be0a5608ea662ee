package gltf_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/tickframe/tickframe/renderer/gltf"
)

// FuzzDecode checks that Decode never panics and that what it returns keeps
// its promises, before and after Bake.
func FuzzDecode(f *testing.F) {
	f.Add(mustGLB(f, texturedBox()))
	inter := texturedBox()
	inter.Interleave = true
	flat := boxPrimitive(0)
	flat.Normals, flat.IndexBytes = nil, 2
	inter.AddChild(1, inter.AddNode(gltf.Node{Mesh: inter.AddMesh("flat", flat), Scale: mgl32.Vec3{-1, 1, 1}}))
	f.Add(mustGLB(f, inter))
	js, _, err := texturedBox().GLTF("")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(js)
	var tri gltf.Builder
	tri.AddNode(gltf.Node{Mesh: tri.AddMesh("tri", gltf.Primitive{
		Positions: []mgl32.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}},
		Material:  -1,
	}), Matrix: mgl32.Translate3D(1, 2, 3)})
	js, _, err = tri.GLTF("")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(js)
	f.Add(mustGLB(f, &tri))

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
