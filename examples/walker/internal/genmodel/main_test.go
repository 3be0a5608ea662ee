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
		if !reflect.DeepEqual(got.Meshes, want.Meshes) || !reflect.DeepEqual(got.Bounds, want.Bounds) ||
			!reflect.DeepEqual(got.Nodes, want.Nodes) || !reflect.DeepEqual(got.Skins, want.Skins) ||
			!reflect.DeepEqual(got.Animations, want.Animations) {
			t.Errorf("assets/%s: its meshes, skin or clips differ from the generator's: run go generate ./examples/walker", name)
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

// TestWalkerClips checks the walker's skin and clips: seven joints,
// idle (2 s) then walk (1 s), each ending where it starts (they loop), and
// the walk swinging the legs against each other.
func TestWalkerClips(t *testing.T) {
	data, err := walker()
	if err != nil {
		t.Fatal(err)
	}
	m, err := gltf.Decode(data, "walker.glb", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Skins) != 1 || len(m.Skins[0].Joints) != joints || len(m.Animations) != 2 {
		t.Fatalf("%d skins, %d animations; want 1 skin of %d joints, 2 clips", len(m.Skins), len(m.Animations), joints)
	}
	for i, c := range []struct {
		name string
		end  float32
	}{{"idle", 2}, {"walk", 1}} {
		a := &m.Animations[i]
		if a.Name != c.name || a.Start != 0 || a.End != c.end {
			t.Errorf("animation %d: %q from %v to %v s, want %q over %v s", i, a.Name, a.Start, a.End, c.name, c.end)
		}
		first, last := make([]gltf.TRS, len(m.Nodes)), make([]gltf.TRS, len(m.Nodes))
		m.RestPose(first)
		m.RestPose(last)
		a.Sample(0, first)
		a.Sample(a.End, last)
		if !reflect.DeepEqual(first, last) {
			t.Errorf("%s does not end where it starts: it cannot loop", c.name)
		}
	}
	pose := make([]gltf.TRS, len(m.Nodes))
	m.RestPose(pose)
	m.Animations[1].Sample(0.25, pose)
	l, r := pose[m.Skins[0].Joints[legL]].R, pose[m.Skins[0].Joints[legR]].R
	if l.V[0] > -0.2 || r.V[0] < 0.2 {
		t.Errorf("a quarter into the walk, legs turned %v and %v: want them 30° apart each way", l, r)
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
