package gltf

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"math"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-gl/mathgl/mgl32"
)

// Limits on what a file may make Decode allocate beyond its own size.
const (
	// maxAliasing is how many times over the accessors and images may read
	// the buffers' bytes. A sane file reads each byte once; a hostile one
	// could point thousands of accessors at one large bufferView.
	maxAliasing = 4

	// maxVertices caps the vertices of all placed meshes together: a few
	// nodes can instance a large mesh many times, and Bounds (and Bake)
	// transform every instance's vertices. 16 Mi is far more than a
	// real-time model has.
	maxVertices = 1 << 24

	// maxMeshes caps the meshes of a model, for the same reason: a few
	// nodes can place a mesh of many small primitives many times. A
	// renderer draws each with a call of its own; 64 Ki is plenty.
	maxMeshes = 1 << 16
)

// GLB container constants, from the glTF 2.0 specification.
const (
	glbMagic     = 0x46546C67 // "glTF"
	glbVersion   = 2
	glbHeaderLen = 12
	chunkJSON    = 0x4E4F534A // "JSON"
	chunkBIN     = 0x004E4942 // "BIN\x00"
)

// Decode decodes a .glb file (recognised by its magic number) or a .gltf
// file held in data. The name is used in errors only. Decode calls open,
// which may be nil, to read each buffer or image that the file refers to by
// a relative URI; it passes the URI percent-decoded, a slash-separated path
// relative to the file, and uses at most a buffer's byteLength of what
// open returns (bounding the read itself is open's business: Load's
// reads regular files only, and no further). Decode does not retain data
// or open.
//
// Errors are *Error values; those for valid files that use features outside
// the subset (see the package comment) satisfy errors.Is(err,
// errors.ErrUnsupported).
func Decode(data []byte, name string, open func(uri string) ([]byte, error)) (*Model, error) {
	d := &decoder{name: name}
	if open != nil {
		d.open = func(uri string, _ int, _ bool) ([]byte, error) { return open(uri) }
	}
	return d.decode(data)
}

// decoder holds the state of one Decode call.
type decoder struct {
	name string
	// open reads the file a relative URI names (see Load): at most limit
	// bytes of it when cut, else all of it, refusing with errTooLarge a
	// file longer than limit.
	open func(uri string, limit int, cut bool) ([]byte, error)
	doc  document
	bin  []byte // the GLB BIN chunk
	glb  bool

	buffers   [][]byte // loaded buffers, nil until first use
	loaded    int      // bytes of loaded buffers
	read      int      // bytes read through accessors and images
	vertices  int      // vertices of placed meshes
	pixels    int      // pixels of decoded images
	images    []image.Image
	imageDone []bool
	meshes    [][]prim // decoded meshes, nil until first use

	// Decoded accessors, so that primitives sharing one share its slice.
	vec3Cache  map[int][]mgl32.Vec3
	nrmCache   map[int][]mgl32.Vec3 // normals, renormalized
	vec2Cache  map[int][]mgl32.Vec2
	vec4Cache  map[int][]mgl32.Vec4 // colours
	tanCache   map[int][]mgl32.Vec4
	indexCache map[int]indexData
}

// errorf returns an *Error at the JSON path.
func (d *decoder) errorf(path, format string, args ...any) error {
	return &Error{File: d.name, Path: path, Err: fmt.Errorf(format, args...)}
}

// refuse returns an *Error at the JSON path that matches
// errors.ErrUnsupported.
func (d *decoder) refuse(path, format string, args ...any) error {
	return &Error{File: d.name, Path: path, Err: unsupportedf(format, args...)}
}

// limit returns an *Error at the JSON path that matches ErrLimit.
func (d *decoder) limit(path, format string, args ...any) error {
	return &Error{File: d.name, Path: path, Err: overLimit(fmt.Sprintf(format, args...))}
}

