package gltf

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"math"
	"reflect"
	"slices"
	"strconv"

	"github.com/go-gl/mathgl/mgl32"
)

// A Builder writes a glTF 2.0 model, as .glb or as .gltf with one buffer,
// from meshes, materials and nodes added to it. It writes only what Decode
// reads: triangle primitives with positions and optional normals, two UV
// sets, vertex colours, tangents, two sets of joints and weights, morph
// targets, and indices; skins (AddSkin); metallic-roughness
// materials with PNG textures in every slot, samplers, texture transforms,
// emissive strength, alpha modes and double-sidedness; and a node tree,
// all of whose root nodes form scene 0.
//
// The zero Builder is empty and ready to use. The Add methods check their
// arguments; the first problem is returned by GLB or GLTF, as an *Error
// whose File is "builder" and, but for materials and textures, whose
// Path is the JSON path of what would have been written wrong
// ("meshes[0].primitives[0].attributes.WEIGHTS_0"), as Decode names it.
type Builder struct {
	// Interleave makes AddMesh write each primitive's positions, normals and
	// UVs into one bufferView with a byteStride, rather than one tightly
	// packed bufferView each.
	Interleave bool

	doc    document
	bin    []byte
	err    error
	joints map[int]jointUse    // per mesh, its primitives' largest joint index
	images map[image.Image]int // image index of each pointer texture written
	parent map[int]int         // the parent of each node that has one
}

// A Primitive is the vertex data of one mesh primitive, for Builder.AddMesh.
type Primitive struct {
	Positions []mgl32.Vec3 // required
	Normals   []mgl32.Vec3 // nil, or one per position
	UVs       []mgl32.Vec2 // nil, or one per position; written as TEXCOORD_0
	UVs1      []mgl32.Vec2 // nil, or one per position; written as TEXCOORD_1
	Colors    []mgl32.Vec4 // nil, or one per position; written as float RGBA COLOR_0
	Tangents  []mgl32.Vec4 // nil, or one per position; written as TANGENT
	Indices   []uint32     // nil for a non-indexed triangle list

	// Joints and Weights, nil or one per position each, are written as
	// JOINTS_0 (unsigned byte, or short past 255) and WEIGHTS_0 (float),
	// for a skin given to the mesh's node by AddSkin. Joints1 and
	// Weights1, nil or one per position each, are a second set of four
	// influences, written as JOINTS_1 and WEIGHTS_1 (Decode keeps each
	// vertex's four largest). A vertex's weights lie in [0, 1], sum to 1
	// over both sets within 0.01 (as Decode requires) and are written
	// scaled to sum to 1, as the Khronos validator requires to float32
	// rounding; a joint with a weight is named once a vertex.
	Joints   [][4]uint16
	Weights  []mgl32.Vec4
	Joints1  [][4]uint16
	Weights1 []mgl32.Vec4

	// Targets are morph targets (at most MaxTargets), each slice nil or
	// one per position, written as float VEC3 POSITION, NORMAL and
	// TANGENT displacements; NORMAL and TANGENT ones only where the
	// primitive has Normals and Tangents. Every primitive of a mesh has
	// as many.
	Targets []Target

	// IndexBytes is the width of the written indices, 1, 2 or 4; 0 picks
	// the smallest that holds len(Positions)-1.
	IndexBytes int

	// Material is an index returned by AddMaterial, or -1 for none.
	Material int
}

// A Node is a node for Builder.AddNode.
type Node struct {
	Name string

	// Mesh is an index returned by AddMesh, or -1 for none.
	Mesh int

	// Matrix, if not the zero matrix, is written as the node's transform
	// and Translation, Rotation and Scale are ignored. Otherwise those are
	// written; a zero Rotation means no rotation and a zero Scale means
	// (1, 1, 1).
	Matrix      mgl32.Mat4
	Translation mgl32.Vec3
	Rotation    mgl32.Quat
	Scale       mgl32.Vec3

	// Children are indices returned by earlier AddNode calls (see also
	// AddChild). A node may be the child of one node only.
	Children []int

	// Weights, if not nil, are the morph weights of the node's mesh, one
	// a target.
	Weights []float32
}

