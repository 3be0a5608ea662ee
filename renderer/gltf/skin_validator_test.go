//go:build !windows

package gltf_test

import (
	"testing"

	"github.com/tickframe/tickframe/renderer/gltf"
)

// TestSkinValidator: the Khronos validator finds no error in the skinned
// models the builder writes: the bending tube, and the triangle with two
// sets of influences (one vertex's weights summing to 0.995, which the
// builder scales to 1: the validator allows only float32 rounding) and
// a morph target with tangent displacements.
func TestSkinValidator(t *testing.T) {
	v := theValidator(t)
	for name, b := range map[string]*gltf.Builder{"bending tube": bendingTube(), "two sets": twoSetTube()} {
		vd := v.check(t, mustGLB(t, b))
		if vd.Errors != 0 {
			t.Fatalf("%s: the validator: %+v", name, vd)
		}
		t.Logf("%s: the validator: %+v", name, vd)
	}
}

// TestMorphValidator: the Khronos validator finds no error in the morph
// targets, node weights and weights animation the builder writes.
func TestMorphValidator(t *testing.T) {
	v := theValidator(t)
	vd := v.check(t, mustGLB(t, morphTube()))
	if vd.Errors != 0 {
		t.Fatalf("the validator: %+v", vd)
	}
	t.Logf("the validator: %+v", vd)
}
