package gltf

import (
	"errors"
	"fmt"
	"image"
	"math"

	"github.com/go-gl/mathgl/mgl32"
)

// A Model is a decoded glTF scene: a flat list of triangle meshes, each with
// its own transform, and the materials they use.
type Model struct {
	// Meshes holds one entry per primitive of every mesh the scene's nodes
	// place, in depth-first node order.
	Meshes []Mesh

	// Materials holds every material of the file, in file order; Mesh.Material
	// indexes it.
	Materials []Material

	// Images holds each distinct base color texture once. They are the same
	// values as the materials' BaseColorTexture fields, so a renderer can
	// upload each once and find it by comparing the interface values.
	Images []image.Image

	// Bounds is the model-space bounding box of all meshes, after their
	// transforms. It is the zero Box when there are no meshes.
	Bounds Box
}

// A Mesh is one glTF mesh primitive placed by one node: an indexed triangle
// list. Meshes placed by several nodes share their slices; treat them as
// read-only (Bake replaces rather than modifies them).
type Mesh struct {
	Name string // the glTF mesh's name
	Node string // the name of the node that places it

	// Positions, Normals and UVs hold one entry per vertex. Normals are
	// read from the file or, where it has none, computed flat (zero for
	// triangles without area). UVs is the
	// TEXCOORD_0 set, as glTF stores it: (0, 0) is the top-left corner of
	// the image, so a texture uploaded with its top row first is sampled
	// with these coordinates unchanged. UVs is nil if the primitive has no
	// TEXCOORD_0.
	Positions []mgl32.Vec3
	Normals   []mgl32.Vec3
	UVs       []mgl32.Vec2

	// Indices holds three entries per triangle, counter-clockwise front
	// faces, each less than len(Positions).
	Indices []uint32

	// Material indexes Model.Materials, or is -1 for none, which glTF draws
	// with DefaultMaterial.
	Material int

	// Transform takes the mesh's vertices to model space. Where its
	// determinant is negative (a mirroring), a renderer that draws with it
	// must treat clockwise triangles as front faces, as glTF requires.
	Transform mgl32.Mat4
}

// A Material is a glTF metallic-roughness material, reduced to the values
// this package reads.
type Material struct {
	Name string

	// BaseColor is baseColorFactor: linear RGBA, as glTF stores it.
	BaseColor mgl32.Vec4

	// Metallic and Roughness are metallicFactor and roughnessFactor.
	Metallic, Roughness float32

	// BaseColorTexture is the decoded baseColorTexture, or nil for none.
	// Its colors are sRGB encoded, as glTF stores them, and multiply
	// BaseColor. The texture's sampler is not read (see the package comment).
	BaseColorTexture image.Image
}

// DefaultMaterial returns the material glTF draws a primitive without a
// material with: white, fully metallic and fully rough.
func DefaultMaterial() Material {
	return Material{BaseColor: mgl32.Vec4{1, 1, 1, 1}, Metallic: 1, Roughness: 1}
}

// A Box is an axis-aligned bounding box.
type Box struct {
	Min, Max mgl32.Vec3
}

// Center returns the point halfway between Min and Max.
func (b Box) Center() mgl32.Vec3 { return b.Min.Add(b.Max).Mul(0.5) }

// Size returns Max - Min.
func (b Box) Size() mgl32.Vec3 { return b.Max.Sub(b.Min) }

