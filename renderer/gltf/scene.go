package gltf

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/go-gl/mathgl/mgl64"
)

// scene flattens the scene's node tree into m.Meshes and sets m.Bounds.
func (d *decoder) scene(m *Model) error {
	nodes := d.doc.Nodes
	parent := make([]int, len(nodes))
	for i := range parent {
		parent[i] = -1
	}
	for i := range nodes {
		for k, c := range nodes[i].Children {
			cp := fmt.Sprintf("nodes[%d].children[%d]", i, k)
			switch {
			case c < 0 || c >= len(nodes):
				return d.errorf(cp, "node %d does not exist (%d nodes)", c, len(nodes))
			case c == i:
				return d.errorf(cp, "node %d is its own child", c)
			case parent[c] != -1:
				return d.errorf(cp, "node %d is already a child of node %d", c, parent[c])
			}
			parent[c] = i
		}
	}
	if err := d.checkCycles(parent); err != nil {
		return err
	}
	m.Nodes = make([]treeNode, len(nodes))
	for i := range nodes {
		nd, err := d.node(i)
		if err != nil {
			return err
		}
		nd.Parent = parent[i]
		m.Nodes[i] = nd
	}

	var roots []int
	switch {
	case d.doc.Scene != nil:
		s := *d.doc.Scene
		if s < 0 || s >= len(d.doc.Scenes) {
			return d.errorf("scene", "scene %d does not exist (%d scenes)", s, len(d.doc.Scenes))
		}
		roots = d.doc.Scenes[s].Nodes
	case len(d.doc.Scenes) > 0:
		roots = d.doc.Scenes[0].Nodes
	default:
		for i, p := range parent {
			if p == -1 {
				roots = append(roots, i)
			}
		}
	}
	// Every scene's nodes, not only the scene drawn: a damaged file is
	// refused whichever scene it damages.
	for i := range d.doc.Scenes {
		sroots := d.doc.Scenes[i].Nodes
		seen := make(map[int]bool, len(sroots))
		for k, r := range sroots {
			rp := fmt.Sprintf("scenes[%d].nodes[%d]", i, k)
			switch {
			case r < 0 || r >= len(nodes):
				return d.errorf(rp, "node %d does not exist (%d nodes)", r, len(nodes))
			case parent[r] != -1:
				return d.errorf(rp, "node %d is not a root: it is a child of node %d", r, parent[r])
			case seen[r]:
				return d.errorf(rp, "node %d is listed twice", r)
			}
			seen[r] = true
		}
	}

	// Depth first, with an explicit stack: a file can nest nodes deeper
	// than a goroutine's stack allows.
	type item struct {
		node   int
		parent mgl32.Mat4
	}
	stack := make([]item, 0, len(roots))
	for k := len(roots) - 1; k >= 0; k-- {
		stack = append(stack, item{roots[k], mgl32.Ident4()})
	}
	first := true
	var pending []pendingSkin
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		np := fmt.Sprintf("nodes[%d]", it.node)
		nd := &nodes[it.node]
		local, err := d.local(it.node)
		if err != nil {
			return err
		}
		world := it.parent.Mul4(local)
		m.order = append(m.order, it.node)
		for _, v := range world {
			if !isFinite(v) {
				return d.errorf(np, "world transform is not finite")
			}
		}
		if nd.Weights != nil && nd.Mesh == nil {
			return d.errorf(np+".weights", "a node with morph weights needs a mesh")
		}
		if nd.Skin != nil && nd.Mesh == nil {
			return d.errorf(np+".skin", "a node with a skin needs a mesh")
		}
		if nd.Mesh != nil {
			prims, err := d.mesh(*nd.Mesh, np+".mesh")
			if err != nil {
				return err
			}
			var weights []float32 // the node's morph weights
			if targets, err := d.checkTargets(*nd.Mesh, prims); err != nil {
				return err
			} else if targets > 0 {
				if weights, err = d.defaultWeights(nd, np, *nd.Mesh, targets); err != nil {
					return err
				}
			} else if nd.Weights != nil {
				return d.errorf(np+".weights", "mesh %d has no morph targets to weigh", *nd.Mesh)
			}
			for j := range prims {
				p := &prims[j]
				if d.vertices += len(p.pos); d.vertices > maxVertices {
					return d.limit(np, "the scene places more than %d vertices", maxVertices)
				}
				if len(m.Meshes) == maxMeshes {
					return d.limit(np, "the scene places more than %d meshes", maxMeshes)
				}
				if nd.Skin != nil {
					// glTF ignores a skinned mesh's node transform: its
					// joints place it (bounds once they are known).
					pending = append(pending, pendingSkin{mesh: len(m.Meshes), meshIdx: *nd.Mesh, primIdx: j, prim: p, skinPath: np + ".skin"})
					m.Meshes = append(m.Meshes, Mesh{
						Name: d.doc.Meshes[*nd.Mesh].Name, Node: nd.Name, MeshIndex: *nd.Mesh, NodeIndex: it.node,
						Positions: p.pos, Normals: p.nrm, UVs: p.uv, UVs1: p.uv1, Colors: p.color, Tangents: p.tan,
						Indices: p.idx, Material: p.material, Transform: mgl32.Ident4(), Skin: *nd.Skin,
						Targets: p.targets, TargetWeights: weights,
					})
					continue
				}
				if weights != nil {
					// Drawn as it rests: its weights baked in.
					me := Mesh{Positions: p.pos, Normals: p.nrm, Tangents: p.tan, Targets: p.targets}
					bakeMorph(&me, weights)
					q := *p
					q.pos, q.nrm, q.tan, q.targets = me.Positions, me.Normals, me.Tangents, nil
					q.min, q.max = bounds(q.pos)
					p = &q
				}
				lo, hi := p.min, p.max
				if world != mgl32.Ident4() {
					lo, hi = bounds([]mgl32.Vec3{transformPoint(world, p.pos[0])})
					for _, v := range p.pos[1:] {
						v = transformPoint(world, v)
						for c := range 3 {
							lo[c] = min(lo[c], v[c])
							hi[c] = max(hi[c], v[c])
						}
					}
					if !finite3(lo) || !finite3(hi) {
						return d.errorf(np, "transformed positions are not finite")
					}
				}
				if !withinReach(lo) || !withinReach(hi) {
					return d.limit(np, "the scene places vertices more than %g from the origin", maxCoord)
				}
				if first {
					m.Bounds, first = Box{lo, hi}, false
				} else {
					for c := range 3 {
						m.Bounds.Min[c] = min(m.Bounds.Min[c], lo[c])
						m.Bounds.Max[c] = max(m.Bounds.Max[c], hi[c])
					}
				}
				m.Meshes = append(m.Meshes, Mesh{
					Name:      d.doc.Meshes[*nd.Mesh].Name,
					Node:      nd.Name,
					MeshIndex: *nd.Mesh,
					NodeIndex: it.node,
					Positions: p.pos,
					Normals:   p.nrm,
					UVs:       p.uv,
					UVs1:      p.uv1,
					Colors:    p.color,
					Tangents:  p.tan,
					Indices:   p.idx,
					Material:  p.material,
					Transform: world,
				})
			}
		}
		for k := len(nd.Children) - 1; k >= 0; k-- {
			stack = append(stack, item{nd.Children[k], world})
		}
	}
	return d.skins(m, pending, first)
}

