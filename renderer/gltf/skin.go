package gltf

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/go-gl/mathgl/mgl32"
)

// A Skeleton is a glTF skin (the file's skins array): the nodes that are
// its joints and, per joint, the inverse bind matrix that takes a vertex
// of the skinned meshes from model space at bind time into the joint's
// frame. (simthread.Skin is a skinned character in a snapshot.)
type Skeleton struct {
	Name string
	// Joints are node indices (into Model.Nodes), each once.
	Joints []int
	// InverseBind holds one matrix per joint; the identity where the
	// file gives none.
	InverseBind []mgl32.Mat4
	// Root is the node the file names as the skeleton's root (glTF's
	// skin.skeleton), -1 for none. Skinning does not use it: the joints'
	// model-space transforms place the vertices.
	Root int
}

// MaxInfluences is how many joints move one vertex of a skinned mesh:
// glTF's JOINTS_0 and WEIGHTS_0 hold four; where a file has more sets
// (JOINTS_1, …), each vertex keeps its four largest weights, scaled to
// sum to 1.
const MaxInfluences = 4

// weightTolerance is how far off 1 a vertex's weights may sum (the
// specification asks for 1; writers round, and normalized unsigned
// bytes round each weight to 1/255).
const weightTolerance = 0.01

// jointMatrices writes skin s's joint matrices into out, one per joint:
// the joint's model-space transform in world (Model.WorldPose) times its
// inverse bind matrix. A vertex of a mesh with that skin is placed in
// model space at Σ Weights[k]·out[Joints[k]]·v (SkinPosition): glTF's
// jointMatrix, inverse(meshNode)·joint·inverseBind, with the mesh
// node's transform applied after it, as glTF ignores the transform of a
// skinned mesh's node. It does not allocate.
func (m *Model) jointMatrices(s int, world, out []mgl32.Mat4) {
	sk := &m.Skins[s]
	for j, n := range sk.Joints {
		out[j] = world[n].Mul4(sk.InverseBind[j])
	}
}

// SkinPosition returns vertex i of skinned mesh me placed by the joint
// matrices jm (each joint's world transform times its inverse bind
// matrix), in model space.
func (me *Mesh) SkinPosition(i int, jm []mgl32.Mat4) mgl32.Vec3 {
	var out mgl32.Vec3
	p := me.Positions[i]
	for k := range MaxInfluences {
		w := me.Weights[i][k]
		if w == 0 {
			continue
		}
		out = out.Add(transformPoint(jm[me.Joints[i][k]], p).Mul(w))
	}
	return out
}

