package renderer

import (
	"bytes"
	"fmt"
	"io/fs"
	"unsafe"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/renderer/gltf"
	"github.com/tickframe/tickframe/shaders"
)

// materialBlockSize is the Material uniform block of surface.glsl in
// std140: five vec4s and ten for the UV transforms.
const materialBlockSize = 15 * 16

// material is a registered material.
type material struct {
	block    [materialBlockSize / 4]float32 // the uniform block's bytes (ints stored as their bits)
	tex      [gltf.Slots]glTexture          // 0: none
	sampler  [gltf.Slots]uint32             // GL sampler objects
	program  int                            // index into scene.programs
	blend    bool
	twoSided bool
}

// Offsets in material.block, in floats.
const (
	blockBaseColor = 0
	blockEmissive  = 4
	blockPBR       = 8
	blockAlpha     = 12
	blockTex       = 16
	blockUV        = 20
)

// checkMaterial returns what is wrong with m, nil if nothing.
func checkMaterial(m *gltf.Material) error {
	c := m.BaseColor
	e := m.Emissive
	switch {
	case !finite(c[:]...) || c[0] < 0 || c[1] < 0 || c[2] < 0 || c[3] < 0:
		return fmt.Errorf("base colour %v: want finite, not negative", c)
	case !(m.Metallic >= 0 && m.Metallic <= 1):
		return fmt.Errorf("metallic %v out of range [0, 1]", m.Metallic)
	case !(m.Roughness >= 0 && m.Roughness <= 1):
		return fmt.Errorf("roughness %v out of range [0, 1]", m.Roughness)
	case !finite(e[:]...) || e[0] < 0 || e[1] < 0 || e[2] < 0:
		return fmt.Errorf("emissive %v: want finite, not negative", e)
	case !finite(m.NormalScale):
		return fmt.Errorf("normal scale %v: want finite", m.NormalScale)
	case !(m.OcclusionStrength >= 0 && m.OcclusionStrength <= 1):
		return fmt.Errorf("occlusion strength %v out of range [0, 1]", m.OcclusionStrength)
	case m.AlphaMode > gltf.Blend:
		return fmt.Errorf("unknown alpha mode %v", m.AlphaMode)
	case !(m.AlphaCutoff >= 0) || !finite(m.AlphaCutoff):
		return fmt.Errorf("alpha cutoff %v: want finite, not negative", m.AlphaCutoff)
	case m.Shader != "" && m.ShaderFS == nil:
		return fmt.Errorf("shader %s without a ShaderFS to read it from", m.Shader)
	}
	for s := range gltf.Slots {
		info := &m.Sampling[s]
		if info.TexCoord != 0 && info.TexCoord != 1 {
			return fmt.Errorf("%v: UV set %d: want 0 or 1", s, info.TexCoord)
		}
		if t := info.Transform; t != nil && !finite(t.Offset[0], t.Offset[1], t.Rotation, t.Scale[0], t.Scale[1]) {
			return fmt.Errorf("%v: UV transform %+v is not finite", s, *t)
		}
		if _, err := samplerParams(info.Sampler); err != nil {
			return fmt.Errorf("%v: %w", s, err)
		}
	}
	return nil
}

