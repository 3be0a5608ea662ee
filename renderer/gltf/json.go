package gltf

import "encoding/json"

// The glTF JSON schema, reduced to what this package reads and writes.
// Optional indices are pointers so that "absent" differs from 0. Values
// whose mere presence is refused are kept raw.

type document struct {
	Asset              asset             `json:"asset"`
	ExtensionsUsed     []string          `json:"extensionsUsed,omitempty"`
	ExtensionsRequired []string          `json:"extensionsRequired,omitempty"`
	Scene              *int              `json:"scene,omitempty"`
	Scenes             []scene           `json:"scenes,omitempty"`
	Nodes              []node            `json:"nodes,omitempty"`
	Meshes             []mesh            `json:"meshes,omitempty"`
	Materials          []material        `json:"materials,omitempty"`
	Textures           []texture         `json:"textures,omitempty"`
	Images             []imageDef        `json:"images,omitempty"`
	Accessors          []accessor        `json:"accessors,omitempty"`
	BufferViews        []bufferView      `json:"bufferViews,omitempty"`
	Buffers            []buffer          `json:"buffers,omitempty"`
	Skins              []skin            `json:"skins,omitempty"`
	Cameras            []json.RawMessage `json:"cameras,omitempty"`
	Animations         []animation       `json:"animations,omitempty"`
	Samplers           []sampler         `json:"samplers,omitempty"`
}

type asset struct {
	Version    string `json:"version"`
	MinVersion string `json:"minVersion,omitempty"`
	Generator  string `json:"generator,omitempty"`
}

type scene struct {
	Name  string `json:"name,omitempty"`
	Nodes []int  `json:"nodes,omitempty"`
}

type node struct {
	Name        string    `json:"name,omitempty"`
	Children    []int     `json:"children,omitempty"`
	Mesh        *int      `json:"mesh,omitempty"`
	Skin        *int      `json:"skin,omitempty"`
	Camera      *int      `json:"camera,omitempty"`
	Matrix      []float32 `json:"matrix,omitempty"`
	Translation []float32 `json:"translation,omitempty"`
	Rotation    []float32 `json:"rotation,omitempty"`
	Scale       []float32 `json:"scale,omitempty"`
	Weights     []float32 `json:"weights,omitempty"`
}

type skin struct {
	Name                string `json:"name,omitempty"`
	InverseBindMatrices *int   `json:"inverseBindMatrices,omitempty"`
	Skeleton            *int   `json:"skeleton,omitempty"`
	Joints              []int  `json:"joints"`
}

type mesh struct {
	Name       string      `json:"name,omitempty"`
	Primitives []primitive `json:"primitives"`
	Weights    []float32   `json:"weights,omitempty"`
}

type primitive struct {
	Attributes map[string]int   `json:"attributes"`
	Indices    *int             `json:"indices,omitempty"`
	Material   *int             `json:"material,omitempty"`
	Mode       *int             `json:"mode,omitempty"`
	Targets    []map[string]int `json:"targets,omitempty"`
}

type material struct {
	Name             string                     `json:"name,omitempty"`
	PBR              *pbr                       `json:"pbrMetallicRoughness,omitempty"`
	NormalTexture    *textureRef                `json:"normalTexture,omitempty"`
	OcclusionTexture *textureRef                `json:"occlusionTexture,omitempty"`
	EmissiveTexture  *textureRef                `json:"emissiveTexture,omitempty"`
	EmissiveFactor   []float32                  `json:"emissiveFactor,omitempty"`
	AlphaMode        string                     `json:"alphaMode,omitempty"`
	AlphaCutoff      *float32                   `json:"alphaCutoff,omitempty"`
	DoubleSided      bool                       `json:"doubleSided,omitempty"`
	Extensions       map[string]json.RawMessage `json:"extensions,omitempty"`
}

// emissiveStrength is KHR_materials_emissive_strength.
type emissiveStrength struct {
	EmissiveStrength *float32 `json:"emissiveStrength,omitempty"`
}

// textureTransform is KHR_texture_transform.
type textureTransform struct {
	Offset   []float32 `json:"offset,omitempty"`
	Rotation float32   `json:"rotation,omitempty"`
	Scale    []float32 `json:"scale,omitempty"`
	TexCoord *int      `json:"texCoord,omitempty"`
}