// skins decodes every skin of the file into m.Skins, and gives each
// skinned mesh of m (pending, indices into m.Meshes) its joints and
// weights, its bounds at rest folded into m.Bounds (first: m.Bounds is
// still unset).
func (d *decoder) skins(m *Model, pending []pendingSkin, first bool) error {
	doc := &d.doc
	m.Skins = make([]Skeleton, len(doc.Skins))
	inScene := make([]bool, len(m.Nodes))
	for _, i := range m.order {
		inScene[i] = true
	}
	for i := range doc.Skins {
		sk, err := d.skin(i, m)
		if err != nil {
			return err
		}
		m.Skins[i] = sk
	}
	if len(pending) == 0 {
		return nil
	}
	pose := make([]TRS, len(m.Nodes))
	world := make([]mgl32.Mat4, len(m.Nodes))
	m.RestPose(pose)
	m.WorldPose(pose, world)
	checked := make([]bool, len(m.Skins))
	var jm []mgl32.Mat4
	for _, ps := range pending {
		me := &m.Meshes[ps.mesh]
		sk := &m.Skins[me.Skin]
		np := fmt.Sprintf("nodes[%d].skin", me.NodeIndex)
		if !checked[me.Skin] {
			for k, n := range sk.Joints {
				if !inScene[n] {
					return d.refuse(fmt.Sprintf("skins[%d].joints[%d]", me.Skin, k),
						"joint node %d is not in the scene: skinning it is not supported", n)
				}
			}
			checked[me.Skin] = true
		}
		var err error
		if me.Joints, me.Weights, err = d.influences(ps, len(sk.Joints)); err != nil {
			return err
		}
		jm = append(jm[:0], make([]mgl32.Mat4, len(sk.Joints))...)
		m.jointMatrices(me.Skin, world, jm)
		var lo, hi mgl32.Vec3
		rest := me // as it rests: its morph weights applied
		if me.Targets != nil {
			c := *me
			c.Positions = make([]mgl32.Vec3, len(me.Positions))
			me.Morph(me.TargetWeights, c.Positions, nil, nil)
			rest = &c
		}
		for v := range me.Positions {
			p := rest.SkinPosition(v, jm)
			if v == 0 {
				lo, hi = p, p
			}
			for c := range 3 {
				lo[c], hi[c] = min(lo[c], p[c]), max(hi[c], p[c])
			}
		}
		if !finite3(lo) || !finite3(hi) {
			return d.errorf(np, "skinned positions are not finite")
		}
		if !withinReach(lo) || !withinReach(hi) {
			return d.limit(np, "the skin places vertices more than %g from the origin", maxCoord)
		}
		if first {
			m.Bounds, first = Box{lo, hi}, false
		} else {
			for c := range 3 {
				m.Bounds.Min[c] = min(m.Bounds.Min[c], lo[c])
				m.Bounds.Max[c] = max(m.Bounds.Max[c], hi[c])
			}
		}
	}
	return nil
}

// pendingSkin is a skinned mesh of the model, waiting for its skin: the
// index into Model.Meshes, and the primitive it was placed from.
type pendingSkin struct {
	mesh     int
	meshIdx  int // glTF mesh
	primIdx  int // its primitive
	prim     *prim
	skinPath string
}

// skin decodes skin i: its joints, each a node once, and its inverse
// bind matrices.
func (d *decoder) skin(i int, m *Model) (Skeleton, error) {
	src := &d.doc.Skins[i]
	sp := fmt.Sprintf("skins[%d]", i)
	sk := Skeleton{Name: src.Name, Root: -1}
	if len(src.Joints) == 0 {
		return sk, d.errorf(sp+".joints", "a skin needs at least one joint")
	}
	seen := make(map[int]int, len(src.Joints))
	for k, n := range src.Joints {
		jp := fmt.Sprintf("%s.joints[%d]", sp, k)
		if n < 0 || n >= len(m.Nodes) {
			return sk, d.errorf(jp, "node %d does not exist (%d nodes)", n, len(m.Nodes))
		}
		if k0, ok := seen[n]; ok {
			return sk, d.errorf(jp, "node %d is already joint %d", n, k0)
		}
		seen[n] = k
	}
	sk.Joints = append([]int(nil), src.Joints...)
	if src.Skeleton != nil {
		s := *src.Skeleton
		if s < 0 || s >= len(m.Nodes) {
			return sk, d.errorf(sp+".skeleton", "node %d does not exist (%d nodes)", s, len(m.Nodes))
		}
		// The skeleton is an ancestor of every joint, or a joint.
		for k, n := range sk.Joints {
			a := n
			for a >= 0 && a != s {
				a = m.Nodes[a].Parent
			}
			if a != s {
				return sk, d.errorf(sp+".skeleton", "node %d is not an ancestor of joint %d (node %d)", s, k, n)
			}
		}
		sk.Root = s
	}
	sk.InverseBind = make([]mgl32.Mat4, len(sk.Joints))
	if src.InverseBindMatrices == nil {
		for k := range sk.InverseBind {
			sk.InverseBind[k] = mgl32.Ident4()
		}
		return sk, nil
	}
	ip := sp + ".inverseBindMatrices"
	acc := *src.InverseBindMatrices
	e, err := d.accessor(acc, ip)
	if err != nil {
		return sk, err
	}
	if e.comp != typeFloat || e.n != 16 || d.doc.Accessors[acc].Type != "MAT4" {
		return sk, d.errorf(ip, "accessor %d is %s %s, want float MAT4", acc, typeName(e), quote(d.doc.Accessors[acc].Type))
	}
	if e.count < len(sk.Joints) {
		return sk, d.errorf(ip, "accessor %d has %d matrices for %d joints", acc, e.count, len(sk.Joints))
	}
	for k := range sk.InverseBind {
		b := e.at(k)
		var mat mgl32.Mat4
		for c := range 16 {
			bits := le.Uint32(b[4*c:])
			if !finiteBits(bits) {
				return sk, d.errorf(ip, "accessor %d matrix %d is not finite", acc, k)
			}
			mat[c] = math.Float32frombits(bits)
		}
		if mat[3] != 0 || mat[7] != 0 || mat[11] != 0 || mat[15] != 1 {
			return sk, d.errorf(ip, "accessor %d matrix %d: bottom row is (%g, %g, %g, %g), not (0, 0, 0, 1)",
				acc, k, mat[3], mat[7], mat[11], mat[15])
		}
		if err := d.checkMatrix(mat, fmt.Sprintf("%s (matrix %d)", ip, k)); err != nil {
			return sk, err
		}
		sk.InverseBind[k] = mat
	}
	return sk, nil
}