func (b *Builder) fail(format string, args ...any) {
	if b.err == nil {
		b.err = fmt.Errorf("gltf: builder: "+format, args...)
	}
}

// failAt records the first problem, at JSON path path of the document
// being built.
func (b *Builder) failAt(path, format string, args ...any) {
	if b.err == nil {
		b.err = builderError(path, format, args...)
	}
}

// builderError returns the Builder's error at JSON path path.
func builderError(path, format string, args ...any) error {
	return &Error{File: "builder", Path: path, Err: fmt.Errorf(format, args...)}
}

// AddMaterial adds a material and returns its index. Each texture is
// written as PNG, once however many materials use it (if it is a pointer,
// as the standard library's image types are), with its sampler, UV set
// and KHR_texture_transform from Sampling; an Emissive above 1 is written
// as a factor and KHR_materials_emissive_strength. The fields are written
// as they are: a zero Material is black, not metallic and perfectly
// smooth; start from DefaultMaterial for glTF's defaults.
//
// PNG stores straight alpha; Go's image.RGBA and image.RGBA64 hold
// premultiplied colours, which are divided by their alpha as they are
// written (as image/png does), so an image.RGBA with partial alpha comes
// back as the straight colours it stood for. A straight colour put in an
// image.RGBA is not premultiplied and cannot be written: where a colour is
// above its alpha (which would come out wrapped past 255, in colours that
// were never there), the texture is refused with an error that names the
// pixel. Put straight colours in an image.NRGBA. (A straight colour at or
// below its alpha is a valid premultiplied one and is written as such,
// brighter than meant: the Builder cannot tell them apart.)
func (b *Builder) AddMaterial(m Material) int {
	f := m.BaseColor
	pm := &pbr{
		BaseColorFactor: f[:],
		MetallicFactor:  &m.Metallic,
		RoughnessFactor: &m.Roughness,
	}
	out := material{Name: m.Name, PBR: pm, DoubleSided: m.DoubleSided}
	for s := range Slots {
		img := m.Texture(s)
		if img == nil {
			continue
		}
		ref := b.textureRef(img, &m.Sampling[s])
		switch s {
		case BaseColorSlot:
			pm.BaseColorTexture = ref
		case MetallicRoughnessSlot:
			pm.MetallicRoughnessTexture = ref
		case NormalSlot:
			ref.Scale = floatJSON(m.NormalScale)
			out.NormalTexture = ref
		case OcclusionSlot:
			ref.Strength = floatJSON(m.OcclusionStrength)
			out.OcclusionTexture = ref
		case EmissiveSlot:
			out.EmissiveTexture = ref
		}
	}
	if e := m.Emissive; e != (mgl32.Vec3{}) {
		strength := max(e[0], e[1], e[2])
		if strength > 1 {
			e = e.Mul(1 / strength)
			b.setExtension(&out.Extensions, "KHR_materials_emissive_strength", emissiveStrength{EmissiveStrength: &strength})
		}
		out.EmissiveFactor = e[:]
	}
	switch m.AlphaMode {
	case Mask:
		out.AlphaMode, out.AlphaCutoff = "MASK", &m.AlphaCutoff
	case Blend:
		out.AlphaMode = "BLEND"
	}
	b.doc.Materials = append(b.doc.Materials, out)
	return len(b.doc.Materials) - 1
}

// floatJSON returns v as a JSON number.
func floatJSON(v float32) json.RawMessage {
	return strconv.AppendFloat(nil, float64(v), 'g', -1, 32)
}

