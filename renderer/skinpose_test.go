package renderer_test

import (
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/simthread"
)

// TestAppendSkin: two characters appended to a snapshot after a third's
// data point each at their own joints and weights, as Append and
// AppendWeights write them, and doing it again allocates nothing.
func TestAppendSkin(t *testing.T) {
	m := morphedTube(t)
	ch, err := renderer.NewCharacter(m)
	if err != nil {
		t.Fatal(err)
	}
	var dst simthread.Snapshot
	fill := func() {
		dst.Skins, dst.Joints, dst.MorphWeights = dst.Skins[:0], dst.Joints[:0], dst.MorphWeights[:0]
		dst.Joints = append(dst.Joints, simthread.Joint{}) // someone else's
		dst.MorphWeights = append(dst.MorphWeights, 7)
		for i, at := range []float32{0.25, 0.75} {
			ch.Pose(0, at)
			ch.AppendSkin(&dst, simthread.Skin{Model: 3, Epoch: 9}, mgl32.Translate3D(float32(i), 0, 0))
		}
	}
	fill()
	if len(dst.Skins) != 2 || len(dst.Joints) != 3 || len(dst.MorphWeights) != 5 {
		t.Fatalf("%d skins, %d joints, %d weights; want 2, 3, 5", len(dst.Skins), len(dst.Joints), len(dst.MorphWeights))
	}
	for i, s := range dst.Skins {
		if s.Model != 3 || s.Epoch != 9 || s.First != uint32(1+i) || s.FirstWeight != uint32(1+2*i) {
			t.Errorf("skin %d: %+v", i, s)
		}
		if w := dst.MorphWeights[s.FirstWeight]; w != []float32{0.25, 0.75}[i] {
			t.Errorf("skin %d: first weight %v", i, w)
		}
		if x := dst.Joints[s.First].Pos[0]; x != float32(i) {
			t.Errorf("skin %d: its joint at x = %v, want %d", i, x, i)
		}
	}
	if n := testing.AllocsPerRun(10, fill); n != 0 {
		t.Errorf("%v allocations a snapshot, want 0", n)
	}
}