// checkCycles returns an error if following parent links from some node
// never reaches a root.
func (d *decoder) checkCycles(parent []int) error {
	// 0: not seen; 1: on the current walk; 2: leads to a root.
	state := make([]uint8, len(parent))
	for i := range parent {
		j := i
		for j != -1 && state[j] == 0 {
			state[j] = 1
			j = parent[j]
		}
		if j != -1 && state[j] == 1 {
			return d.errorf(fmt.Sprintf("nodes[%d]", j), "the node tree has a cycle through node %d", j)
		}
		for k := i; k != -1 && state[k] == 1; k = parent[k] {
			state[k] = 2
		}
	}
	return nil
}

// node returns node i, without its parent, its transform checked.
func (d *decoder) node(i int) (treeNode, error) {
	nd := &d.doc.Nodes[i]
	out := treeNode{Name: nd.Name, Rest: TRS{R: mgl32.QuatIdent(), S: mgl32.Vec3{1, 1, 1}}}
	local, err := d.local(i)
	if err != nil {
		return out, err
	}
	if nd.Matrix != nil {
		out.Matrix, out.HasMatrix = local, true
		return out, nil
	}
	if nd.Translation != nil {
		copy(out.Rest.T[:], nd.Translation)
	}
	if nd.Rotation != nil {
		q := nd.Rotation
		out.Rest.R = mgl32.Quat{W: q[3], V: mgl32.Vec3{q[0], q[1], q[2]}}.Normalize()
	}
	if nd.Scale != nil {
		copy(out.Rest.S[:], nd.Scale)
	}
	return out, nil
}