// textureRef writes a texture of img sampled as info says and returns a
// reference to it.
func (b *Builder) textureRef(img image.Image, info *TextureInfo) *textureRef {
	src, ok := 0, false
	if isPointer(img) {
		src, ok = b.images[img]
	}
	if !ok {
		src = b.addImage(img)
	}
	tex := texture{Source: &src}
	if info.Sampler != (Sampler{}) {
		sm := sampler{MagFilter: info.Sampler.MagFilter, MinFilter: info.Sampler.MinFilter, WrapS: info.Sampler.WrapS, WrapT: info.Sampler.WrapT}
		k := len(b.doc.Samplers)
		for i := range b.doc.Samplers {
			if b.doc.Samplers[i] == sm {
				k = i
			}
		}
		if k == len(b.doc.Samplers) {
			b.doc.Samplers = append(b.doc.Samplers, sm)
		}
		tex.Sampler = &k
	}
	ref := &textureRef{Index: len(b.doc.Textures), TexCoord: info.TexCoord}
	b.doc.Textures = append(b.doc.Textures, tex)
	if t := info.Transform; t != nil {
		b.setExtension(&ref.Extensions, "KHR_texture_transform", textureTransform{
			Offset: t.Offset[:], Rotation: t.Rotation, Scale: t.Scale[:],
		})
	}
	return ref
}

// setExtension sets extension name to v in exts and lists it as used.
func (b *Builder) setExtension(exts *map[string]json.RawMessage, name string, v any) {
	raw, err := json.Marshal(v)
	if err != nil {
		b.fail("%s: %v", name, err)
		return
	}
	if *exts == nil {
		*exts = map[string]json.RawMessage{}
	}
	(*exts)[name] = raw
	for _, e := range b.doc.ExtensionsUsed {
		if e == name {
			return
		}
	}
	b.doc.ExtensionsUsed = append(b.doc.ExtensionsUsed, name)
}

// addImage writes img as PNG into a bufferView and returns its image index.
func (b *Builder) addImage(img image.Image) int {
	if err := notPremultiplied(img); err != nil {
		b.fail("texture: %v", err)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		b.fail("texture: %v", err)
	}
	v := b.addView(buf.Bytes(), 0, 0)
	b.doc.Images = append(b.doc.Images, imageDef{MimeType: "image/png", BufferView: &v})
	i := len(b.doc.Images) - 1
	if isPointer(img) {
		if b.images == nil {
			b.images = make(map[image.Image]int)
		}
		b.images[img] = i
	}
	return i
}

// isPointer reports whether img is a pointer, which can key a map: other
// dynamic types might panic there.
func isPointer(img image.Image) bool { return reflect.TypeOf(img).Kind() == reflect.Pointer }

// addView appends data, 4-byte aligned, as a new bufferView and returns its
// index.
func (b *Builder) addView(data []byte, stride, target int) int {
	for len(b.bin)%4 != 0 {
		b.bin = append(b.bin, 0)
	}
	b.doc.BufferViews = append(b.doc.BufferViews, bufferView{
		ByteOffset: len(b.bin), ByteLength: len(data), ByteStride: stride, Target: viewTarget(target),
	})
	b.bin = append(b.bin, data...)
	return len(b.doc.BufferViews) - 1
}

// addAccessor adds an accessor and returns its index.
func (b *Builder) addAccessor(a accessor) int {
	b.doc.Accessors = append(b.doc.Accessors, a)
	return len(b.doc.Accessors) - 1
}

// AddMesh adds a mesh of the given primitives and returns its index.
// The mesh's name is written as it is; its primitives must have as many
// morph targets each.
func (b *Builder) AddMesh(name string, prims ...Primitive) int {
	m := mesh{Name: name, Primitives: []primitive{}}
	for i, p := range prims {
		pp := fmt.Sprintf("meshes[%d].primitives[%d]", len(b.doc.Meshes), i)
		b.noteJoints(len(b.doc.Meshes), pp, p)
		if len(p.Targets) != len(prims[0].Targets) {
			b.failAt(pp+".targets", "%d morph targets where primitive 0 has %d: every primitive of a mesh has as many",
				len(p.Targets), len(prims[0].Targets))
		}
		if gp, err := b.primitive(p, pp); err != nil {
			if b.err == nil {
				b.err = err
			}
		} else {
			m.Primitives = append(m.Primitives, gp)
		}
	}
	b.doc.Meshes = append(b.doc.Meshes, m)
	return len(b.doc.Meshes) - 1
}