// addMaterial registers a material and returns its id.
func (s *scene) addMaterial(m gltf.Material) (uint16, error) {
	if len(s.materials) > maxIDs {
		return 0, fmt.Errorf("renderer: add material: all %d material ids are taken", maxIDs+1)
	}
	if err := checkMaterial(&m); err != nil {
		return 0, fmt.Errorf("renderer: add material: %w", err)
	}
	mat := material{blend: m.AlphaMode == gltf.Blend, twoSided: m.DoubleSided}
	b := &mat.block
	copy(b[blockBaseColor:], m.BaseColor[:])
	copy(b[blockEmissive:], m.Emissive[:])
	b[blockPBR], b[blockPBR+1], b[blockPBR+2], b[blockPBR+3] = m.Metallic, m.Roughness, m.NormalScale, m.OcclusionStrength
	b[blockAlpha], b[blockAlpha+1] = float32(m.AlphaMode), m.AlphaCutoff
	if m.DoubleSided {
		b[blockAlpha+2] = 1
	}
	var present, set1 uint32
	for slot := range gltf.Slots {
		info := &m.Sampling[slot]
		uv := mgl32.Ident3()
		if info.Transform != nil {
			uv = info.Transform.Matrix()
		}
		// Two rows, (a, b, tx) and (c, d, ty), of the column-major matrix.
		row := b[blockUV+8*int(slot):]
		row[0], row[1], row[2] = uv[0], uv[3], uv[6]
		row[4], row[5], row[6] = uv[1], uv[4], uv[7]
		if info.TexCoord == 1 {
			set1 |= 1 << slot
		}
	}
	features := materialFeatures(&m)
	ownProgram := false // a program compiled for this material alone
	created := len(s.textures)
	undo := func() {
		for _, t := range s.textures[created:] {
			t.Delete()
			for k, v := range s.textureOf {
				if v == t {
					delete(s.textureOf, k)
				}
			}
		}
		s.textures = s.textures[:created]
		if ownProgram {
			s.programs[mat.program].prog.Delete()
			s.programs = s.programs[:mat.program]
		}
	}
	switch prog, ok := s.builtin[features]; {
	case m.Shader != "":
		p, err := s.newProgram(stage{files: m.ShaderFS, name: m.Shader, lib: featureFS{shaders.FS, features}, prelude: shaders.Surface, own: true})
		if err != nil {
			return 0, err
		}
		s.programs = append(s.programs, p)
		mat.program, ownProgram = len(s.programs)-1, true
	case ok:
		mat.program = prog
	default:
		// The built-in lighting compiled for these features, kept for
		// every material that has them.
		p, err := s.newProgram(builtinStage(features))
		if err != nil {
			return 0, err
		}
		s.programs = append(s.programs, p)
		mat.program = len(s.programs) - 1
		s.builtin[features] = mat.program
	}
	for slot := range gltf.Slots {
		img := m.Texture(slot)
		if img == nil {
			continue
		}
		tex, err := s.texture(img, slot.SRGB())
		if err != nil {
			undo()
			return 0, fmt.Errorf("renderer: add material: %v: %w", slot, err)
		}
		smp, err := s.sampler(m.Sampling[slot].Sampler)
		if err != nil {
			undo()
			return 0, fmt.Errorf("renderer: add material: %v: %w", slot, err)
		}
		mat.tex[slot], mat.sampler[slot] = tex, smp
		present |= 1 << slot
	}
	b[blockTex] = *(*float32)(unsafe.Pointer(&present))
	b[blockTex+1] = *(*float32)(unsafe.Pointer(&set1))
	s.materials = append(s.materials, mat)
	if err := s.uploadMaterials(); err != nil {
		s.materials = s.materials[:len(s.materials)-1]
		undo()
		return 0, err
	}
	return uint16(len(s.materials) - 1), nil
}

// materialFeatures returns surface.glsl's TF_FEATURES for m: a bit per
// texture slot used, 32 for MASK, 64 for double sided.
func materialFeatures(m *gltf.Material) uint32 {
	var f uint32
	for slot := range gltf.Slots {
		if m.Texture(slot) != nil {
			f |= 1 << slot
		}
	}
	if m.AlphaMode == gltf.Mask {
		f |= 32
	}
	if m.DoubleSided {
		f |= 64
	}
	return f
}

// builtinStage is the built-in lighting's fragment stage compiled for
// features.
func builtinStage(features uint32) stage {
	return stage{files: shaders.FS, name: "lit.frag", lib: featureFS{shaders.FS, features}, prelude: shaders.Surface}
}

// featureFS is the shader library with surface.glsl's TF_FEATURES line
// set to features: one line for one, so that the driver's line numbers
// stay those of the file.
type featureFS struct {
	fs.FS
	features uint32
}

// featureLine is the line of surface.glsl that featureFS replaces.
const featureLine = "#define TF_FEATURES 127\n"

// ReadFile returns the named file, surface.glsl with its features set.
func (f featureFS) ReadFile(name string) ([]byte, error) {
	b, err := fs.ReadFile(f.FS, name)
	if err != nil || name != shaders.Surface {
		return b, err
	}
	if !bytes.Contains(b, []byte(featureLine)) {
		return nil, fmt.Errorf("renderer: shaders/%s has no line %q to set the material's features in", name, featureLine)
	}
	return bytes.Replace(b, []byte(featureLine), fmt.Appendf(nil, "#define TF_FEATURES %d\n", f.features), 1), nil
}

// blockStride returns the distance between two materials' blocks in the
// material buffer: the block's size rounded up to the driver's uniform
// buffer offset alignment, so that each can be bound by glBindBufferRange.
func blockStride() int {
	var align int32
	gl.GetIntegerv(gl.UNIFORM_BUFFER_OFFSET_ALIGNMENT, &align)
	a := max(int(align), 16)
	return (materialBlockSize + a - 1) / a * a
}

// uploadMaterials writes every material's block into a new material
// buffer, replacing the old one.
func (s *scene) uploadMaterials() error {
	if s.blockStride == 0 {
		s.blockStride = blockStride()
	}
	data := make([]byte, len(s.materials)*s.blockStride)
	for i := range s.materials {
		copy(data[i*s.blockStride:], unsafe.Slice((*byte)(unsafe.Pointer(&s.materials[i].block[0])), materialBlockSize))
	}
	buf := newBuffer()
	gl.BindBuffer(gl.UNIFORM_BUFFER, uint32(buf))
	gl.BufferData(gl.UNIFORM_BUFFER, len(data), unsafe.Pointer(&data[0]), gl.STATIC_DRAW)
	gl.BindBuffer(gl.UNIFORM_BUFFER, 0)
	if err := checkGL("upload materials"); err != nil {
		buf.Delete()
		return err
	}
	s.materialBuf.Delete()
	s.materialBuf = buf
	return nil
}

