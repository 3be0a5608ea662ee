package renderer

import (
	"errors"
	"fmt"
	"image"
	"image/draw"
	"io/fs"
	"reflect"
	"unsafe"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/shaders"
)

// Part is a triangle mesh drawn with one material: one part of a mesh
// (see Renderer.AddMesh). A glTF primitive is a part.
type Part struct {
	// Positions are the vertices in the mesh's own frame. The default cube
	// spans [−1, 1]³, so a mesh of that size is drawn as large as the cube
	// at the same Body.Scale.
	Positions []mgl32.Vec3
	// Normals holds one unit normal per position, or is nil for smooth
	// normals computed from the triangles (area-weighted).
	Normals []mgl32.Vec3
	// UVs holds one texture coordinate per position, or is nil for none
	// (all (0, 0)). (0, 0) is the top-left corner of a texture image, as
	// in glTF.
	UVs []mgl32.Vec2
	// Indices holds three positions per triangle, counter-clockwise seen
	// from the front: back faces are culled.
	Indices []uint32
	// Material is what the part is drawn with for a body whose Material is
	// 0: a registered material's id, 0 for the default material.
	Material uint16
}

// Material is how a surface is shaded: glTF's metallic-roughness model.
// The colour a body shows is BaseColor × the texture's colour at the
// fragment × the body's own Color (its tint), all in linear light, lit
// by the built-in lighting or by the material's own shader. Bodies are
// opaque: alpha is ignored.
//
// The zero Material is black, not metallic and perfectly smooth; start
// from DefaultMaterial.
type Material struct {
	// BaseColor is the base colour factor, linear RGBA.
	BaseColor mgl32.Vec4
	// Metallic (0 dielectric, 1 metal) and Roughness (0 mirror, 1 rough)
	// are glTF's factors, in [0, 1].
	Metallic, Roughness float32
	// BaseColorTexture, if not nil, is sampled with the mesh's UVs and
	// multiplies BaseColor. Its colours are sRGB, as glTF's and PNG's
	// are: it is uploaded as GL_SRGB8_ALPHA8 (the GPU decodes it to linear
	// when sampling), with mipmaps, trilinear filtering, anisotropic
	// filtering where the driver has it, and repeat wrapping. The same
	// image given to several materials is uploaded once (when its
	// dynamic type is comparable, as *image.RGBA and the decoders' are).
	BaseColorTexture image.Image
	// Shader, if not "", names the material's own fragment shader, a GLSL
	// 410 file in ShaderFS that defines vec3 shade(Surface s) (see
	// shaders/surface.glsl for Surface and what else it may call). It is
	// compiled with the built-in shaders' loader: an error is a
	// *ShaderError with the driver's log and the file's numbered source.
	Shader   string
	ShaderFS fs.FS
}

// DefaultMaterial returns the default material's values (material 0):
// white, not metallic, half rough.
func DefaultMaterial() Material {
	return Material{BaseColor: mgl32.Vec4{1, 1, 1, 1}, Roughness: 0.5}
}

// The registries' limits: ids are uint16, and 0 is the default.
const maxIDs = 1<<16 - 1

// vertexStride is one registered vertex: position, normal, UV.
const vertexStride = 32

// materialStride is one material's parameters in the material buffer:
// base colour, then metallic, roughness, textured, 0.
const materialStride = 32

// part is a registered mesh part on the GPU.
type part struct {
	vbo, ebo Buffer
	indices  int32
	material uint16
}

// material is a registered material.
type material struct {
	params  [materialStride / 4]float32
	tex     Texture
	program int // index into scene.programs
}

// program is a linked draw program and the locations of its per-frame
// uniforms.
type program struct {
	prog                       Program
	uViewProj, uEye, uLightDir int32
	frame                      uint64 // the frame whose uniforms it holds
}