// primitive writes p's vertex data and returns it as the primitive at
// JSON path pp, or the first problem, at its path.
func (b *Builder) primitive(p Primitive, pp string) (primitive, error) {
	n := len(p.Positions)
	ap := pp + ".attributes"
	for _, a := range []struct {
		name string
		has  bool
		len  int
	}{{"NORMAL", p.Normals != nil, len(p.Normals)}, {"TEXCOORD_0", p.UVs != nil, len(p.UVs)},
		{"TEXCOORD_1", p.UVs1 != nil, len(p.UVs1)}, {"COLOR_0", p.Colors != nil, len(p.Colors)},
		{"TANGENT", p.Tangents != nil, len(p.Tangents)}} {
		if n > 0 && a.has && a.len != n {
			return primitive{}, builderError(ap+"."+a.name, "%d values for %d positions", a.len, n)
		}
	}
	switch {
	case n == 0:
		return primitive{}, builderError(ap+".POSITION", "no positions")
	case p.Indices == nil && n%3 != 0:
		return primitive{}, builderError(pp, "%d vertices without indices: not a whole number of triangles", n)
	case p.Indices != nil && (len(p.Indices) == 0 || len(p.Indices)%3 != 0):
		return primitive{}, builderError(pp+".indices", "%d indices: not a whole number of triangles", len(p.Indices))
	case p.Material < -1 || p.Material >= len(b.doc.Materials):
		return primitive{}, builderError(pp+".material", "material %d does not exist", p.Material)
	}
	for _, i := range p.Indices {
		if int(i) >= n {
			return primitive{}, builderError(pp+".indices", "index %d out of range for %d vertices", i, n)
		}
	}
	for k := range n {
		if !finite3(p.Positions[k]) || p.Normals != nil && !finite3(p.Normals[k]) ||
			p.UVs != nil && !(isFinite(p.UVs[k][0]) && isFinite(p.UVs[k][1])) ||
			p.UVs1 != nil && !(isFinite(p.UVs1[k][0]) && isFinite(p.UVs1[k][1])) ||
			p.Colors != nil && !finite4(p.Colors[k]) || p.Tangents != nil && !finite4(p.Tangents[k]) {
			return primitive{}, builderError(ap, "vertex %d is not finite", k)
		}
	}
	out := primitive{Attributes: map[string]int{}}
	if p.Material >= 0 {
		out.Material = &p.Material
	}

	// Attributes: name, components and the float at (vertex, component).
	type attr struct {
		name string
		n    int
		at   func(v, c int) float32
	}
	attrs := []attr{{"POSITION", 3, func(v, c int) float32 { return p.Positions[v][c] }}}
	if p.Normals != nil {
		attrs = append(attrs, attr{"NORMAL", 3, func(v, c int) float32 { return p.Normals[v][c] }})
	}
	if p.UVs != nil {
		attrs = append(attrs, attr{"TEXCOORD_0", 2, func(v, c int) float32 { return p.UVs[v][c] }})
	}
	if p.UVs1 != nil {
		attrs = append(attrs, attr{"TEXCOORD_1", 2, func(v, c int) float32 { return p.UVs1[v][c] }})
	}
	if p.Colors != nil {
		attrs = append(attrs, attr{"COLOR_0", 4, func(v, c int) float32 { return p.Colors[v][c] }})
	}
	if p.Tangents != nil {
		attrs = append(attrs, attr{"TANGENT", 4, func(v, c int) float32 { return p.Tangents[v][c] }})
	}
	write := func(data []byte, a attr, v int) []byte {
		for c := range a.n {
			data = binary.LittleEndian.AppendUint32(data, math.Float32bits(a.at(v, c)))
		}
		return data
	}
	if b.Interleave {
		stride, offs := 0, make([]int, len(attrs))
		for k, a := range attrs {
			offs[k], stride = stride, stride+4*a.n
		}
		data := make([]byte, 0, stride*n)
		for v := range n {
			for _, a := range attrs {
				data = write(data, a, v)
			}
		}
		view := b.addView(data, stride, targetArrayBuffer)
		for k, a := range attrs {
			out.Attributes[a.name] = b.addAccessor(accessor{
				BufferView: &view, ByteOffset: offs[k], ComponentType: typeFloat, Count: n, Type: vecType(a.n),
			})
		}
	} else {
		for _, a := range attrs {
			data := make([]byte, 0, 4*a.n*n)
			for v := range n {
				data = write(data, a, v)
			}
			view := b.addView(data, 0, targetArrayBuffer)
			out.Attributes[a.name] = b.addAccessor(accessor{
				BufferView: &view, ComponentType: typeFloat, Count: n, Type: vecType(a.n),
			})
		}
	}
	if err := b.skinAttributes(p, &out, ap); err != nil {
		return primitive{}, err
	}
	if err := b.morphTargets(p, &out, pp+".targets"); err != nil {
		return primitive{}, err
	}
	// The specification requires min and max on POSITION.
	lo, hi := bounds(p.Positions)
	pa := &b.doc.Accessors[out.Attributes["POSITION"]]
	pa.Min = []float64{float64(lo[0]), float64(lo[1]), float64(lo[2])}
	pa.Max = []float64{float64(hi[0]), float64(hi[1]), float64(hi[2])}

	if p.Indices != nil {
		width := p.IndexBytes
		if width == 0 {
			width = 4
			switch {
			case n <= 1<<8:
				width = 1
			case n <= 1<<16:
				width = 2
			}
		}
		data := make([]byte, 0, width*len(p.Indices))
		var ct int
		switch width {
		case 1:
			ct = typeUnsignedByte
			for _, i := range p.Indices {
				if i > math.MaxUint8 {
					return primitive{}, builderError(pp+".indices", "index %d does not fit %d byte", i, width)
				}
				data = append(data, byte(i))
			}
		case 2:
			ct = typeUnsignedShort
			for _, i := range p.Indices {
				if i > math.MaxUint16 {
					return primitive{}, builderError(pp+".indices", "index %d does not fit %d bytes", i, width)
				}
				data = binary.LittleEndian.AppendUint16(data, uint16(i))
			}
		case 4:
			ct = typeUnsignedInt
			for _, i := range p.Indices {
				data = binary.LittleEndian.AppendUint32(data, i)
			}
		default:
			return primitive{}, builderError(pp+".indices", "IndexBytes %d is not 0, 1, 2 or 4", width)
		}
		view := b.addView(data, 0, targetElementArrayBuffer)
		idx := b.addAccessor(accessor{BufferView: &view, ComponentType: ct, Count: len(p.Indices), Type: "SCALAR"})
		out.Indices = &idx
	}
	return out, nil
}

