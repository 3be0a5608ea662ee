package gltf

import (
	"errors"
	"fmt"
	"image"
	"io/fs"
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

	// Nodes holds every node of the file, in file order, for animation
	// (Mesh.NodeIndex indexes it); Animations every animation. A
	// renderer that plays animation a samples it at a time into a pose
	// (RestPose, then Animation.Sample), turns the pose into world
	// transforms (WorldPose) and draws each mesh with its node's.
	Nodes      []treeNode
	Animations []Animation
	// Skins holds every skin of the file, in file order (Mesh.Skin
	// indexes it).
	Skins []Skeleton
	order []int // the nodes the scene places, parents first

	// Ignored names, once each and in a fixed order, what the file holds
	// that Decode read past without refusing it (see the package comment):
	// "cameras", "animations", an extension's name, "COLOR_0", … A viewer
	// can show it beside the model, so that nobody mistakes a missing
	// feature for a broken asset.
	Ignored []string
}

// A Mesh is one glTF mesh primitive placed by one node: an indexed triangle
// list. Meshes placed by several nodes share their slices; treat them as
// read-only (Bake replaces rather than modifies them).
type Mesh struct {
	Name string // the glTF mesh's name
	Node string // the name of the node that places it

	// MeshIndex and NodeIndex are the indices, in the file, of the glTF
	// mesh this primitive belongs to and of the node that places it.
	MeshIndex, NodeIndex int

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

	// UVs1 is the TEXCOORD_1 set, nil if none. Colors is COLOR_0, linear
	// RGBA (alpha 1 where the file has RGB), which multiplies the base
	// colour; nil if none. Tangents is TANGENT (XYZ unit, W ±1, the
	// bitangent being W·(normal × tangent)), nil if the file has none:
	// the renderer then computes them where a normal map needs them.
	UVs1     []mgl32.Vec2
	Colors   []mgl32.Vec4
	Tangents []mgl32.Vec4

	// Indices holds three entries per triangle, counter-clockwise front
	// faces, each less than len(Positions).
	Indices []uint32

	// Material indexes Model.Materials, or is -1 for none, which glTF draws
	// with DefaultMaterial.
	Material int

	// Transform takes the mesh's vertices to model space. Where its
	// determinant is negative (a mirroring), a renderer that draws with it
	// must treat clockwise triangles as front faces, as glTF requires.
	// It is the identity for a skinned mesh, whose joints place it.
	Transform mgl32.Mat4

	// Joints and Weights are, for a skinned mesh, each vertex's joints
	// (indices into the skin's Joints) and their weights, MaxInfluences
	// a vertex, the weights summing to 1 (unused ones 0); nil for a mesh
	// without a skin. Skin indexes Model.Skins where Joints is not nil.
	// A skinned vertex i is at SkinPosition(i, the skin's joint matrices)
	// in model space.
	Joints  [][4]uint16
	Weights []mgl32.Vec4
	Skin    int

	// Targets are a skinned mesh's morph targets (at most MaxTargets),
	// and TargetWeights their weights at rest (its node's, else its
	// mesh's, else zeros); a skinned mesh is morphed by its character
	// (Morph). A mesh without a skin is drawn as it rests: Decode bakes
	// its weights into its vertices and leaves these nil.
	Targets       []Target
	TargetWeights []float32
}