type animation struct {
	Name     string             `json:"name,omitempty"`
	Channels []animChannel      `json:"channels"`
	Samplers []animationSampler `json:"samplers"`
}

type animChannel struct {
	Sampler int `json:"sampler"`
	Target  struct {
		Node *int   `json:"node,omitempty"`
		Path string `json:"path"`
	} `json:"target"`
}

type animationSampler struct {
	Input         int    `json:"input"`
	Interpolation string `json:"interpolation,omitempty"`
	Output        int    `json:"output"`
}

type sampler struct {
	MagFilter int `json:"magFilter,omitempty"`
	MinFilter int `json:"minFilter,omitempty"`
	WrapS     int `json:"wrapS,omitempty"`
	WrapT     int `json:"wrapT,omitempty"`
}

type pbr struct {
	BaseColorFactor  []float32   `json:"baseColorFactor,omitempty"`
	BaseColorTexture *textureRef `json:"baseColorTexture,omitempty"`
	MetallicFactor   *float32    `json:"metallicFactor,omitempty"`
	RoughnessFactor  *float32    `json:"roughnessFactor,omitempty"`

	MetallicRoughnessTexture *textureRef `json:"metallicRoughnessTexture,omitempty"`
}

type textureRef struct {
	Index    int `json:"index"`
	TexCoord int `json:"texCoord,omitempty"`
	// Raw, read only where they belong (normalTexture's scale,
	// occlusionTexture's strength): elsewhere a file may hold anything
	// under these names.
	Scale      json.RawMessage            `json:"scale,omitempty"`
	Strength   json.RawMessage            `json:"strength,omitempty"`
	Extensions map[string]json.RawMessage `json:"extensions,omitempty"`
}

type texture struct {
	Sampler *int `json:"sampler,omitempty"`
	Source  *int `json:"source,omitempty"`
}

type imageDef struct {
	Name       string `json:"name,omitempty"`
	URI        string `json:"uri,omitempty"`
	MimeType   string `json:"mimeType,omitempty"`
	BufferView *int   `json:"bufferView,omitempty"`
}

type accessor struct {
	BufferView    *int            `json:"bufferView,omitempty"`
	ByteOffset    int             `json:"byteOffset,omitempty"`
	ComponentType int             `json:"componentType"`
	Normalized    bool            `json:"normalized,omitempty"`
	Count         int             `json:"count"`
	Type          string          `json:"type"`
	Max           []float64       `json:"max,omitempty"`
	Min           []float64       `json:"min,omitempty"`
	Sparse        json.RawMessage `json:"sparse,omitempty"`
}

type bufferView struct {
	Buffer     int `json:"buffer"`
	ByteOffset int `json:"byteOffset,omitempty"`
	ByteLength int `json:"byteLength"`
	ByteStride int `json:"byteStride,omitempty"`
	// Target is a hint Decode does not read: any number (the validator
	// lets 3e38 through), not only an integer.
	Target json.Number `json:"target,omitempty"`
}

type buffer struct {
	URI        string `json:"uri,omitempty"`
	ByteLength int    `json:"byteLength"`
}

// Accessor component types and bufferView targets, from the glTF 2.0
// specification (they are OpenGL's enums).
const (
	typeByte          = 5120
	typeUnsignedByte  = 5121
	typeShort         = 5122
	typeUnsignedShort = 5123
	typeUnsignedInt   = 5125
	typeFloat         = 5126

	targetArrayBuffer        = 34962
	targetElementArrayBuffer = 34963

	modeTriangles = 4
)

// componentSize returns the size in bytes of a component type, or 0 for an
// unknown one.
func componentSize(t int) int {
	switch t {
	case typeByte, typeUnsignedByte:
		return 1
	case typeShort, typeUnsignedShort:
		return 2
	case typeUnsignedInt, typeFloat:
		return 4
	}
	return 0
}

// componentCount returns the number of components of an accessor type, or
// 0 for an unknown one.
func componentCount(t string) int {
	switch t {
	case "SCALAR":
		return 1
	case "VEC2":
		return 2
	case "VEC3":
		return 3
	case "VEC4", "MAT2":
		return 4
	case "MAT3":
		return 9
	case "MAT4":
		return 16
	}
	return 0
}

var modeNames = [...]string{"POINTS", "LINES", "LINE_LOOP", "LINE_STRIP", "TRIANGLES", "TRIANGLE_STRIP", "TRIANGLE_FAN"}