func vecType(n int) string { return fmt.Sprintf("VEC%d", n) }

func finite4(v mgl32.Vec4) bool {
	return isFinite(v[0]) && isFinite(v[1]) && isFinite(v[2]) && isFinite(v[3])
}

// AddNode adds a node and returns its index.
func (b *Builder) AddNode(n Node) int {
	i := len(b.doc.Nodes)
	g := node{Name: n.Name}
	if n.Mesh != -1 {
		if n.Mesh < 0 || n.Mesh >= len(b.doc.Meshes) {
			b.failAt(fmt.Sprintf("nodes[%d].mesh", i), "mesh %d does not exist", n.Mesh)
		}
		g.Mesh = &n.Mesh
	}
	if n.Matrix != (mgl32.Mat4{}) {
		g.Matrix = n.Matrix[:]
	} else {
		if n.Translation != (mgl32.Vec3{}) {
			g.Translation = n.Translation[:]
		}
		if r := n.Rotation; r != (mgl32.Quat{}) && r != mgl32.QuatIdent() {
			g.Rotation = []float32{r.V[0], r.V[1], r.V[2], r.W}
		}
		if s := n.Scale; s != (mgl32.Vec3{}) && s != (mgl32.Vec3{1, 1, 1}) {
			g.Scale = s[:]
		}
	}
	if n.Weights != nil {
		if n.Mesh < 0 || n.Mesh >= len(b.doc.Meshes) || len(b.doc.Meshes[n.Mesh].Primitives) == 0 ||
			len(b.doc.Meshes[n.Mesh].Primitives[0].Targets) != len(n.Weights) {
			b.failAt(fmt.Sprintf("nodes[%d].weights", i), "%d weights for its mesh's morph targets", len(n.Weights))
		}
		g.Weights = append([]float32{}, n.Weights...)
	}
	b.doc.Nodes = append(b.doc.Nodes, g)
	for _, c := range n.Children {
		b.AddChild(i, c)
	}
	return i
}

