package gltf_test

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/tickframe/tickframe/renderer/gltf"
)

// sphereGLB returns a UV sphere of (n+1)² vertices with normals, UVs and
// 32-bit indices, and a node transform: with n = 135, a file of about 1 MB.
func sphereGLB(tb testing.TB, n int) []byte {
	p := gltf.Primitive{Material: 0, IndexBytes: 4}
	for i := range n + 1 {
		lat := math.Pi * float64(i) / float64(n)
		for j := range n + 1 {
			lon := 2 * math.Pi * float64(j) / float64(n)
			v := mgl32.Vec3{
				float32(math.Sin(lat) * math.Cos(lon)),
				float32(math.Cos(lat)),
				float32(math.Sin(lat) * math.Sin(lon)),
			}
			p.Positions = append(p.Positions, v)
			p.Normals = append(p.Normals, v)
			p.UVs = append(p.UVs, mgl32.Vec2{float32(j) / float32(n), float32(i) / float32(n)})
		}
	}
	for i := range uint32(n) {
		for j := range uint32(n) {
			a := i*uint32(n+1) + j
			b := a + uint32(n+1)
			p.Indices = append(p.Indices, a, b, a+1, a+1, b, b+1)
		}
	}
	var b gltf.Builder
	b.AddMaterial(gltf.DefaultMaterial())
	b.AddNode(gltf.Node{Mesh: b.AddMesh("sphere", p), Translation: mgl32.Vec3{0, 1, 0}})
	glb, err := b.GLB()
	if err != nil {
		tb.Fatal(err)
	}
	return glb
}

func BenchmarkLoadGLB(b *testing.B) {
	glb := sphereGLB(b, 135)
	b.SetBytes(int64(len(glb)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := gltf.Decode(glb, "sphere.glb", nil); err != nil {
			b.Fatal(err)
		}
	}
}
