package gltf_test

import (
	"image"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/tickframe/tickframe/renderer/gltf"
)

// texturedGLB returns a model of about size bytes: sphereGLB's mesh
// (about 1 MB) with a base colour texture of noise, which PNG cannot
// compress, making up the rest, as a textured asset's bytes mostly are.
func texturedGLB(tb testing.TB, size int) []byte {
	side := 16
	for 4*side*side < size-1<<20 {
		side += 16
	}
	img := image.NewNRGBA(image.Rect(0, 0, side, side))
	r := rand.New(rand.NewPCG(1, 2))
	for i := range img.Pix {
		img.Pix[i] = byte(r.Uint32())
	}
	var b gltf.Builder
	mat := gltf.DefaultMaterial()
	mat.BaseColorTexture = img
	mi := b.AddMaterial(mat)
	sphere, err := gltf.Decode(sphereGLB(tb, 135), "sphere.glb", nil)
	if err != nil {
		tb.Fatal(err)
	}
	me := sphere.Meshes[0]
	b.AddNode(gltf.Node{Mesh: b.AddMesh("sphere", gltf.Primitive{Positions: me.Positions, Normals: me.Normals, UVs: me.UVs,
		Indices: me.Indices, IndexBytes: 4, Material: mi})})
	glb, err := b.GLB()
	if err != nil {
		tb.Fatal(err)
	}
	return glb
}

// BenchmarkLoadTexturedGLB decodes a generated 10 MB textured .glb (the
// issue's target: at most 100 ms, at most twice its bytes in peak heap).
// ns/op is the time; allocbytes/filebyte is everything Decode allocates
// over the file's size (runtime.MemStats.TotalAlloc across one Decode,
// after a GC), an upper bound of the heap it adds at its peak, as nothing
// it allocates is freed before it returns the model.
func BenchmarkLoadTexturedGLB(b *testing.B) {
	glb := texturedGLB(b, 10<<20)
	b.SetBytes(int64(len(glb)))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if _, err := gltf.Decode(glb, "textured.glb", nil); err != nil {
		b.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := gltf.Decode(glb, "textured.glb", nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(len(glb)), "allocbytes/filebyte")
	b.ReportMetric(float64(len(glb))/(1<<20), "file-MiB")
}
