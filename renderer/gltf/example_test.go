package gltf_test

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/tickframe/tickframe/renderer/gltf"
)

// A model built with Builder, written as .glb and read back.
func Example() {
	var b gltf.Builder
	red := gltf.DefaultMaterial()
	red.Name, red.BaseColor, red.Metallic = "red", mgl32.Vec4{1, 0, 0, 1}, 0
	tri := b.AddMesh("triangle", gltf.Primitive{
		Positions: []mgl32.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}},
		Indices:   []uint32{0, 1, 2},
		Material:  b.AddMaterial(red),
	})
	arm := b.AddNode(gltf.Node{Name: "arm", Mesh: tri, Translation: mgl32.Vec3{0, 1, 0}})
	b.AddNode(gltf.Node{Name: "body", Mesh: -1, Translation: mgl32.Vec3{2, 0, 0}, Children: []int{arm}})
	glb, err := b.GLB()
	if err != nil {
		fmt.Println(err)
		return
	}

	m, err := gltf.Decode(glb, "example.glb", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	m.Bake()
	me := m.Meshes[0]
	fmt.Println(me.Node, me.Positions, me.Normals[0], m.Materials[me.Material].Name)
	fmt.Println(m.Bounds)
	// Output:
	// arm [[2 1 0] [3 1 0] [2 2 0]] [0 0 1] red
	// {[2 1 0] [3 2 0]}
}