func (d *decoder) decode(data []byte) (*Model, error) {
	js := data
	if len(data) >= 4 && binary.LittleEndian.Uint32(data) == glbMagic {
		var err error
		if js, err = d.parseGLB(data); err != nil {
			return nil, err
		}
	}
	// JSON text is UTF-8 (RFC 8259); encoding/json would quietly replace
	// what is not.
	if !utf8.Valid(js) {
		off := 0
		for r, size := utf8.DecodeRune(js); r != utf8.RuneError || size != 1; r, size = utf8.DecodeRune(js[off:]) {
			off += size
		}
		return nil, d.errorf("", "bad JSON at byte %d: not UTF-8", off)
	}
	if err := json.Unmarshal(js, &d.doc); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn):
			return nil, d.errorf("", "bad JSON at byte %d: %v", syn.Offset, err)
		case errors.As(err, &typ):
			path := typeErrorPath(js)
			if path == "" {
				path = typ.Field
			}
			return nil, d.errorf(path, "bad JSON value: %s where %s belongs", typ.Value, typeWant(typ.Type))
		}
		return nil, d.errorf("", "bad JSON: %v", err)
	}
	if err := d.checkSupported(); err != nil {
		return nil, err
	}
	if err := d.checkReferences(); err != nil {
		return nil, err
	}
	doc := &d.doc
	d.buffers = make([][]byte, len(doc.Buffers))
	d.images = make([]image.Image, len(doc.Images))
	d.imageDone = make([]bool, len(doc.Images))
	d.meshes = make([][]prim, len(doc.Meshes))
	d.vec3Cache = make(map[int][]mgl32.Vec3)
	d.nrmCache = make(map[int][]mgl32.Vec3)
	d.vec2Cache = make(map[int][]mgl32.Vec2)
	d.vec4Cache = make(map[int][]mgl32.Vec4)
	d.tanCache = make(map[int][]mgl32.Vec4)
	d.indexCache = make(map[int]indexData)

	m := &Model{Materials: make([]Material, len(doc.Materials))}
	for i := range doc.Materials {
		var err error
		if m.Materials[i], err = d.material(i); err != nil {
			return nil, err
		}
	}
	for _, img := range d.images {
		if img != nil {
			m.Images = append(m.Images, img)
		}
	}
	if err := d.scene(m); err != nil {
		return nil, err
	}
	var reach []float64 // each mesh's farthest vertex from its origin
	for i := range doc.Animations {
		a, err := d.animation(i, m)
		if err != nil {
			return nil, err
		}
		if reach == nil {
			reach = meshReach(m)
		}
		if err := d.checkReach(m, &a, fmt.Sprintf("animations[%d]", i), reach); err != nil {
			return nil, err
		}
		m.Animations = append(m.Animations, a)
	}
	m.Ignored = d.ignored()
	return m, nil
}

// parseGLB checks the GLB container and returns its JSON chunk, keeping the
// BIN chunk in d.bin.
func (d *decoder) parseGLB(data []byte) ([]byte, error) {
	d.glb = true
	if len(data) < glbHeaderLen {
		return nil, d.errorf("", "truncated GLB header: %d bytes", len(data))
	}
	if v := binary.LittleEndian.Uint32(data[4:]); v != glbVersion {
		return nil, d.refuse("", "GLB version %d is not supported", v)
	}
	if n := binary.LittleEndian.Uint32(data[8:]); uint64(n) != uint64(len(data)) {
		return nil, d.errorf("", "GLB header says %d bytes, file has %d", n, len(data))
	}
	var js []byte
	off := glbHeaderLen
	for i := 0; off < len(data); i++ {
		if len(data)-off < 8 {
			return nil, d.errorf("", "truncated GLB chunk %d header at byte %d", i, off)
		}
		n := binary.LittleEndian.Uint32(data[off:])
		typ := binary.LittleEndian.Uint32(data[off+4:])
		off += 8
		if uint64(n) > uint64(len(data)-off) {
			return nil, d.errorf("", "GLB chunk %d at byte %d claims %d bytes, %d remain", i, off-8, n, len(data)-off)
		}
		chunk := data[off : off+int(n)]
		off += int(n)
		switch {
		case i == 0 && typ != chunkJSON:
			return nil, d.errorf("", "GLB chunk 0 is not JSON (type %#x)", typ)
		case i == 0:
			js = chunk
		case i == 1 && typ == chunkBIN:
			d.bin = chunk
		}
		// Other chunks are extensions' business; the specification says
		// to ignore those one does not know.
	}
	if js == nil {
		return nil, d.errorf("", "GLB has no JSON chunk")
	}
	return js, nil
}