// influences reads a skinned primitive's JOINTS_n and WEIGHTS_n sets
// for a skin of joints joints: each vertex's four largest weights, scaled
// to sum to 1, and their joints; a vertex's weights in the file must be
// non-negative, sum to 1 within weightTolerance, and name joints the
// skin has.
func (d *decoder) influences(ps pendingSkin, joints int) ([][4]uint16, []mgl32.Vec4, error) {
	attrs := d.doc.Meshes[ps.meshIdx].Primitives[ps.primIdx].Attributes
	pp := fmt.Sprintf("meshes[%d].primitives[%d].attributes", ps.meshIdx, ps.primIdx)
	sets := 0
	for ; ; sets++ {
		_, j := attrs["JOINTS_"+strconv.Itoa(sets)]
		_, w := attrs["WEIGHTS_"+strconv.Itoa(sets)]
		if !j && !w {
			break
		}
		if j != w {
			name := "JOINTS_"
			if j {
				name = "WEIGHTS_"
			}
			return nil, nil, d.errorf(pp, "%s%d is missing: a skinned primitive has JOINTS_n and WEIGHTS_n in pairs", name, sets)
		}
	}
	if sets == 0 {
		return nil, nil, d.errorf(pp, "no JOINTS_0 and WEIGHTS_0: %s skins this mesh", ps.skinPath)
	}
	// The file's vertices (flatten may since have given each triangle
	// its own).
	verts := d.doc.Accessors[attrs["POSITION"]].Count
	type infl struct {
		joint  uint16
		weight float32
	}
	all := make([][]infl, verts)
	for s := range sets {
		jn, wn := "JOINTS_"+strconv.Itoa(s), "WEIGHTS_"+strconv.Itoa(s)
		js, err := d.jointSet(attrs[jn], pp+"."+jn)
		if err != nil {
			return nil, nil, err
		}
		ws, err := d.weightSet(attrs[wn], pp+"."+wn)
		if err != nil {
			return nil, nil, err
		}
		if len(js) != verts {
			return nil, nil, d.errorf(pp+"."+jn, "%d joints for %d positions", len(js), verts)
		}
		if len(ws) != verts {
			return nil, nil, d.errorf(pp+"."+wn, "%d weights for %d positions", len(ws), verts)
		}
		for v := range js {
			for c := range 4 {
				if int(js[v][c]) >= joints {
					return nil, nil, d.errorf(pp+"."+jn, "vertex %d names joint %d: the skin has %d", v, js[v][c], joints)
				}
				all[v] = append(all[v], infl{js[v][c], ws[v][c]})
			}
		}
	}
	outJ := make([][4]uint16, len(all))
	outW := make([]mgl32.Vec4, len(all))
	for v, list := range all {
		var sum float64
		for _, x := range list {
			sum += float64(x.weight)
		}
		if math.Abs(sum-1) > weightTolerance {
			return nil, nil, d.errorf(pp+".WEIGHTS_0", "vertex %d's weights sum to %g, not 1", v, sum)
		}
		// Merge a joint named twice, then keep the largest four.
		sort.SliceStable(list, func(a, b int) bool { return list[a].joint < list[b].joint })
		k := 0
		for _, x := range list {
			if k > 0 && list[k-1].joint == x.joint {
				list[k-1].weight += x.weight
				continue
			}
			list[k] = x
			k++
		}
		list = list[:k]
		sort.SliceStable(list, func(a, b int) bool { return list[a].weight > list[b].weight })
		var kept float32
		for c := range min(len(list), MaxInfluences) {
			outJ[v][c], outW[v][c] = list[c].joint, list[c].weight
			kept += list[c].weight
		}
		if !(kept > 0) {
			return nil, nil, d.errorf(pp+".WEIGHTS_0", "vertex %d has no weight", v)
		}
		outW[v] = outW[v].Mul(1 / kept)
	}
	if ps.prim.weld != nil {
		outJ, outW = unweld(outJ, ps.prim.weld), unweld(outW, ps.prim.weld)
	}
	return outJ, outW, nil
}

