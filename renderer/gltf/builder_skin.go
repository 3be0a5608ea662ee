package gltf

import (
	"encoding/binary"
	"fmt"
	"math"
)

// skinAttributes writes primitive p's joints and weights, if it has
// them, as JOINTS_0 and WEIGHTS_0 of out.
func (b *Builder) skinAttributes(p Primitive, out *primitive) error {
	n := len(p.Positions)
	switch {
	case p.Joints == nil && p.Weights == nil:
		return nil
	case len(p.Joints) != n || len(p.Weights) != n:
		return fmt.Errorf("%d joints and %d weights for %d positions", len(p.Joints), len(p.Weights), n)
	}
	wide := false
	for v := range n {
		var sum float64
		for c := range 4 {
			w := p.Weights[v][c]
			if !isFinite(w) || w < 0 || w > 1 {
				return fmt.Errorf("vertex %d: weight %v is outside [0, 1]", v, w)
			}
			sum += float64(w)
			wide = wide || p.Joints[v][c] > math.MaxUint8
		}
		if math.Abs(sum-1) > weightTolerance {
			return fmt.Errorf("vertex %d: weights sum to %g, not 1", v, sum)
		}
	}
	ct, size := typeUnsignedByte, 1
	if wide {
		ct, size = typeUnsignedShort, 2
	}
	data := make([]byte, 0, 4*size*n)
	for _, j := range p.Joints {
		for _, x := range j {
			if wide {
				data = binary.LittleEndian.AppendUint16(data, x)
			} else {
				data = append(data, byte(x))
			}
		}
	}
	view := b.addView(data, 0, targetArrayBuffer)
	out.Attributes["JOINTS_0"] = b.addAccessor(accessor{BufferView: &view, ComponentType: ct, Count: n, Type: "VEC4"})
	data = make([]byte, 0, 16*n)
	for _, w := range p.Weights {
		for _, x := range w {
			data = binary.LittleEndian.AppendUint32(data, math.Float32bits(x))
		}
	}
	wview := b.addView(data, 0, targetArrayBuffer)
	out.Attributes["WEIGHTS_0"] = b.addAccessor(accessor{BufferView: &wview, ComponentType: typeFloat, Count: n, Type: "VEC4"})
	return nil
}

// noteJoints remembers mesh i's largest joint index, for AddSkin.
func (b *Builder) noteJoints(i int, joints [][4]uint16) {
	if b.joints == nil {
		b.joints = make(map[int]int)
	}
	hi, ok := b.joints[i]
	if !ok {
		hi = -1
	}
	for _, j := range joints {
		hi = max(hi, int(j[0]), int(j[1]), int(j[2]), int(j[3]))
	}
	b.joints[i] = hi
}

// AddSkin adds skin s and gives it to each of nodes, which must place a
// mesh whose primitives all have Joints and Weights naming joints s has;
// it returns the skin's index. s.Joints are indices returned by AddNode,
// each once; s.InverseBind is nil (every matrix the identity) or one
// matrix per joint, written as a float MAT4 accessor; s.Skeleton is -1
// or a node that is an ancestor of every joint, or a joint.
func (b *Builder) AddSkin(s Skin, nodes ...int) int {
	i := len(b.doc.Skins)
	out := skin{Name: s.Name, Joints: append([]int(nil), s.Joints...)}
	if len(s.Joints) == 0 {
		b.fail("skin %q: no joints", s.Name)
	}
	seen := map[int]bool{}
	for _, j := range s.Joints {
		if j < 0 || j >= len(b.doc.Nodes) || seen[j] {
			b.fail("skin %q: joint node %d does not exist or is named twice", s.Name, j)
		}
		seen[j] = true
	}
	if s.Skeleton >= 0 {
		for _, j := range s.Joints {
			a := j
			for a >= 0 && a != s.Skeleton {
				a = b.parentOf(a)
			}
			if a != s.Skeleton {
				b.fail("skin %q: skeleton node %d is not an ancestor of joint node %d", s.Name, s.Skeleton, j)
			}
		}
		k := s.Skeleton
		out.Skeleton = &k
	}
	if s.InverseBind != nil {
		if len(s.InverseBind) != len(s.Joints) {
			b.fail("skin %q: %d inverse bind matrices for %d joints", s.Name, len(s.InverseBind), len(s.Joints))
		}
		data := make([]byte, 0, 64*len(s.InverseBind))
		for _, m := range s.InverseBind {
			for _, x := range m {
				data = binary.LittleEndian.AppendUint32(data, math.Float32bits(x))
			}
		}
		view := b.addView(data, 0, 0)
		acc := b.addAccessor(accessor{BufferView: &view, ComponentType: typeFloat, Count: len(s.InverseBind), Type: "MAT4"})
		out.InverseBindMatrices = &acc
	}
	for _, n := range nodes {
		if n < 0 || n >= len(b.doc.Nodes) || b.doc.Nodes[n].Mesh == nil {
			b.fail("skin %q: node %d does not exist or places no mesh", s.Name, n)
			continue
		}
		m := *b.doc.Nodes[n].Mesh
		hi, ok := b.joints[m]
		for _, p := range b.doc.Meshes[m].Primitives {
			if _, has := p.Attributes["JOINTS_0"]; !has {
				ok = false
			}
		}
		if !ok || hi >= len(s.Joints) {
			b.fail("skin %q: node %d's mesh lacks joints and weights, or names joint %d of %d", s.Name, n, hi, len(s.Joints))
			continue
		}
		k := i
		b.doc.Nodes[n].Skin = &k
	}
	b.doc.Skins = append(b.doc.Skins, out)
	return i
}
