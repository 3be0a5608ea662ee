package renderer

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/tickframe/tickframe/renderer/gltf"
	"github.com/tickframe/tickframe/simthread"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/shaders"
)

// Part is a triangle mesh drawn with one material: one part of a mesh
// (see Registry.AddMesh). A glTF primitive is a part.
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
	// UVs1 is a second UV set (glTF's TEXCOORD_1), for the textures whose
	// TextureInfo.TexCoord is 1; nil for none (all (0, 0)).
	UVs1 []mgl32.Vec2
	// Colors holds one vertex colour per position, linear RGBA, which
	// multiplies the material's base colour; nil for none (white).
	Colors []mgl32.Vec4
	// Tangents holds one tangent per position for normal maps: XYZ a unit
	// vector along the direction of increasing u, W ±1, the bitangent
	// being W·(normal × tangent), as glTF's TANGENT; nil for none (a
	// normal map then leaves the normal as it is).
	Tangents []mgl32.Vec4
	// Indices holds three positions per triangle, counter-clockwise seen
	// from the front: back faces are culled unless the material is double
	// sided.
	Indices []uint32
	// Material is what the part is drawn with for a body whose Material is
	// 0: a registered material's id, 0 for the default material.
	Material simthread.MaterialID
}

// The registries' limits: ids are uint16, and 0 is the default.
const maxIDs = 1<<16 - 1

// vertexStride is one registered vertex: position, normal, UV, second
// UV, colour, tangent.
const vertexStride = 72

// part is a registered mesh part on the GPU.
type part struct {
	vbo, ebo glBuffer
	indices  int32
	material uint16
	centre   mgl32.Vec3 // of its bounding box, for ordering blended parts
}

// program is a linked draw program and the locations of its per-frame
// uniforms.
type program struct {
	prog            glProgram
	uViewProj, uEye int32
	uView           int32  // surface.glsl's debug view (Renderer.SetView)
	frame           uint64 // the frame whose uniforms it holds
}

// scene is the registry of meshes and materials that bodies name.
type scene struct {
	parts       []part
	meshes      [][2]int32 // each mesh's parts: first and count in parts
	materials   []material
	materialBuf glBuffer // every material's uniform block, blockStride apart
	blockStride int
	programs    []program      // 0: the built-in lighting, for the default material
	builtin     map[uint32]int // the built-in lighting's program for each set of material features
	textures    []glTexture
	textureOf   map[textureKey]glTexture
	samplers    map[glSampler]uint32
	anisotropy  float32 // the anisotropic filtering used, 1 for none
}

// init registers the defaults: mesh 0, the cube, and material 0.
func (s *scene) init() error {
	s.textureOf = make(map[textureKey]glTexture)
	s.anisotropy = maxAnisotropy()
	p, err := s.newProgram(builtinStage(0)) // the default material's: no features
	if err != nil {
		return err
	}
	s.programs = append(s.programs, p)
	s.builtin = map[uint32]int{0: 0}
	s.materialBuf = newBuffer()
	if _, err := s.addMaterial(DefaultMaterial()); err != nil {
		return err
	}
	_, err = s.addMesh([]Part{cube()})
	return err
}

// newProgram links body.vert with a material's fragment stage and points
// its samplers and Material block at theirs (setupMaterialUniforms).
func (s *scene) newProgram(frag stage) (program, error) {
	p, err := loadProgram(stage{files: shaders.FS, name: "body.vert", lib: shaders.FS}, frag)
	if err != nil {
		return program{}, err
	}
	setupMaterialUniforms(p)
	return program{prog: p, uViewProj: p.uniform("uViewProj"), uEye: p.uniform("uEye"), uView: p.uniform("uView")}, nil
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
	case p.UVs1 != nil && len(p.UVs1) != n:
		return fmt.Errorf("%d second UVs for %d positions", len(p.UVs1), n)
	case p.Colors != nil && len(p.Colors) != n:
		return fmt.Errorf("%d colours for %d positions", len(p.Colors), n)
	case p.Tangents != nil && len(p.Tangents) != n:
		return fmt.Errorf("%d tangents for %d positions", len(p.Tangents), n)
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
	for i, v := range p.UVs1 {
		if !finite(v[:]...) {
			return fmt.Errorf("second UV %d is %v", i, v)
		}
	}
	for i, v := range p.Colors {
		if !finite(v[:]...) {
			return fmt.Errorf("colour %d is %v", i, v)
		}
	}
	for i, v := range p.Tangents {
		if !finite(v[:]...) {
			return fmt.Errorf("tangent %d is %v", i, v)
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
		var uv, uv1 mgl32.Vec2
		if p.UVs != nil {
			uv = p.UVs[i]
		}
		if p.UVs1 != nil {
			uv1 = p.UVs1[i]
		}
		c := mgl32.Vec4{1, 1, 1, 1}
		if p.Colors != nil {
			c = p.Colors[i]
		}
		var t mgl32.Vec4
		if p.Tangents != nil {
			t = p.Tangents[i]
		}
		verts = append(verts, v[0], v[1], v[2], n[0], n[1], n[2], uv[0], uv[1], uv1[0], uv1[1],
			c[0], c[1], c[2], c[3], t[0], t[1], t[2], t[3])
	}
	q := part{vbo: newBuffer(), ebo: newBuffer(), indices: int32(len(p.Indices)), material: uint16(p.Material), centre: boxCentre(p.Positions)}
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
	s.deleteSamplers()
	s.materialBuf.Delete()
	s.parts, s.meshes, s.materials, s.programs, s.textures = nil, nil, nil, nil, nil
}

// addMeshNow registers a mesh made of parts on the render thread, at
// once, and returns its id, for simthread.Body.Mesh (from the sequence
// Registry.AddMesh hands out: AddModel's meshes go this way). Each part is
// drawn with one instanced call per group of bodies (see Draw), with the
// material it names unless the body names another. The id is a handle:
// it stays what it is whatever else is registered, and the ids of a
// renderer that registers nothing else come in order from 1 (0 is the
// default cube), but an app that counts on the order breaks when it
// registers a model (whose materials take ids too) or queues from
// elsewhere; keep the ids returned, or queue through Registry from the
// world.
//
// Call it on the render thread, at any time: what the registry holds
// queued is uploaded first, and a goroutine that queues meanwhile waits
// for this upload. A snapshot uploaded before it keeps drawing an id it
// did not know as the default until it leaves the history: register
// before publishing the bodies that name it. A failure takes no id.
func (r *Renderer) addMeshNow(parts ...Part) (simthread.MeshID, error) {
	id, err := r.addNow(request{kind: addMesh, parts: parts})
	return simthread.MeshID(id), err
}

// addMaterialNow registers a material on the render thread, at once, and
// returns its id, for simthread.Body.Material and Part.Material (from the
// sequence Registry.AddMaterial hands out too; 0 is the default
// material). It uploads the material's texture and compiles its shader,
// if any, and returns their errors (a *ShaderError for the shader). Call
// it as addMeshNow.
func (r *Renderer) addMaterialNow(m gltf.Material) (simthread.MaterialID, error) {
	id, err := r.addNow(request{kind: addMaterial, mat: m})
	return simthread.MaterialID(id), err
}

// meshCount reports how many meshes are registered, the default cube
// included: ids below it are known.
func (r *Renderer) meshCount() int { return len(r.bodies.meshes) }

// materialCount reports how many materials are registered, the default
// included: ids below it are known.
func (r *Renderer) materialCount() int { return len(r.bodies.materials) }