// checkSupported refuses the features outside the subset, wherever in the
// file they are.
func (d *decoder) checkSupported() error {
	doc := &d.doc
	v := doc.Asset.Version
	if v == "" {
		return d.errorf("asset.version", "missing")
	}
	if major, _, ok := strings.Cut(v, "."); !ok || major != "2" {
		return d.refuse("asset.version", "version %s is not supported (want 2.x)", quote(v))
	}
	if mv := doc.Asset.MinVersion; mv != "" && mv != "2.0" {
		return d.refuse("asset.minVersion", "minimum version %s is not supported (want 2.0)", quote(mv))
	}
	for i, e := range doc.ExtensionsRequired {
		if !supportedExtensions[e] {
			return d.refuse(fmt.Sprintf("extensionsRequired[%d]", i), "required extension %s is not supported", quote(e))
		}
	}
	for i := range doc.Accessors {
		if len(doc.Accessors[i].Sparse) > 0 {
			return d.refuse(fmt.Sprintf("accessors[%d].sparse", i), "sparse accessors are not supported")
		}
	}
	return nil
}

// buffer returns buffer i, loading it on first use.
func (d *decoder) buffer(i int, path string) ([]byte, error) {
	if i < 0 || i >= len(d.doc.Buffers) {
		return nil, d.errorf(path, "buffer %d does not exist (%d buffers)", i, len(d.doc.Buffers))
	}
	if d.buffers[i] != nil {
		return d.buffers[i], nil
	}
	bp := fmt.Sprintf("buffers[%d]", i)
	b := &d.doc.Buffers[i]
	if b.ByteLength < 1 {
		return nil, d.errorf(bp, "byteLength %d is not positive", b.ByteLength)
	}
	var data []byte
	if b.URI == "" {
		if !d.glb || i != 0 || d.bin == nil {
			return nil, d.errorf(bp, "no uri, and it is not the first buffer of a GLB with a BIN chunk")
		}
		data = d.bin
	} else {
		var err error
		if data, err = d.readURI(b.URI, bp+".uri", b.ByteLength, true); err != nil {
			return nil, err
		}
	}
	if len(data) < b.ByteLength {
		return nil, d.errorf(bp, "byteLength is %d, data has %d bytes", b.ByteLength, len(data))
	}
	data = data[:b.ByteLength:b.ByteLength]
	d.buffers[i] = data
	d.loaded += len(data)
	return data, nil
}

