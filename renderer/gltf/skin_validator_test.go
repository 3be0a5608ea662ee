//go:build !windows

package gltf_test

import (
	"testing"
)

// TestSkinValidator: the Khronos validator finds no error in the skinned
// models the builder writes.
func TestSkinValidator(t *testing.T) {
	v := theValidator(t)
	vd := v.check(t, mustGLB(t, bendingTube()))
	if vd.Errors != 0 {
		t.Fatalf("the validator: %+v", vd)
	}
	t.Logf("the validator: %+v", vd)
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