// scene is the registry of meshes and materials that bodies name.
type scene struct {
	parts       []part
	meshes      [][2]int32 // each mesh's parts: first and count in parts
	materials   []material
	materialBuf Buffer
	programs    []program // 0: the built-in lighting
	textures    []Texture
	textureOf   map[image.Image]Texture
	anisotropy  float32 // the anisotropic filtering used, 1 for none
}

// init registers the defaults: mesh 0, the cube, and material 0.
func (s *scene) init() error {
	s.textureOf = make(map[image.Image]Texture)
	s.anisotropy = maxAnisotropy()
	p, err := s.newProgram(stage{files: shaders.FS, name: "lit.frag", lib: shaders.FS, prelude: shaders.Surface})
	if err != nil {
		return err
	}
	s.programs = append(s.programs, p)
	s.materialBuf = newBuffer()
	if _, err := s.addMaterial(DefaultMaterial()); err != nil {
		return err
	}
	_, err = s.addMesh([]Part{cube()})
	return err
}

// newProgram links body.vert with a material's fragment stage and sets
// its sampler to texture unit 0.
func (s *scene) newProgram(frag stage) (program, error) {
	p, err := loadProgram(stage{files: shaders.FS, name: "body.vert", lib: shaders.FS}, frag)
	if err != nil {
		return program{}, err
	}
	gl.UseProgram(uint32(p))
	gl.Uniform1i(p.uniform("uBaseColorTexture"), 0)
	gl.UseProgram(0)
	return program{prog: p, uViewProj: p.uniform("uViewProj"), uEye: p.uniform("uEye"), uLightDir: p.uniform("uLightDir")}, nil
}

// addMesh registers a mesh of parts and returns its id.
func (s *scene) addMesh(parts []Part) (uint16, error) {
	if len(s.meshes) > maxIDs {
		return 0, fmt.Errorf("renderer: add mesh: all %d mesh ids are taken", maxIDs+1)
	}
	if len(parts) == 0 {
		return 0, errors.New("renderer: add mesh: no parts")
	}
	for i := range parts {
		if err := s.checkPart(&parts[i]); err != nil {
			return 0, fmt.Errorf("renderer: add mesh: part %d: %w", i, err)
		}
	}
	first := int32(len(s.parts))
	for i := range parts {
		p, err := uploadPart(&parts[i])
		if err != nil {
			for _, q := range s.parts[first:] {
				q.vbo.Delete()
				q.ebo.Delete()
			}
			s.parts = s.parts[:first]
			return 0, fmt.Errorf("renderer: add mesh: part %d: %w", i, err)
		}
		s.parts = append(s.parts, p)
	}
	s.meshes = append(s.meshes, [2]int32{first, int32(len(parts))})
	return uint16(len(s.meshes) - 1), nil
}

func (s *scene) checkPart(p *Part) error {
	n := len(p.Positions)
	switch {
	case n == 0:
		return errors.New("no positions")
	case p.Normals != nil && len(p.Normals) != n:
		return fmt.Errorf("%d normals for %d positions", len(p.Normals), n)
	case p.UVs != nil && len(p.UVs) != n:
		return fmt.Errorf("%d UVs for %d positions", len(p.UVs), n)
	case len(p.Indices) == 0 || len(p.Indices)%3 != 0:
		return fmt.Errorf("%d indices: want three per triangle", len(p.Indices))
	case len(p.Indices) > 1<<31-1:
		return fmt.Errorf("%d indices: too many", len(p.Indices))
	case int(p.Material) >= len(s.materials):
		return fmt.Errorf("material %d is not registered", p.Material)
	}
	for i, x := range p.Indices {
		if int(x) >= n {
			return fmt.Errorf("index %d is %d, past %d positions", i, x, n)
		}
	}
	for i, v := range p.Positions {
		if !finite(v[:]...) {
			return fmt.Errorf("position %d is %v", i, v)
		}
	}
	for i, v := range p.Normals {
		if !finite(v[:]...) {
			return fmt.Errorf("normal %d is %v", i, v)
		}
	}
	for i, v := range p.UVs {
		if !finite(v[:]...) {
			return fmt.Errorf("UV %d is %v", i, v)
		}
	}
	return nil
}

