package gltf

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl32"
)

// morphTargets writes primitive p's morph targets, if it has any, as the
// targets of out: float VEC3 accessors, POSITION with its min and max as
// the specification requires.
func (b *Builder) morphTargets(p Primitive, out *primitive) error {
	if len(p.Targets) == 0 {
		return nil
	}
	if len(p.Targets) > MaxTargets {
		return fmt.Errorf("%d morph targets: more than %d", len(p.Targets), MaxTargets)
	}
	n := len(p.Positions)
	for i, t := range p.Targets {
		attrs := map[string]int{}
		for _, a := range []struct {
			name string
			v    []mgl32.Vec3
		}{{"POSITION", t.Positions}, {"NORMAL", t.Normals}, {"TANGENT", t.Tangents}} {
			if a.v == nil {
				continue
			}
			if len(a.v) != n {
				return fmt.Errorf("target %d: %d %s displacements for %d positions", i, len(a.v), a.name, n)
			}
			data := make([]byte, 0, 12*n)
			for k, x := range a.v {
				if !finite3(x) {
					return fmt.Errorf("target %d: %s displacement %d is not finite", i, a.name, k)
				}
				for _, c := range x {
					data = binary.LittleEndian.AppendUint32(data, math.Float32bits(c))
				}
			}
			view := b.addView(data, 0, targetArrayBuffer)
			acc := accessor{BufferView: &view, ComponentType: typeFloat, Count: n, Type: "VEC3"}
			if a.name == "POSITION" {
				lo, hi := bounds(a.v)
				acc.Min = []float64{float64(lo[0]), float64(lo[1]), float64(lo[2])}
				acc.Max = []float64{float64(hi[0]), float64(hi[1]), float64(hi[2])}
			}
			attrs[a.name] = b.addAccessor(acc)
		}
		out.Targets = append(out.Targets, attrs)
	}
	return nil
}
