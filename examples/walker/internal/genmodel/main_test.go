package main

import (
	"image"
	"reflect"
	"testing"

	"github.com/tickframe/tickframe/renderer/gltf"
)

// TestAssetsAreGenerated checks that the committed models are what this
// generator makes (run go generate ./examples/walker after changing it).
// It compares the decoded models, not the bytes, which a new PNG encoder
// could change.
func TestAssetsAreGenerated(t *testing.T) {
	for name, build := range map[string]func() ([]byte, error){"walker.glb": walker, "ground.glb": ground} {
		data, err := build()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want, err := gltf.Decode(data, name, nil)
		if err != nil {
			t.Fatalf("generated %s: %v", name, err)
		}
		got, err := gltf.Load("../../assets/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Meshes, want.Meshes) || !reflect.DeepEqual(got.Bounds, want.Bounds) {
			t.Errorf("assets/%s: its meshes differ from the generator's: run go generate ./examples/walker", name)
		}
		if len(got.Materials) != 1 || len(want.Materials) != 1 {
			t.Fatalf("assets/%s: %d materials, the generator %d; want 1", name, len(got.Materials), len(want.Materials))
		}
		g, w := got.Materials[0], want.Materials[0]
		if g.Name != w.Name || g.BaseColor != w.BaseColor || g.Metallic != w.Metallic || g.Roughness != w.Roughness ||
			!samePixels(g.BaseColorTexture, w.BaseColorTexture) {
			t.Errorf("assets/%s: its material differs from the generator's: run go generate ./examples/walker", name)
		}
	}
}

func samePixels(a, b image.Image) bool {
	if a == nil || b == nil || a.Bounds() != b.Bounds() {
		return false
	}
	r := a.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if a.At(x, y) != b.At(x, y) {
				return false
			}
		}
	}
	return true
}
