package renderer

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"

	"github.com/tickframe/tickframe/simthread"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/renderer/gltf"
)

// AddModel registers a glTF model as one mesh and returns its id: one part
// per mesh primitive the scene places, with the node transforms baked into
// the vertices and then place applied (FitCube(m.Bounds) draws it as large
// as the default cube), and each glTF material registered as a material
// (ModelMaterial; glTF's default material for primitives without one),
// each texture uploaded once per colour space. Mirroring transforms are
// handled as glTF requires: their triangles are rewound so that front
// faces stay counter-clockwise. A primitive whose material has a normal
// map but whose file gives no tangents gets them from Tangents.
// Primitives without triangles are left out; a model with none is an
// error. The materials stay registered if the mesh then fails. It does
// not modify m. With ModelShader, every material is drawn with that
// shader instead of the built-in lighting.
func (r *Renderer) AddModel(m *gltf.Model, place mgl32.Mat4, opts ...ModelOption) (simthread.MeshID, error) {
	mats := modelMaterials{ids: make(map[int]simthread.MaterialID)}
	for _, o := range opts {
		o(&mats)
	}
	var parts []Part
	for i := range m.Meshes {
		me := &m.Meshes[i]
		if len(me.Indices) < 3 {
			continue
		}
		id, err := r.modelMaterial(m, me.Material, &mats)
		if err != nil {
			return 0, err
		}
		p := modelPart(m, me, place.Mul4(me.Transform))
		p.Material = id
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return 0, errors.New("renderer: model has no triangles to draw")
	}
	return r.addMeshNow(parts...)
}

// ModelOption is an option of AddModel and AddNodeMeshes.
type ModelOption func(*modelMaterials)

// ModelShader draws every primitive of the model with the material shader
// name in fsys (Material.Shader and ShaderFS: a GLSL file that defines
// vec3 shade(Surface s), see docs/scene.md) instead of the built-in
// lighting. Each glTF material keeps its values and textures, which
// shade finds in Surface, and is compiled for them.
func ModelShader(fsys fs.FS, name string) ModelOption {
	return func(m *modelMaterials) { m.shaderFS, m.shader = fsys, name }
}

// modelMaterials remembers the ids of a model's registered materials and
// the options they are registered with.
type modelMaterials struct {
	ids      map[int]simthread.MaterialID // glTF material index (−1: none) → id
	shaderFS fs.FS
	shader   string
}

// modelMaterial returns the id of glTF material i of m (−1: glTF's
// default), registering it the first time (mats remembers).
func (r *Renderer) modelMaterial(m *gltf.Model, i int, mats *modelMaterials) (simthread.MaterialID, error) {
	if id, ok := mats.ids[i]; ok {
		return id, nil
	}
	gm := gltf.DefaultMaterial()
	if i >= 0 && i < len(m.Materials) {
		gm = m.Materials[i]
	}
	gm.Shader, gm.ShaderFS = mats.shader, mats.shaderFS
	id, err := r.addMaterialNow(gm)
	if err != nil {
		return 0, fmt.Errorf("renderer: model material %q: %w", gm.Name, err)
	}
	mats.ids[i] = id
	return id, nil
}

// modelPart returns mesh me baked by t, with tangents computed where its
// material has a normal map and the file gives none.
func modelPart(m *gltf.Model, me *gltf.Mesh, t mgl32.Mat4) Part {
	p := bake(me, t)
	if p.Tangents == nil && me.Material >= 0 && me.Material < len(m.Materials) && m.Materials[me.Material].NormalTexture != nil {
		uvs := p.UVs
		if m.Materials[me.Material].Sampling[gltf.NormalSlot].TexCoord == 1 {
			uvs = p.UVs1
		}
		p.Tangents = tangents(p.Positions, p.Normals, uvs, p.Indices)
	}
	return p
}