// A Material is a glTF metallic-roughness material, reduced to the values
// this package reads. Colours are linear but for the sRGB-encoded base
// colour and emissive textures, as glTF stores them; the other textures
// hold linear data.
type Material struct {
	Name string

	// BaseColor is baseColorFactor: linear RGBA, as glTF stores it.
	BaseColor mgl32.Vec4

	// Metallic and Roughness are metallicFactor and roughnessFactor.
	Metallic, Roughness float32

	// BaseColorTexture is the decoded baseColorTexture, or nil for none.
	// Its colors are sRGB encoded and multiply BaseColor.
	BaseColorTexture image.Image

	// MetallicRoughnessTexture, if not nil, holds metalness in its blue
	// channel and roughness in its green, linear; they multiply Metallic
	// and Roughness.
	MetallicRoughnessTexture image.Image

	// NormalTexture, if not nil, is a tangent-space normal map (linear,
	// (0.5, 0.5, 1) is the unperturbed normal); NormalScale scales its X
	// and Y.
	NormalTexture image.Image
	NormalScale   float32

	// OcclusionTexture, if not nil, holds ambient occlusion in its red
	// channel, linear; OcclusionStrength blends it in (0: none, 1: all).
	OcclusionTexture  image.Image
	OcclusionStrength float32

	// Emissive is emissiveFactor times KHR_materials_emissive_strength's
	// emissiveStrength: linear RGB light the surface emits, which may
	// exceed 1. EmissiveTexture, if not nil, multiplies it; its colours
	// are sRGB encoded.
	Emissive        mgl32.Vec3
	EmissiveTexture image.Image

	// Sampling says how each of the five textures is sampled, indexed by
	// Slot.
	Sampling [Slots]TextureInfo

	// AlphaMode is alphaMode; AlphaCutoff is alphaCutoff (Mask only).
	AlphaMode   AlphaMode
	AlphaCutoff float32

	// DoubleSided is doubleSided: back faces are drawn, lit with the
	// flipped normal.
	DoubleSided bool

	// Shader, if not "", names the material's own fragment shader for
	// package renderer, a GLSL 410 file in ShaderFS that defines
	// vec3 shade(Surface s) (docs/scene.md says what Surface holds, how
	// to reach the lights and what else it may call; shaders/surface.glsl
	// defines them). It is compiled with the built-in shaders' loader, for
	// this material's features (surface.glsl's TF_FEATURES: what it does
	// not use is left out of Surface's gathering); an error is a
	// *renderer.ShaderError with the driver's log and the file's numbered
	// source. A decoded model's materials have none (renderer.ModelShader
	// gives them one).
	Shader   string
	ShaderFS fs.FS
}

// Texture returns the material's texture in slot s, nil for none.
func (m *Material) Texture(s Slot) image.Image {
	switch s {
	case BaseColorSlot:
		return m.BaseColorTexture
	case MetallicRoughnessSlot:
		return m.MetallicRoughnessTexture
	case NormalSlot:
		return m.NormalTexture
	case OcclusionSlot:
		return m.OcclusionTexture
	case EmissiveSlot:
		return m.EmissiveTexture
	}
	return nil
}

// setTexture sets the material's texture in slot s.
func (m *Material) setTexture(s Slot, img image.Image) {
	switch s {
	case BaseColorSlot:
		m.BaseColorTexture = img
	case MetallicRoughnessSlot:
		m.MetallicRoughnessTexture = img
	case NormalSlot:
		m.NormalTexture = img
	case OcclusionSlot:
		m.OcclusionTexture = img
	case EmissiveSlot:
		m.EmissiveTexture = img
	}
}

// A Slot names one of a material's textures.
type Slot int

// The texture slots, in the order of Material.Sampling.
const (
	BaseColorSlot Slot = iota
	MetallicRoughnessSlot
	NormalSlot
	OcclusionSlot
	EmissiveSlot
	Slots // the number of slots
)

// SRGB reports whether the texture in slot s holds sRGB-encoded colours
// (base colour and emissive) rather than linear data.
func (s Slot) SRGB() bool { return s == BaseColorSlot || s == EmissiveSlot }

func (s Slot) String() string {
	switch s {
	case BaseColorSlot:
		return "baseColorTexture"
	case MetallicRoughnessSlot:
		return "metallicRoughnessTexture"
	case NormalSlot:
		return "normalTexture"
	case OcclusionSlot:
		return "occlusionTexture"
	case EmissiveSlot:
		return "emissiveTexture"
	}
	return "Slot(" + fmt.Sprint(int(s)) + ")"
}

// AlphaMode is how a material's alpha is used.
type AlphaMode uint8

const (
	// Opaque ignores alpha (glTF's default).
	Opaque AlphaMode = iota
	// Mask draws a fragment where its alpha is at least AlphaCutoff and
	// nothing elsewhere.
	Mask
	// Blend blends the surface over what is behind it by its alpha.
	Blend
)

func (a AlphaMode) String() string {
	switch a {
	case Opaque:
		return "OPAQUE"
	case Mask:
		return "MASK"
	case Blend:
		return "BLEND"
	}
	return "AlphaMode(" + fmt.Sprint(int(a)) + ")"
}

// TextureInfo is how a material samples one texture.
type TextureInfo struct {
	Sampler Sampler
	// TexCoord is the UV set: 0 (TEXCOORD_0) or 1 (TEXCOORD_1).
	TexCoord int
	// Transform is KHR_texture_transform's, nil for none.
	Transform *TextureTransform
}