// uploadPart interleaves a checked part's vertices and uploads them and
// its indices.
func uploadPart(p *Part) (part, error) {
	normals := p.Normals
	if normals == nil {
		normals = smoothNormals(p.Positions, p.Indices)
	}
	verts := make([]float32, 0, len(p.Positions)*vertexStride/4)
	for i, v := range p.Positions {
		n := normals[i]
		var uv mgl32.Vec2
		if p.UVs != nil {
			uv = p.UVs[i]
		}
		verts = append(verts, v[0], v[1], v[2], n[0], n[1], n[2], uv[0], uv[1])
	}
	q := part{vbo: newBuffer(), ebo: newBuffer(), indices: int32(len(p.Indices)), material: p.Material}
	gl.BindBuffer(gl.ARRAY_BUFFER, uint32(q.vbo))
	gl.BufferData(gl.ARRAY_BUFFER, len(verts)*4, unsafe.Pointer(&verts[0]), gl.STATIC_DRAW)
	gl.BindBuffer(gl.ARRAY_BUFFER, 0)
	// The element buffer is bound through a vertex array (it is part of
	// one's state); no vertex array is bound here.
	gl.BindBuffer(gl.COPY_WRITE_BUFFER, uint32(q.ebo))
	gl.BufferData(gl.COPY_WRITE_BUFFER, len(p.Indices)*4, unsafe.Pointer(&p.Indices[0]), gl.STATIC_DRAW)
	gl.BindBuffer(gl.COPY_WRITE_BUFFER, 0)
	if err := checkGL("upload mesh"); err != nil {
		q.vbo.Delete()
		q.ebo.Delete()
		return part{}, err
	}
	return q, nil
}

// smoothNormals returns area-weighted vertex normals: each triangle adds
// its unnormalised cross product to its three vertices. A vertex of
// triangles without area gets a zero normal, which the shader treats as
// facing the viewer.
func smoothNormals(pos []mgl32.Vec3, idx []uint32) []mgl32.Vec3 {
	n := make([]mgl32.Vec3, len(pos))
	for i := 0; i+2 < len(idx); i += 3 {
		a, b, c := pos[idx[i]], pos[idx[i+1]], pos[idx[i+2]]
		f := b.Sub(a).Cross(c.Sub(a))
		for _, k := range idx[i : i+3] {
			n[k] = n[k].Add(f)
		}
	}
	for i, v := range n {
		if l := v.Len(); l > 0 && finite(l) {
			n[i] = v.Mul(1 / l)
		} else {
			n[i] = mgl32.Vec3{}
		}
	}
	return n
}

// addMaterial registers a material and returns its id.
func (s *scene) addMaterial(m Material) (uint16, error) {
	if len(s.materials) > maxIDs {
		return 0, fmt.Errorf("renderer: add material: all %d material ids are taken", maxIDs+1)
	}
	c := m.BaseColor
	switch {
	case !finite(c[:]...) || c[0] < 0 || c[1] < 0 || c[2] < 0 || c[3] < 0:
		return 0, fmt.Errorf("renderer: add material: base colour %v: want finite, not negative", c)
	case !(m.Metallic >= 0 && m.Metallic <= 1):
		return 0, fmt.Errorf("renderer: add material: metallic %v out of range [0, 1]", m.Metallic)
	case !(m.Roughness >= 0 && m.Roughness <= 1):
		return 0, fmt.Errorf("renderer: add material: roughness %v out of range [0, 1]", m.Roughness)
	case m.Shader != "" && m.ShaderFS == nil:
		return 0, fmt.Errorf("renderer: add material: shader %s without a ShaderFS to read it from", m.Shader)
	}
	mat := material{params: [8]float32{c[0], c[1], c[2], c[3], m.Metallic, m.Roughness}}
	if m.Shader != "" {
		p, err := s.newProgram(stage{files: m.ShaderFS, name: m.Shader, lib: shaders.FS, prelude: shaders.Surface, own: true})
		if err != nil {
			return 0, err
		}
		s.programs = append(s.programs, p)
		mat.program = len(s.programs) - 1
	}
	if m.BaseColorTexture != nil {
		tex, err := s.texture(m.BaseColorTexture)
		if err != nil {
			if mat.program != 0 {
				s.programs[mat.program].prog.Delete()
				s.programs = s.programs[:mat.program]
			}
			return 0, err
		}
		mat.tex = tex
		mat.params[6] = 1
	}
	s.materials = append(s.materials, mat)
	if err := s.uploadMaterials(); err != nil {
		s.materials = s.materials[:len(s.materials)-1]
		return 0, err
	}
	return uint16(len(s.materials) - 1), nil
}