// local returns node i's transform relative to its parent.
func (d *decoder) local(i int) (mgl32.Mat4, error) {
	nd := &d.doc.Nodes[i]
	np := fmt.Sprintf("nodes[%d]", i)
	if nd.Matrix != nil {
		if nd.Translation != nil || nd.Rotation != nil || nd.Scale != nil {
			return mgl32.Mat4{}, d.errorf(np, "has both matrix and translation, rotation or scale")
		}
		if len(nd.Matrix) != 16 {
			return mgl32.Mat4{}, d.errorf(np+".matrix", "has %d values, want 16", len(nd.Matrix))
		}
		var m mgl32.Mat4
		copy(m[:], nd.Matrix)
		// glTF matrices must decompose into translation, rotation and
		// scale, so the bottom row is (0, 0, 0, 1); transformPoint relies
		// on it.
		if m[3] != 0 || m[7] != 0 || m[11] != 0 || m[15] != 1 {
			return mgl32.Mat4{}, d.errorf(np+".matrix", "bottom row is (%g, %g, %g, %g), not (0, 0, 0, 1)", m[3], m[7], m[11], m[15])
		}
		if err := d.checkMatrix(m, np+".matrix"); err != nil {
			return mgl32.Mat4{}, err
		}
		return m, nil
	}
	t, s := mgl32.Vec3{}, mgl32.Vec3{1, 1, 1}
	r := mgl32.QuatIdent()
	if nd.Translation != nil {
		if len(nd.Translation) != 3 {
			return mgl32.Mat4{}, d.errorf(np+".translation", "has %d values, want 3", len(nd.Translation))
		}
		copy(t[:], nd.Translation)
	}
	if nd.Rotation != nil {
		q := nd.Rotation
		if len(q) != 4 {
			return mgl32.Mat4{}, d.errorf(np+".rotation", "has %d values, want 4", len(q))
		}
		l := math.Sqrt(float64(q[0])*float64(q[0]) + float64(q[1])*float64(q[1]) + float64(q[2])*float64(q[2]) + float64(q[3])*float64(q[3]))
		if !(l > 0) || math.IsInf(l, 0) {
			return mgl32.Mat4{}, d.errorf(np+".rotation", "%v is not a rotation", q)
		}
		// Renormalized: glTF asks for unit quaternions, and writers round.
		r = mgl32.Quat{W: float32(float64(q[3]) / l), V: mgl32.Vec3{float32(float64(q[0]) / l), float32(float64(q[1]) / l), float32(float64(q[2]) / l)}}
	}
	if nd.Scale != nil {
		if len(nd.Scale) != 3 {
			return mgl32.Mat4{}, d.errorf(np+".scale", "has %d values, want 3", len(nd.Scale))
		}
		copy(s[:], nd.Scale)
	}
	return mgl32.Translate3D(t[0], t[1], t[2]).Mul4(r.Mat4()).Mul4(mgl32.Scale3D(s[0], s[1], s[2])), nil
}

// checkMatrix checks that a node's matrix is finite and not singular
// (the specification asks for a translation, rotation and scale, which a
// zero scale is not; its normals would have no direction): the volume its
// upper 3×3's columns span is more than 1e-6 of the product of their
// lengths (1 for a rotation and scale), a margin far above a writer's
// rounding. A shear is drawn as it is (the validator lets small ones
// through).
func (d *decoder) checkMatrix(m mgl32.Mat4, path string) error {
	for _, v := range m {
		if !isFinite(v) {
			return d.errorf(path, "is not finite")
		}
	}
	var c [3]mgl64.Vec3
	for j := range 3 {
		c[j] = mgl64.Vec3{float64(m[4*j]), float64(m[4*j+1]), float64(m[4*j+2])}
	}
	vol := math.Abs(c[0].Cross(c[1]).Dot(c[2]))
	if !(vol > 1e-6*c[0].Len()*c[1].Len()*c[2].Len()) {
		return d.errorf(path, "is singular: it is no translation, rotation and scale")
	}
	return nil
}

// maxCoord bounds the coordinates of every vertex a model places, at rest
// and animated: 1e18, so that the squares of a box's size and the sums of
// its corners, which a renderer fitting the model computes in float32,
// stay finite (float32 ends at 3.4e38).
const maxCoord = 1e18

// withinReach reports whether every coordinate of v is within maxCoord.
func withinReach(v mgl32.Vec3) bool {
	for _, c := range v {
		if !(math.Abs(float64(c)) <= maxCoord) {
			return false
		}
	}
	return true
}