// A Sampler is a glTF sampler: the filters and wrap modes are OpenGL's
// enums, as glTF stores them (Nearest, LinearMipmapLinear, Repeat, …); 0
// is a filter the file leaves to the renderer, and a wrap of 0 means
// Repeat, glTF's default.
type Sampler struct {
	MagFilter, MinFilter int
	WrapS, WrapT         int
}

// Sampler filters and wrap modes, from the glTF 2.0 specification.
const (
	Nearest              = 9728
	Linear               = 9729
	NearestMipmapNearest = 9984
	LinearMipmapNearest  = 9985
	NearestMipmapLinear  = 9986
	LinearMipmapLinear   = 9987
	ClampToEdge          = 33071
	MirroredRepeat       = 33648
	Repeat               = 10497
)

// A TextureTransform is KHR_texture_transform: texture coordinates are
// scaled, then rotated by Rotation radians, then offset, as the extension
// defines (see Matrix).
type TextureTransform struct {
	Offset   mgl32.Vec2
	Rotation float32
	Scale    mgl32.Vec2
}

// Matrix returns the transform as a matrix on (u, v, 1): T·R·S, as the
// extension defines it.
func (t *TextureTransform) Matrix() mgl32.Mat3 {
	s, c := math.Sincos(float64(t.Rotation))
	sin, cos := float32(s), float32(c)
	// Column-major: columns (a, b, 0), (c, d, 0), (tx, ty, 1).
	return mgl32.Mat3{
		cos * t.Scale[0], -sin * t.Scale[0], 0,
		sin * t.Scale[1], cos * t.Scale[1], 0,
		t.Offset[0], t.Offset[1], 1,
	}
}

// DefaultMaterial returns the material glTF draws a primitive without a
// material with: white, fully metallic and fully rough, opaque and single
// sided, with the specification's defaults for the scales and the cutoff.
func DefaultMaterial() Material {
	return Material{BaseColor: mgl32.Vec4{1, 1, 1, 1}, Metallic: 1, Roughness: 1,
		NormalScale: 1, OcclusionStrength: 1, AlphaCutoff: 0.5}
}

// A Box is an axis-aligned bounding box.
type Box struct {
	Min, Max mgl32.Vec3
}

// Center returns the point halfway between Min and Max.
func (b Box) Center() mgl32.Vec3 { return b.Min.Add(b.Max).Mul(0.5) }

// Size returns Max - Min.
func (b Box) Size() mgl32.Vec3 { return b.Max.Sub(b.Min) }

// bake moves every mesh's Transform into its vertex data, so that the model
// draws as one list of meshes with identity transforms: positions are
// transformed, normals are transformed by the inverse transpose and
// renormalized, tangents by the transform and renormalized (their
// handedness flipped by a mirroring), and the triangles of mirrored meshes
// are rewound so that they stay counter-clockwise. bake gives each mesh
// whose Transform is not the identity new Positions, Normals and Tangents
// slices (and new Indices where it rewinds), leaving the old ones, which
// other meshes may share, untouched.
// Bounds does not change.
func (m *Model) bake() {
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
		if me.Tangents != nil {
			a := t.Mat3()
			tan := make([]mgl32.Vec4, len(me.Tangents))
			for j, tg := range me.Tangents {
				w := tg[3]
				if flip {
					w = -w // a mirroring turns the tangent frame's handedness
				}
				tan[j] = unit(a.Mul3x1(tg.Vec3())).Vec4(w)
			}
			me.Tangents = tan
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

// ErrLimit is matched (errors.Is) by the errors for files that break one
// of the limits the package comment lists (sizes, counts, aliasing,
// coordinates), which a file can do while the specification allows it.
var ErrLimit = errors.New("over a limit")

// ErrImageData is matched (errors.Is) by the errors for an image whose
// bytes the PNG or JPEG decoder rejects. The Khronos validator reads only
// an image's header, so a file it calls valid can hold one.
var ErrImageData = errors.New("image data does not decode")

// overLimit is the message of a limit's refusal; it matches ErrLimit.
type overLimit string

func (o overLimit) Error() string        { return string(o) }
func (o overLimit) Is(target error) bool { return target == ErrLimit }

// unsupported is the message of a refusal; it matches errors.ErrUnsupported.
type unsupported string

func (u unsupported) Error() string        { return string(u) }
func (u unsupported) Is(target error) bool { return target == errors.ErrUnsupported }

func unsupportedf(format string, args ...any) error {
	return unsupported(fmt.Sprintf(format, args...))
}