// uploadMaterials writes every material's parameters into a new material
// buffer. The draw items' vertex arrays point into it, so they are set up
// again (the caller bumps gen).
func (s *scene) uploadMaterials() error {
	data := make([]float32, 0, len(s.materials)*materialStride/4)
	for i := range s.materials {
		data = append(data, s.materials[i].params[:]...)
	}
	buf := newBuffer()
	gl.BindBuffer(gl.ARRAY_BUFFER, uint32(buf))
	gl.BufferData(gl.ARRAY_BUFFER, len(data)*4, unsafe.Pointer(&data[0]), gl.STATIC_DRAW)
	gl.BindBuffer(gl.ARRAY_BUFFER, 0)
	if err := checkGL("upload materials"); err != nil {
		buf.Delete()
		return err
	}
	s.materialBuf.Delete()
	s.materialBuf = buf
	return nil
}

// EXT_texture_filter_anisotropic, core only in OpenGL 4.6.
const (
	textureMaxAnisotropy    = 0x84FE
	maxTextureMaxAnisotropy = 0x84FF
	// wantAnisotropy: 8× is where the sharpening of oblique textures
	// (the ground) stops being visible at ordinary angles.
	wantAnisotropy = 8
)

// maxAnisotropy returns the anisotropic filtering degree textures get: 8,
// or the driver's maximum if lower, or 1 without the extension or on a
// software rasterizer: llvmpipe's anisotropic sampling of a large tiled
// ground seen at a grazing angle took from 70 ms to over a minute for one
// frame, against 45 ms without.
func maxAnisotropy() float32 {
	if softwareRenderer() {
		return 1
	}
	has := false
	var n int32
	gl.GetIntegerv(gl.NUM_EXTENSIONS, &n)
	for i := range n {
		switch gl.GoStr(gl.GetStringi(gl.EXTENSIONS, uint32(i))) {
		case "GL_EXT_texture_filter_anisotropic", "GL_ARB_texture_filter_anisotropic":
			has = true
		}
	}
	if !has {
		return 1
	}
	var most float32
	gl.GetFloatv(maxTextureMaxAnisotropy, &most)
	gl.GetError() // a driver that lists the extension but refuses the query
	return max(1, min(wantAnisotropy, most))
}

// texture returns the texture of img, uploading it the first time.
func (s *scene) texture(img image.Image) (Texture, error) {
	comparable := reflect.TypeOf(img).Comparable()
	if comparable {
		if t, ok := s.textureOf[img]; ok {
			return t, nil
		}
	}
	t, err := uploadTexture(img, s.anisotropy)
	if err != nil {
		return 0, err
	}
	s.textures = append(s.textures, t)
	if comparable {
		s.textureOf[img] = t
	}
	return t, nil
}