// Bake moves every mesh's Transform into its vertex data, so that the model
// draws as one list of meshes with identity transforms: positions are
// transformed, normals are transformed by the inverse transpose and
// renormalized, and the triangles of mirrored meshes are rewound so that
// they stay counter-clockwise. Bake gives each mesh whose Transform is not
// the identity new Positions and Normals slices (and new Indices where it
// rewinds), leaving the old ones, which other meshes may share, untouched.
// Bounds does not change.
func (m *Model) Bake() {
	for i := range m.Meshes {
		me := &m.Meshes[i]
		t := me.Transform
		if t == mgl32.Ident4() {
			continue
		}
		pos := make([]mgl32.Vec3, len(me.Positions))
		for j, p := range me.Positions {
			pos[j] = transformPoint(t, p)
		}
		nm, flip := normalMatrix(t)
		nrm := make([]mgl32.Vec3, len(me.Normals))
		for j, n := range me.Normals {
			nrm[j] = unit(nm.Mul3x1(n))
		}
		if flip {
			idx := make([]uint32, len(me.Indices))
			for j := 0; j+2 < len(idx); j += 3 {
				idx[j], idx[j+1], idx[j+2] = me.Indices[j], me.Indices[j+2], me.Indices[j+1]
			}
			me.Indices = idx
		}
		me.Positions, me.Normals, me.Transform = pos, nrm, mgl32.Ident4()
	}
}

// transformPoint returns t applied to the point p.
func transformPoint(t mgl32.Mat4, p mgl32.Vec3) mgl32.Vec3 {
	return mgl32.Vec3{
		t[0]*p[0] + t[4]*p[1] + t[8]*p[2] + t[12],
		t[1]*p[0] + t[5]*p[1] + t[9]*p[2] + t[13],
		t[2]*p[0] + t[6]*p[1] + t[10]*p[2] + t[14],
	}
}

// normalMatrix returns a matrix proportional to the inverse transpose of t's
// upper 3×3 with the same orientation, and whether t mirrors. It uses the
// cofactor matrix, which is defined even where t is singular.
func normalMatrix(t mgl32.Mat4) (mgl32.Mat3, bool) {
	a := t.Mat3()
	// cof(A) = det(A)·A⁻ᵀ; multiplying by sign(det) keeps normals pointing
	// outwards under a mirroring.
	c := mgl32.Mat3{
		a[4]*a[8] - a[5]*a[7], a[5]*a[6] - a[3]*a[8], a[3]*a[7] - a[4]*a[6],
		a[2]*a[7] - a[1]*a[8], a[0]*a[8] - a[2]*a[6], a[1]*a[6] - a[0]*a[7],
		a[1]*a[5] - a[2]*a[4], a[2]*a[3] - a[0]*a[5], a[0]*a[4] - a[1]*a[3],
	}
	if a.Det() < 0 {
		return c.Mul(-1), true
	}
	return c, false
}

// unit returns v scaled to length 1, or the zero vector if v has no
// direction (or overflows).
func unit(v mgl32.Vec3) mgl32.Vec3 {
	l := math.Sqrt(float64(v[0])*float64(v[0]) + float64(v[1])*float64(v[1]) + float64(v[2])*float64(v[2]))
	if l == 0 || math.IsInf(l, 0) || math.IsNaN(l) {
		return mgl32.Vec3{}
	}
	return mgl32.Vec3{float32(float64(v[0]) / l), float32(float64(v[1]) / l), float32(float64(v[2]) / l)}
}

// An Error reports why a file could not be decoded.
type Error struct {
	File string // the name given to Decode, or the path given to Load
	Path string // the JSON path of the offending value, or "" for none
	Err  error
}

// Error returns "gltf: File: Path: Err", leaving Path out where it is "".
func (e *Error) Error() string {
	if e.Path == "" {
		return "gltf: " + e.File + ": " + e.Err.Error()
	}
	return "gltf: " + e.File + ": " + e.Path + ": " + e.Err.Error()
}

// Unwrap returns e.Err.
func (e *Error) Unwrap() error { return e.Err }

// unsupported is the message of a refusal; it matches errors.ErrUnsupported.
type unsupported string

func (u unsupported) Error() string        { return string(u) }
func (u unsupported) Is(target error) bool { return target == errors.ErrUnsupported }

func unsupportedf(format string, args ...any) error {
	return unsupported(fmt.Sprintf(format, args...))
}