// readURI returns the bytes a buffer or image URI refers to: of a separate
// file, at most limit bytes when cut, else all of it, refusing one longer
// than limit.
func (d *decoder) readURI(uri, path string, limit int, cut bool) ([]byte, error) {
	// URI schemes are case-insensitive (RFC 3986), and so is the base64
	// token of a data URI's media type.
	if len(uri) >= 5 && strings.EqualFold(uri[:5], "data:") {
		meta, payload, ok := strings.Cut(uri[5:], ",")
		if !ok || len(meta) < 7 || !strings.EqualFold(meta[len(meta)-7:], ";base64") {
			return nil, d.refuse(path, "data URI is not base64")
		}
		enc := base64.StdEncoding
		if len(payload)%4 != 0 {
			enc = base64.RawStdEncoding // some writers leave the padding out
		}
		data, err := enc.DecodeString(payload)
		if err != nil {
			return nil, d.errorf(path, "data URI: %v", err)
		}
		return data, nil
	}
	if i := strings.IndexAny(uri, ":/?#"); i > 0 && uri[i] == ':' {
		return nil, d.refuse(path, "URI %s: only data: URIs and relative paths are supported", quote(uri))
	}
	p, err := url.PathUnescape(uri)
	if err != nil {
		return nil, d.errorf(path, "URI %s: %v", quote(uri), err)
	}
	if d.open == nil {
		return nil, d.errorf(path, "URI %s refers to a separate file, and there is no way to open it", quote(uri))
	}
	data, err := d.open(p, limit, cut)
	switch {
	case errors.Is(err, errTooLarge):
		return nil, d.limit(path, "URI %s: the file is larger than %d bytes", quote(uri), limit)
	case err != nil:
		return nil, d.errorf(path, "URI %s: %v", quote(uri), pathCause(err))
	case !cut && len(data) > limit:
		return nil, d.limit(path, "URI %s: the file is larger than %d bytes", quote(uri), limit)
	}
	return data, nil
}

// view returns the bytes of bufferView i and its byteStride (0 if none).
func (d *decoder) view(i int, path string) ([]byte, int, error) {
	if i < 0 || i >= len(d.doc.BufferViews) {
		return nil, 0, d.errorf(path, "bufferView %d does not exist (%d bufferViews)", i, len(d.doc.BufferViews))
	}
	vp := fmt.Sprintf("bufferViews[%d]", i)
	v := &d.doc.BufferViews[i]
	buf, err := d.buffer(v.Buffer, vp+".buffer")
	if err != nil {
		return nil, 0, err
	}
	if v.ByteOffset < 0 || v.ByteLength < 1 || v.ByteOffset > len(buf) || v.ByteLength > len(buf)-v.ByteOffset {
		return nil, 0, d.errorf(vp, "byteOffset %d and byteLength %d do not fit buffer %d's %d bytes",
			v.ByteOffset, v.ByteLength, v.Buffer, len(buf))
	}
	// 4 to 252, a multiple of 4: the specification's range.
	if v.ByteStride != 0 && (v.ByteStride < 4 || v.ByteStride > 252 || v.ByteStride%4 != 0) {
		return nil, 0, d.errorf(vp+".byteStride", "byteStride %d is not a multiple of 4 in [4, 252]", v.ByteStride)
	}
	return buf[v.ByteOffset : v.ByteOffset+v.ByteLength], v.ByteStride, nil
}

// charge counts n more bytes read from the buffers against maxAliasing.
func (d *decoder) charge(n int, path string) error {
	d.read += n
	if d.read > maxAliasing*d.loaded {
		return d.limit(path, "accessors and images read %d bytes from %d bytes of buffers: more than %d times over",
			d.read, d.loaded, maxAliasing)
	}
	return nil
}

// elements is an accessor's data, checked to lie within its bufferView.
type elements struct {
	data   []byte // from the first element
	stride int
	count  int
	comp   int // component type
	n      int // components per element
	norm   bool
}

// at returns the bytes of element i.
func (e elements) at(i int) []byte { return e.data[i*e.stride:] }