// uploadTexture uploads an sRGB image, top row first, as an sRGB texture
// with mipmaps and trilinear, anisotropic filtering.
func uploadTexture(img image.Image, anisotropy float32) (Texture, error) {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	var limit int32
	gl.GetIntegerv(gl.MAX_TEXTURE_SIZE, &limit)
	if w <= 0 || h <= 0 || w > int(limit) || h > int(limit) {
		return 0, fmt.Errorf("renderer: texture of %dx%d pixels: want 1 to %d on a side", w, h, limit)
	}
	// Straight (not premultiplied) alpha, rows packed: NRGBA. GL's first
	// row is at t = 0, the image's top row: glTF's (0, 0) is the top left.
	pix, ok := img.(*image.NRGBA)
	if !ok || pix.Stride != 4*w || pix.Rect.Min != (image.Point{}) {
		pix = image.NewNRGBA(image.Rect(0, 0, w, h))
		draw.Draw(pix, pix.Rect, img, b.Min, draw.Src)
	}
	var n uint32
	gl.GenTextures(1, &n)
	t := Texture(n)
	gl.BindTexture(gl.TEXTURE_2D, n)
	gl.PixelStorei(gl.UNPACK_ALIGNMENT, 1)
	gl.TexImage2D(gl.TEXTURE_2D, 0, gl.SRGB8_ALPHA8, int32(w), int32(h), 0, gl.RGBA, gl.UNSIGNED_BYTE, unsafe.Pointer(&pix.Pix[0]))
	gl.PixelStorei(gl.UNPACK_ALIGNMENT, 4)
	gl.GenerateMipmap(gl.TEXTURE_2D)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.LINEAR_MIPMAP_LINEAR)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.LINEAR)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.REPEAT)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.REPEAT)
	if anisotropy > 1 {
		gl.TexParameterf(gl.TEXTURE_2D, textureMaxAnisotropy, anisotropy)
	}
	gl.BindTexture(gl.TEXTURE_2D, 0)
	if err := checkGL(fmt.Sprintf("upload %dx%d texture", w, h)); err != nil {
		t.Delete()
		return 0, err
	}
	return t, nil
}

func (s *scene) delete() {
	for i := range s.parts {
		s.parts[i].vbo.Delete()
		s.parts[i].ebo.Delete()
	}
	for i := range s.programs {
		s.programs[i].prog.Delete()
	}
	for i := range s.textures {
		s.textures[i].Delete()
	}
	s.materialBuf.Delete()
	s.parts, s.meshes, s.materials, s.programs, s.textures = nil, nil, nil, nil, nil
}

// AddMesh registers a mesh made of parts and returns its id, for
// simthread.Body.Mesh. Each part is drawn with one instanced call per
// group of bodies (see Frame), with the material it names unless the
// body names another. Ids are given in order from 1 (0 is the default
// cube), so an app that registers its meshes in a fixed order knows their
// ids before the renderer exists, as a world created first must.
//
// Call it on the render thread, after New and before the first Frame (at
// start-up): a snapshot uploaded before then keeps drawing ids it did not
// know as the default until it leaves the history.
func (r *Renderer) AddMesh(parts ...Part) (uint16, error) {
	return r.bodies.addMesh(parts)
}

// AddMaterial registers a material and returns its id, for
// simthread.Body.Material and Part.Material, in order from 1 (0 is the
// default material). It uploads the material's texture and compiles its
// shader, if any, and returns their errors (a *ShaderError for the
// shader). Call it as AddMesh.
func (r *Renderer) AddMaterial(m Material) (uint16, error) {
	id, err := r.bodies.addMaterial(m)
	if err == nil {
		r.bodies.gen++ // the draw items' vertex arrays name the old material buffer
	}
	return id, err
}

// Meshes reports how many meshes are registered, the default cube
// included: ids below it are known.
func (r *Renderer) Meshes() int { return len(r.bodies.meshes) }

// Materials reports how many materials are registered, the default
// included: ids below it are known.
func (r *Renderer) Materials() int { return len(r.bodies.materials) }
