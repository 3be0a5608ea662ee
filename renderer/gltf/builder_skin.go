package gltf

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl32"
)

// influenceSet is one set of four influences a vertex: JOINTS_n and
// WEIGHTS_n.
type influenceSet struct {
	joints  [][4]uint16
	weights []mgl32.Vec4
}

// skinAttributes writes primitive p's joints and weights, if it has
// them, as JOINTS_0 and WEIGHTS_0 of out (and its second set as JOINTS_1
// and WEIGHTS_1), each vertex's weights scaled to sum to 1, after
// checking them as Decode does; ap is the primitive's attributes' JSON
// path.
func (b *Builder) skinAttributes(p Primitive, out *primitive, ap string) error {
	n := len(p.Positions)
	sets := []influenceSet{{p.Joints, p.Weights}}
	if p.Joints1 != nil || p.Weights1 != nil {
		sets = append(sets, influenceSet{p.Joints1, p.Weights1})
	}
	if p.Joints == nil && p.Weights == nil {
		if len(sets) > 1 {
			return builderError(ap+".JOINTS_1", "a second set of joints and weights without a first")
		}
		return nil
	}
	for s, set := range sets {
		if len(set.joints) != n || len(set.weights) != n {
			return builderError(fmt.Sprintf("%s.JOINTS_%d", ap, s), "%d joints and %d weights for %d positions",
				len(set.joints), len(set.weights), n)
		}
	}
	// The validator sums a vertex's weights in float32 and allows only
	// their rounding: they are written divided by their sum.
	scale := make([]float64, n)
	for v := range n {
		var sum float64
		var named [2 * MaxInfluences]uint16
		k := 0
		for s, set := range sets {
			for c := range 4 {
				w, j := set.weights[v][c], set.joints[v][c]
				if !isFinite(w) || w < 0 || w > 1 {
					return builderError(fmt.Sprintf("%s.WEIGHTS_%d", ap, s), "vertex %d: weight %v is outside [0, 1]", v, w)
				}
				if w == 0 {
					continue
				}
				if slices.Contains(named[:k], j) {
					return builderError(fmt.Sprintf("%s.JOINTS_%d", ap, s), "vertex %d names joint %d twice", v, j)
				}
				named[k], k = j, k+1
				sum += float64(w)
			}
		}
		if math.Abs(sum-1) > weightTolerance {
			return builderError(ap+".WEIGHTS_0", "vertex %d: weights sum to %g, not 1", v, sum)
		}
		scale[v] = 1 / sum
	}
	for s, set := range sets {
		wide := false
		for _, j := range set.joints {
			wide = wide || max(j[0], j[1], j[2], j[3]) > math.MaxUint8
		}
		ct, size := typeUnsignedByte, 1
		if wide {
			ct, size = typeUnsignedShort, 2
		}
		data := make([]byte, 0, 4*size*n)
		for _, j := range set.joints {
			for _, x := range j {
				if wide {
					data = binary.LittleEndian.AppendUint16(data, x)
				} else {
					data = append(data, byte(x))
				}
			}
		}
		view := b.addView(data, 0, targetArrayBuffer)
		out.Attributes[fmt.Sprintf("JOINTS_%d", s)] = b.addAccessor(accessor{BufferView: &view, ComponentType: ct, Count: n, Type: "VEC4"})
		data = make([]byte, 0, 16*n)
		for v, w := range set.weights {
			for _, x := range w {
				data = binary.LittleEndian.AppendUint32(data, math.Float32bits(float32(float64(x)*scale[v])))
			}
		}
		wview := b.addView(data, 0, targetArrayBuffer)
		out.Attributes[fmt.Sprintf("WEIGHTS_%d", s)] = b.addAccessor(accessor{BufferView: &wview, ComponentType: typeFloat, Count: n, Type: "VEC4"})
	}
	return nil
}

// jointUse is where a mesh names its largest joint index: the JOINTS_n
// attribute's JSON path and the vertex.
type jointUse struct {
	hi     int
	path   string
	vertex int
}