// AddChild makes node child, which must have no parent yet, a child of node
// parent. Both are indices returned by AddNode.
func (b *Builder) AddChild(parent, child int) {
	n := len(b.doc.Nodes)
	if parent < 0 || parent >= n || child < 0 || child >= n {
		b.failAt("nodes", "node %d or %d does not exist", parent, child)
		return
	}
	if _, ok := b.parent[child]; ok {
		b.failAt(fmt.Sprintf("nodes[%d].children", parent), "node %d already has a parent", child)
		return
	}
	// A cycle needs child to be an ancestor of parent (or parent itself).
	for p := parent; p >= 0; p = b.parentOf(p) {
		if p == child {
			b.failAt(fmt.Sprintf("nodes[%d].children", parent), "node %d is an ancestor of node %d", child, parent)
			return
		}
	}
	if b.parent == nil {
		b.parent = make(map[int]int)
	}
	b.parent[child] = parent
	b.doc.Nodes[parent].Children = append(b.doc.Nodes[parent].Children, child)
}

// parentOf returns node i's parent, or -1.
func (b *Builder) parentOf(i int) int {
	if p, ok := b.parent[i]; ok {
		return p
	}
	return -1
}

// json returns the document, with buffer 0 at uri (or no uri, for a GLB).
func (b *Builder) json(uri string) ([]byte, error) {
	if b.err != nil {
		return nil, b.err
	}
	doc := b.doc
	doc.Asset = asset{Version: "2.0", Generator: "tickframe renderer/gltf"}
	doc.Scenes = []scene{{}}
	for i := range doc.Nodes {
		if _, ok := b.parent[i]; !ok {
			doc.Scenes[0].Nodes = append(doc.Scenes[0].Nodes, i)
		}
	}
	zero := 0
	doc.Scene = &zero
	if len(b.bin) > 0 {
		doc.Buffers = []buffer{{URI: uri, ByteLength: len(b.bin)}}
	}
	js, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("gltf: builder: %v", err)
	}
	return js, nil
}

// GLB returns the model as a binary .glb file.
func (b *Builder) GLB() ([]byte, error) {
	js, err := b.json("")
	if err != nil {
		return nil, err
	}
	pad := func(data []byte, with byte) []byte {
		for len(data)%4 != 0 {
			data = append(data, with)
		}
		return data
	}
	js = pad(js, ' ')
	bin := pad(bytes.Clone(b.bin), 0)
	size := glbHeaderLen + 8 + len(js)
	if len(bin) > 0 {
		size += 8 + len(bin)
	}
	if uint64(size) > math.MaxUint32 {
		return nil, fmt.Errorf("gltf: builder: %d bytes do not fit a GLB", size)
	}
	out := make([]byte, 0, size)
	out = binary.LittleEndian.AppendUint32(out, glbMagic)
	out = binary.LittleEndian.AppendUint32(out, glbVersion)
	out = binary.LittleEndian.AppendUint32(out, uint32(size))
	out = binary.LittleEndian.AppendUint32(out, uint32(len(js)))
	out = binary.LittleEndian.AppendUint32(out, chunkJSON)
	out = append(out, js...)
	if len(bin) > 0 {
		out = binary.LittleEndian.AppendUint32(out, uint32(len(bin)))
		out = binary.LittleEndian.AppendUint32(out, chunkBIN)
		out = append(out, bin...)
	}
	return out, nil
}

