package gltf

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl32"
)

// morphTargets writes primitive p's morph targets, if it has any, as the
// targets of out (at JSON path tp): float VEC3 accessors, POSITION with
// its min and max as the specification requires.
func (b *Builder) morphTargets(p Primitive, out *primitive, tp string) error {
	if len(p.Targets) == 0 {
		return nil
	}
	if len(p.Targets) > MaxTargets {
		return builderError(tp, "%d morph targets: more than %d", len(p.Targets), MaxTargets)
	}
	n := len(p.Positions)
	for i, t := range p.Targets {
		attrs := map[string]int{}
		for _, a := range []struct {
			name string
			v    []mgl32.Vec3
			base bool // the primitive has the attribute: the validator asks for it
		}{{"POSITION", t.Positions, true}, {"NORMAL", t.Normals, p.Normals != nil}, {"TANGENT", t.Tangents, p.Tangents != nil}} {
			if a.v == nil {
				continue
			}
			ap := fmt.Sprintf("%s[%d].%s", tp, i, a.name)
			if !a.base {
				return builderError(ap, "displacements of an attribute the primitive does not have")
			}
			if len(a.v) != n {
				return builderError(ap, "%d displacements for %d positions", len(a.v), n)
			}
			data := make([]byte, 0, 12*n)
			for k, x := range a.v {
				if !finite3(x) {
					return builderError(ap, "displacement %d is not finite", k)
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