// bake returns mesh me's vertices transformed by t as a Part: positions by
// t, normals by the cofactor of t's upper 3×3 (the inverse transpose
// times the determinant, defined even where t is singular) with the
// determinant's sign, renormalised, tangents by t's upper 3×3,
// renormalised, their handedness flipped where t mirrors; the triangles
// rewound where t mirrors. UVs and colours are shared, not copied.
func bake(me *gltf.Mesh, t mgl32.Mat4) Part {
	a := t.Mat3()
	cof := mgl32.Mat3{
		a[4]*a[8] - a[5]*a[7], a[5]*a[6] - a[3]*a[8], a[3]*a[7] - a[4]*a[6],
		a[2]*a[7] - a[1]*a[8], a[0]*a[8] - a[2]*a[6], a[1]*a[6] - a[0]*a[7],
		a[1]*a[5] - a[2]*a[4], a[2]*a[3] - a[0]*a[5], a[0]*a[4] - a[1]*a[3],
	}
	mirror := a.Det() < 0
	if mirror {
		cof = cof.Mul(-1)
	}
	p := Part{
		Positions: make([]mgl32.Vec3, len(me.Positions)),
		// Read only: addMeshNow copies them into its buffer.
		UVs: me.UVs, UVs1: me.UVs1, Colors: me.Colors,
		Indices: me.Indices,
	}
	for i, v := range me.Positions {
		p.Positions[i] = t.Mul4x1(v.Vec4(1)).Vec3()
	}
	if me.Normals != nil {
		p.Normals = make([]mgl32.Vec3, len(me.Normals))
		for i, n := range me.Normals {
			n = cof.Mul3x1(n)
			if l := n.Len(); l > 0 && finite(l) {
				n = n.Mul(1 / l)
			} else {
				n = mgl32.Vec3{}
			}
			p.Normals[i] = n
		}
	}
	if me.Tangents != nil {
		p.Tangents = make([]mgl32.Vec4, len(me.Tangents))
		for i, tg := range me.Tangents {
			v := a.Mul3x1(tg.Vec3())
			if l := v.Len(); l > 0 && finite(l) {
				v = v.Mul(1 / l)
			} else {
				v = mgl32.Vec3{}
			}
			w := tg[3]
			if mirror {
				w = -w
			}
			p.Tangents[i] = v.Vec4(w)
		}
	}
	if mirror {
		p.Indices = make([]uint32, len(me.Indices))
		for j := 0; j+2 < len(p.Indices); j += 3 {
			p.Indices[j], p.Indices[j+1], p.Indices[j+2] = me.Indices[j], me.Indices[j+2], me.Indices[j+1]
		}
	}
	return p
}

// FitCube returns the transform that centres box b on the origin and
// scales it uniformly so that its longest side spans the default cube's
// 2 units ([−1, 1]): a model placed with it is drawn as large as a cube
// at the same Body.Scale. An empty box is only centred.
func FitCube(b gltf.Box) mgl32.Mat4 {
	size := b.Size()
	longest := max(size[0], size[1], size[2])
	s := float32(1)
	if longest > 0 && finite(longest) {
		s = 2 / longest
	}
	c := b.Center()
	return mgl32.Scale3D(s, s, s).Mul4(mgl32.Translate3D(-c[0], -c[1], -c[2]))
}

// NodeMesh is one node's mesh registered by AddNodeMeshes.
type NodeMesh struct {
	Node int              // index into gltf.Model.Nodes
	Mesh simthread.MeshID // the mesh
	// Mirror is true where the node's world transform at rest mirrors:
	// the mesh then holds its primitives mirrored along x (rewound), and
	// a body drawing it takes the node's world transform times
	// MirrorX, which does not mirror.
	Mirror bool
}

// MirrorX is the mirroring along x that AddNodeMeshes bakes into a
// mirrored node's mesh.
var MirrorX = mgl32.Scale3D(-1, 1, 1)

// AddNodeMeshes registers the model for animation: each node that places
// primitives becomes a mesh of its own, in the node's own frame (only
// the mirroring of a mirrored node baked in), so that a body per node,
// posed with the node's world transform at each tick (gltf.Model.
// WorldPose, gltf.Decompose), draws the model as the animation moves it.
// Materials are registered as AddModel does, once for all nodes. It
// returns the nodes' meshes in node order. Skinned meshes are left out:
// AddSkinned draws them. It takes AddModel's options.
func (r *Renderer) AddNodeMeshes(m *gltf.Model, opts ...ModelOption) ([]NodeMesh, error) {
	mats := modelMaterials{ids: make(map[int]simthread.MaterialID)}
	for _, o := range opts {
		o(&mats)
	}
	byNode := map[int][]int{}
	var order []int
	for i := range m.Meshes {
		n := m.Meshes[i].NodeIndex
		if len(m.Meshes[i].Indices) < 3 || m.Meshes[i].Joints != nil {
			continue // a skinned mesh is AddSkinned's
		}
		if _, ok := byNode[n]; !ok {
			order = append(order, n)
		}
		byNode[n] = append(byNode[n], i)
	}
	slices.Sort(order)
	var out []NodeMesh
	for _, n := range order {
		var parts []Part
		mirror := false
		for _, i := range byNode[n] {
			me := &m.Meshes[i]
			mirror = me.Transform.Mat3().Det() < 0
			id, err := r.modelMaterial(m, me.Material, &mats)
			if err != nil {
				return nil, err
			}
			t := mgl32.Ident4()
			if mirror {
				t = MirrorX
			}
			p := modelPart(m, me, t)
			p.Material = id
			parts = append(parts, p)
		}
		id, err := r.addMeshNow(parts...)
		if err != nil {
			return nil, err
		}
		out = append(out, NodeMesh{Node: n, Mesh: id, Mirror: mirror})
	}
	if len(out) == 0 {
		return nil, errors.New("renderer: model has no triangles to draw")
	}
	return out, nil
}