// GLTF returns the model as a .gltf document and the contents of its
// buffer, to be saved at binURI relative to the document. If binURI is "",
// the buffer is embedded in the document as a base64 data: URI and bin is
// nil.
func (b *Builder) GLTF(binURI string) (doc, bin []byte, err error) {
	if binURI == "" {
		doc, err = b.json("data:application/octet-stream;base64," + base64.StdEncoding.EncodeToString(b.bin))
		return doc, nil, err
	}
	doc, err = b.json(binURI)
	if err != nil {
		return nil, nil, err
	}
	return doc, bytes.Clone(b.bin), nil
}

// AddAnimation adds an animation and returns its index: each channel's
// keyframe times and values (laid out as Channel documents) become two
// float accessors and a sampler of their own. Channel.Node is an index
// returned by AddNode; Start and End are not written (Decode derives
// them from the times).
func (b *Builder) AddAnimation(a Animation) int {
	out := animation{Name: a.Name, Channels: []animChannel{}, Samplers: []animationSampler{}}
	for i, c := range a.Channels {
		n, comps := 3, 3 // floats a keyframe, and an output element's
		switch c.Path {
		case Rotation:
			n, comps = 4, 4
		case Weights:
			n, comps = 1, 1
			if c.Node >= 0 && c.Node < len(b.doc.Nodes) && b.doc.Nodes[c.Node].Mesh != nil {
				if ps := b.doc.Meshes[*b.doc.Nodes[c.Node].Mesh].Primitives; len(ps) > 0 {
					n = max(len(ps[0].Targets), 1)
				}
			}
		}
		keys := len(c.Values) / n
		if c.Interp == InterpCubicSpline {
			keys /= 3
		}
		switch {
		case c.Node < 0 || c.Node >= len(b.doc.Nodes):
			b.failAt(fmt.Sprintf("animations[%d].channels[%d].target.node", len(b.doc.Animations), i), "node %d does not exist", c.Node)
			continue
		case len(c.Times) == 0 || keys != len(c.Times) || len(c.Values)%n != 0:
			b.failAt(fmt.Sprintf("animations[%d].samplers[%d].output", len(b.doc.Animations), len(out.Samplers)), "%d values for %d keyframes", len(c.Values), len(c.Times))
			continue
		case c.Path > Weights || c.Interp > InterpCubicSpline:
			b.failAt(fmt.Sprintf("animations[%d].channels[%d]", len(b.doc.Animations), i), "path %v, interpolation %v", c.Path, c.Interp)
			continue
		}
		floats := func(vs []float32, comps int) int {
			data := make([]byte, 0, 4*len(vs))
			for _, v := range vs {
				data = binary.LittleEndian.AppendUint32(data, math.Float32bits(v))
			}
			view := b.addView(data, 0, 0)
			acc := accessor{BufferView: &view, ComponentType: typeFloat, Count: len(vs) / comps, Type: "SCALAR"}
			if comps > 1 {
				acc.Type = vecType(comps)
			}
			if comps == 1 { // the specification requires min and max on inputs
				acc.Min, acc.Max = []float64{float64(slices.Min(vs))}, []float64{float64(slices.Max(vs))}
			}
			return b.addAccessor(acc)
		}
		smp := animationSampler{Input: floats(c.Times, 1), Output: floats(c.Values, comps), Interpolation: c.Interp.String()}
		out.Samplers = append(out.Samplers, smp)
		ch := animChannel{Sampler: len(out.Samplers) - 1}
		node := c.Node
		ch.Target.Node, ch.Target.Path = &node, c.Path.String()
		out.Channels = append(out.Channels, ch)
	}
	b.doc.Animations = append(b.doc.Animations, out)
	return len(b.doc.Animations) - 1
}

// viewTarget is a bufferView's target as written: absent for 0.
func viewTarget(t int) json.Number {
	if t == 0 {
		return ""
	}
	return json.Number(strconv.Itoa(t))
}