// noteJoints remembers mesh i's largest joint index, for AddSkin, from
// its primitive p at JSON path pp.
func (b *Builder) noteJoints(i int, pp string, p Primitive) {
	if b.joints == nil {
		b.joints = make(map[int]jointUse)
	}
	u, ok := b.joints[i]
	if !ok {
		u.hi = -1
	}
	for s, joints := range [][][4]uint16{p.Joints, p.Joints1} {
		for v, j := range joints {
			if hi := int(max(j[0], j[1], j[2], j[3])); hi > u.hi {
				u = jointUse{hi: hi, path: fmt.Sprintf("%s.attributes.JOINTS_%d", pp, s), vertex: v}
			}
		}
	}
	b.joints[i] = u
}

// AddSkin adds skin s and gives it to each of nodes, which must place a
// mesh whose primitives all have Joints and Weights naming joints s has;
// it returns the skin's index. s.Joints are indices returned by AddNode,
// each once, all in one tree (AddChild) when AddSkin is called;
// s.InverseBind is nil (every matrix the identity) or one matrix per
// joint, written as a float MAT4 accessor; s.Root is -1 or a node
// that is an ancestor of every joint, or a joint.
func (b *Builder) AddSkin(s Skeleton, nodes ...int) int {
	i := len(b.doc.Skins)
	sp := fmt.Sprintf("skins[%d]", i)
	out := skin{Name: s.Name, Joints: append([]int(nil), s.Joints...)}
	if len(s.Joints) == 0 {
		b.failAt(sp+".joints", "a skin needs at least one joint")
	}
	seen := map[int]int{}
	for k, j := range s.Joints {
		jp := fmt.Sprintf("%s.joints[%d]", sp, k)
		if j < 0 || j >= len(b.doc.Nodes) {
			b.failAt(jp, "node %d does not exist (%d nodes)", j, len(b.doc.Nodes))
		} else if k0, ok := seen[j]; ok {
			b.failAt(jp, "node %d is already joint %d", j, k0)
		}
		seen[j] = k
	}
	// The validator asks for joints of one tree.
	root := func(n int) int {
		for b.parentOf(n) >= 0 {
			n = b.parentOf(n)
		}
		return n
	}
	for k, j := range s.Joints {
		if k > 0 && j >= 0 && j < len(b.doc.Nodes) && s.Joints[0] >= 0 && s.Joints[0] < len(b.doc.Nodes) && root(j) != root(s.Joints[0]) {
			b.failAt(sp+".joints", "joints 0 and %d (nodes %d and %d) have no common root", k, s.Joints[0], j)
		}
	}
	if s.Root >= 0 {
		for k, j := range s.Joints {
			a := j
			for a >= 0 && a != s.Root {
				a = b.parentOf(a)
			}
			if a != s.Root {
				b.failAt(sp+".skeleton", "node %d is not an ancestor of joint %d (node %d)", s.Root, k, j)
			}
		}
		k := s.Root
		out.Skeleton = &k
	}
	if s.InverseBind != nil {
		if len(s.InverseBind) != len(s.Joints) {
			b.failAt(sp+".inverseBindMatrices", "%d matrices for %d joints", len(s.InverseBind), len(s.Joints))
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
		np := fmt.Sprintf("nodes[%d].skin", n)
		if n < 0 || n >= len(b.doc.Nodes) || b.doc.Nodes[n].Mesh == nil {
			b.failAt(np, "node %d does not exist or places no mesh: %s cannot skin it", n, sp)
			continue
		}
		m := *b.doc.Nodes[n].Mesh
		for k, p := range b.doc.Meshes[m].Primitives {
			if _, has := p.Attributes["JOINTS_0"]; !has {
				b.failAt(fmt.Sprintf("meshes[%d].primitives[%d].attributes", m, k), "no JOINTS_0 and WEIGHTS_0: %s skins this mesh", sp)
			}
		}
		if u := b.joints[m]; u.hi >= len(s.Joints) {
			b.failAt(u.path, "vertex %d names joint %d: %s has %d", u.vertex, u.hi, sp, len(s.Joints))
		}
		k := i
		b.doc.Nodes[n].Skin = &k
	}
	b.doc.Skins = append(b.doc.Skins, out)
	return i
}