// jointSet reads a JOINTS_n accessor: unsigned byte or short VEC4.
func (d *decoder) jointSet(acc int, path string) ([][4]uint16, error) {
	e, err := d.accessor(acc, path)
	if err != nil {
		return nil, err
	}
	if e.n != 4 || e.norm || e.comp != typeUnsignedByte && e.comp != typeUnsignedShort {
		return nil, d.errorf(path, "accessor %d is %s, want unsigned byte or short VEC4", acc, typeName(e))
	}
	out := make([][4]uint16, e.count)
	for k := range out {
		b := e.at(k)
		for c := range 4 {
			if e.comp == typeUnsignedByte {
				out[k][c] = uint16(b[c])
			} else {
				out[k][c] = le.Uint16(b[2*c:])
			}
		}
	}
	return out, nil
}

// weightSet reads a WEIGHTS_n accessor: float, or normalized unsigned
// byte or short, VEC4, each weight in [0, 1].
func (d *decoder) weightSet(acc int, path string) ([]mgl32.Vec4, error) {
	e, err := d.accessor(acc, path)
	if err != nil {
		return nil, err
	}
	if e.n != 4 || !(e.comp == typeFloat || e.norm && (e.comp == typeUnsignedByte || e.comp == typeUnsignedShort)) {
		return nil, d.errorf(path, "accessor %d is %s, want float or normalized unsigned byte or short VEC4", acc, typeName(e))
	}
	out := make([]mgl32.Vec4, e.count)
	for k := range out {
		b := e.at(k)
		for c := range 4 {
			switch e.comp {
			case typeFloat:
				bits := le.Uint32(b[4*c:])
				w := math.Float32frombits(bits)
				if !finiteBits(bits) || w < 0 || w > 1 {
					return nil, d.errorf(path, "accessor %d element %d: weight %v is outside [0, 1]", acc, k, w)
				}
				out[k][c] = w
			case typeUnsignedByte:
				out[k][c] = float32(b[c]) / 255
			case typeUnsignedShort:
				out[k][c] = float32(le.Uint16(b[2*c:])) / 65535
			}
		}
	}
	return out, nil
}

// skinned reports whether attribute name is a skin's (JOINTS_n or
// WEIGHTS_n).
func skinned(name string) bool {
	return strings.HasPrefix(name, "JOINTS_") || strings.HasPrefix(name, "WEIGHTS_")
}