// accessor returns accessor i's elements. path names the reference to it,
// for errors about the reference.
func (d *decoder) accessor(i int, path string) (elements, error) {
	if i < 0 || i >= len(d.doc.Accessors) {
		return elements{}, d.errorf(path, "accessor %d does not exist (%d accessors)", i, len(d.doc.Accessors))
	}
	ap := fmt.Sprintf("accessors[%d]", i)
	a := &d.doc.Accessors[i]
	if a.BufferView == nil {
		return elements{}, d.refuse(ap, "accessors without a bufferView are not supported")
	}
	csize, n := componentSize(a.ComponentType), componentCount(a.Type)
	if csize == 0 {
		return elements{}, d.refuse(ap+".componentType", "component type %d is not one glTF 2.0 lists", a.ComponentType)
	}
	if n == 0 {
		return elements{}, d.refuse(ap+".type", "type %s is not one glTF 2.0 lists", quote(a.Type))
	}
	if a.Count < 1 {
		return elements{}, d.errorf(ap+".count", "count %d is not positive", a.Count)
	}
	view, stride, err := d.view(*a.BufferView, ap+".bufferView")
	if err != nil {
		return elements{}, err
	}
	size := csize * n
	if stride == 0 {
		stride = size
	}
	if stride < size {
		return elements{}, d.errorf(ap, "elements of %d bytes do not fit bufferView %d's byteStride %d", size, *a.BufferView, stride)
	}
	// Written so that nothing overflows: every term is checked against the
	// view's length before it is multiplied.
	if a.ByteOffset < 0 || a.ByteOffset > len(view) || size > len(view)-a.ByteOffset ||
		a.Count-1 > (len(view)-a.ByteOffset-size)/stride {
		return elements{}, d.errorf(ap, "byteOffset %d and %d elements of %d bytes at stride %d do not fit bufferView %d's %d bytes",
			a.ByteOffset, a.Count, size, stride, *a.BufferView, len(view))
	}
	if err := d.charge(a.Count*size, ap); err != nil {
		return elements{}, err
	}
	return elements{
		data:   view[a.ByteOffset:],
		stride: stride,
		count:  a.Count,
		comp:   a.ComponentType,
		n:      n,
		norm:   a.Normalized,
	}, nil
}

// typeName returns a readable name of an accessor's element type, for
// errors.
func typeName(e elements) string {
	names := map[int]string{
		typeByte: "byte", typeUnsignedByte: "unsigned byte", typeShort: "short",
		typeUnsignedShort: "unsigned short", typeUnsignedInt: "unsigned int", typeFloat: "float",
	}
	s := names[e.comp]
	if e.norm {
		s = "normalized " + s
	}
	if e.n == 1 {
		return s + " SCALAR"
	}
	return s + " VEC" + strconv.Itoa(e.n)
}

// imageData returns the encoded bytes of image i.
func (d *decoder) imageData(i int, ip string) ([]byte, error) {
	im := &d.doc.Images[i]
	switch {
	case im.URI != "" && im.BufferView != nil:
		return nil, d.errorf(ip, "has both uri and bufferView")
	case im.URI != "":
		data, err := d.readURI(im.URI, ip+".uri", maxImageFile, false)
		if err != nil {
			return nil, err
		}
		// A separate file or data URI adds bytes of its own.
		d.loaded += len(data)
		return data, d.charge(len(data), ip)
	case im.BufferView != nil:
		data, _, err := d.view(*im.BufferView, ip+".bufferView")
		if err != nil {
			return nil, err
		}
		return data, d.charge(len(data), ip)
	}
	return nil, d.errorf(ip, "has neither uri nor bufferView")
}

var (
	pngMagic  = []byte("\x89PNG\r\n\x1a\n")
	jpegMagic = []byte("\xff\xd8\xff")
)

// isPNG and isJPEG recognise image data by content, not by mimeType, which
// writers get wrong.
func isPNG(b []byte) bool  { return bytes.HasPrefix(b, pngMagic) }
func isJPEG(b []byte) bool { return bytes.HasPrefix(b, jpegMagic) }

// meshReach returns, per mesh of m, the distance of its farthest vertex
// from its own origin.
func meshReach(m *Model) []float64 {
	out := make([]float64, len(m.Meshes))
	for k := range m.Meshes {
		var r float64
		for _, p := range m.Meshes[k].Positions {
			r = max(r, sq(p[0])+sq(p[1])+sq(p[2]))
		}
		out[k] = math.Sqrt(r) + morphReach(m.Meshes[k].Targets)
	}
	return out
}