// materialBinding is the uniform buffer binding point of the Material
// block; texture slot k samples texture unit k.
const materialBinding = 0

// samplerNames are surface.glsl's sampler uniforms, by slot.
var samplerNames = [gltf.Slots]string{"uBaseColorTexture", "uMetallicRoughnessTexture", "uNormalTexture", "uOcclusionTexture", "uEmissiveTexture"}

// setupMaterialUniforms points program p's samplers at their texture
// units, its Material block at materialBinding and its Lights block at
// lightsBinding.
func setupMaterialUniforms(p glProgram) {
	gl.UseProgram(uint32(p))
	for slot, name := range samplerNames {
		gl.Uniform1i(p.uniform(name), int32(slot))
	}
	gl.UseProgram(0)
	if i := gl.GetUniformBlockIndex(uint32(p), gl.Str("Material\x00")); i != gl.INVALID_INDEX {
		gl.UniformBlockBinding(uint32(p), i, materialBinding)
	}
	bindLightsBlock(p)
}

// boundMaterial is what a frame's draw calls have bound so far, so that
// each material binds only what changes.
type boundMaterial struct {
	mat      int // -1: none
	tex      [gltf.Slots]glTexture
	sampler  [gltf.Slots]uint32
	twoSided bool
}

// reset forgets the bindings (at the start of a frame: other passes bind
// textures too).
func (bm *boundMaterial) reset() {
	*bm = boundMaterial{mat: -1}
}

// bindMaterial binds material id's block, textures and samplers, and sets
// culling for its sidedness. It does not allocate.
func (s *scene) bindMaterial(bm *boundMaterial, id uint16) {
	if bm.mat == int(id) {
		return
	}
	bm.mat = int(id)
	m := &s.materials[id]
	gl.BindBufferRange(gl.UNIFORM_BUFFER, materialBinding, uint32(s.materialBuf), int(id)*s.blockStride, materialBlockSize)
	for slot := range gltf.Slots {
		if t := m.tex[slot]; t.Valid() && t != bm.tex[slot] {
			gl.ActiveTexture(gl.TEXTURE0 + uint32(slot))
			gl.BindTexture(gl.TEXTURE_2D, uint32(t))
			bm.tex[slot] = t
		}
		if smp := m.sampler[slot]; m.tex[slot].Valid() && smp != bm.sampler[slot] {
			gl.BindSampler(uint32(slot), smp)
			bm.sampler[slot] = smp
		}
	}
	if m.twoSided != bm.twoSided {
		if m.twoSided {
			gl.Disable(gl.CULL_FACE)
		} else {
			gl.Enable(gl.CULL_FACE)
		}
		bm.twoSided = m.twoSided
	}
}

// unbindMaterial leaves the GL state as the other passes expect it:
// culling on, texture unit 0 active, no samplers bound.
func (s *scene) unbindMaterial(bm *boundMaterial) {
	for slot := range gltf.Slots {
		if bm.sampler[slot] != 0 {
			gl.BindSampler(uint32(slot), 0)
		}
	}
	gl.ActiveTexture(gl.TEXTURE0)
	gl.Enable(gl.CULL_FACE)
	bm.reset()
}

// View is how the renderer shades bodies: as their materials say, or one
// of two views for looking at a model's geometry.
type View uint8

const (
	// ViewShaded draws bodies in their materials (the default).
	ViewShaded View = iota
	// ViewNormals shows each fragment's normal (after normal mapping) as
	// a colour: (n + 1) / 2 in linear RGB, so +x is red, +y green, +z
	// blue.
	ViewNormals
	// ViewWireframe draws the triangles' edges only, shaded.
	ViewWireframe
	views // the number of views
)

// SetView sets how bodies are shaded from the next frame on; a View past
// ViewWireframe counts as ViewShaded.
func (r *Renderer) SetView(v View) {
	if v >= views {
		v = ViewShaded
	}
	r.bodies.view = v
}

// DefaultMaterial returns the renderer's default material (material 0,
// what a body without a material of its own is drawn with): white, not
// metallic, half rough, opaque, with glTF's defaults for the scales and
// the cutoff. glTF's own default, for a model's primitive without a
// material, is gltf.DefaultMaterial (fully metallic and rough).
func DefaultMaterial() gltf.Material {
	return gltf.Material{BaseColor: mgl32.Vec4{1, 1, 1, 1}, Roughness: 0.5, NormalScale: 1, OcclusionStrength: 1, AlphaCutoff: 0.5}
}
