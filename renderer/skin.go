package renderer

import (
	"errors"
	"fmt"
	"math"
	"unsafe"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/renderer/gltf"
	"github.com/tickframe/tickframe/shaders"
	"github.com/tickframe/tickframe/simthread"
)

// jointStride is one snapshot joint as uploaded: simthread.Joint as it is.
const jointStride = int32(unsafe.Sizeof(simthread.Joint{}))

// The layout simthread.Joint documents and skinjoint.vert reads.
var (
	_ [40]byte = [jointStride]byte{}
	_ [12]byte = [unsafe.Offsetof(simthread.Joint{}.Rot)]byte{}
	_ [28]byte = [unsafe.Offsetof(simthread.Joint{}.Scale)]byte{}
)

const (
	// skinVertexStride is one skinned vertex: position, normal, UV,
	// second UV, colour, tangent (as a body part's), four joints (u16)
	// and four weights.
	skinVertexStride = vertexStride + 8 + 16
	// jointMatrixStride is one joint matrix: three rows of four floats.
	jointMatrixStride = 48
	// instStride is one character drawn, per instance: its first joint,
	// its colour and its first morph weight.
	instStride = 12
	// skinTextureUnit is the texture unit of the joint and inverse bind
	// matrices' buffer textures: past the materials' units 0 to 4 and the
	// line pass's 7.
	skinTextureUnit = 6
)

// skinVaryings are skinjoint.vert's outputs, captured in this order.
var skinVaryings = []string{"oRow0", "oRow1", "oRow2"}

// skinModel is a registered skinned model.
type skinModel struct {
	parts   []skinPart
	joints  int // its skin's joints
	ibm     int // its first inverse bind matrix in the pass's
	weights int // its morph weights (Character.Weights)
}

// skinPart is one primitive of a skinned model on the GPU.
type skinPart struct {
	vbo, ebo glBuffer
	vao      glVertexArray
	indices  int32
	material uint16
	// Its morph targets (uploadMorph): their displacements, how many,
	// and where their weights start among the character's.
	morph            glBuffer
	morphTex         glTexture
	targets, morphAt int32
}

// skinSlot holds what the skin pass derived from the snapshot in the
// body pass's slot of the same index.
type skinSlot struct {
	seq    uint64   // acquire sequence number held, 0: none
	joints int      // joints held
	buf    glBuffer // the snapshot's joints, as they are
	tags   glBuffer // a uvec4 tag per joint (skinjoint.vert)
	inst   glBuffer // per character drawn: first joint, colour, first morph weight
	// The snapshot's morph weights, as they are, and a uvec4 tag each
	// (morphweight.vert).
	wbuf, wtags glBuffer
	weights     int
	// items are the slot's characters grouped by model: model, first
	// instance, count.
	items [][3]int32
}

// skinProgram is a material's fragment stage linked with skin.vert.
type skinProgram struct {
	program
	uJoints, uTargets, uMorphOffset int32
}

// skinPass draws the snapshots' skinned characters (simthread.Skin): a
// joint pass, one point per joint of the newer snapshot, interpolates
// every joint from the older (skinjoint.vert) into a buffer of joint
// matrices; then one instanced draw per model part skins the vertices
// with them (skin.vert), after a weight pass interpolated the morph
// weights (morphweight.vert). Its slots mirror the body pass's as the line
// pass's do. The CPU's work per frame is a few GL calls per model part;
// per snapshot, O(joints + characters) once when it is uploaded.
type skinPass struct {
	joint                glProgram
	uAlpha, uPrevCount   int32
	vao                  glVertexArray // the joint pass's
	feedback             uint32
	mats                 glBuffer // the frame's joint matrices
	matTex               glTexture
	ibmBuf               glBuffer // every model's inverse bind matrices
	ibmTex               glTexture
	ibm                  []float32 // its contents: three rows a matrix
	models               []skinModel
	programs             map[int]*skinProgram // by the material's body program
	slots                []skinSlot
	jointCap             int // joints every slot's storage and mats hold
	instCap              int // characters every slot's instance storage holds
	boundPrev, boundNext int
	tagScratch           []uint32
	wtagScratch          []uint32
	morph                *morphWeights
	weightCap            int // morph weights every slot's storage and the frame's hold
	instScratch          []uint32
	countScratch         []int32
	bound                boundMaterial

	// drawNewer is a test's knob: it draws every joint at the newer
	// snapshot's pose, as a renderer without interpolation would.
	drawNewer bool
}

func newSkinPass(history int) (s *skinPass, err error) {
	s = &skinPass{slots: make([]skinSlot, history), boundPrev: -1, boundNext: -1,
		programs: map[int]*skinProgram{}, models: []skinModel{{}}} // model 0: none
	pass := s
	defer func() {
		if err != nil {
			pass.delete()
		}
	}()
	if s.joint, err = loadShaderProgram(shaders.FS, "skinjoint.vert", "", skinVaryings...); err != nil {
		return nil, err
	}
	s.uAlpha, s.uPrevCount = s.joint.uniform("uAlpha"), s.joint.uniform("uPrevCount")
	gl.UseProgram(uint32(s.joint))
	gl.Uniform1i(s.joint.uniform("uInverseBind"), skinTextureUnit)
	gl.UseProgram(0)
	for i := range s.slots {
		sl := &s.slots[i]
		sl.buf, sl.tags, sl.inst = newBuffer(), newBuffer(), newBuffer()
		sl.wbuf, sl.wtags = newBuffer(), newBuffer()
	}
	if s.morph, err = newMorphWeights(); err != nil {
		return nil, err
	}
	gl.GenTransformFeedbacks(1, &s.feedback)
	s.vao = newVertexArray()
	gl.BindVertexArray(uint32(s.vao))
	for loc := uint32(0); loc <= 7; loc++ {
		gl.EnableVertexAttribArray(loc)
	}
	gl.BindVertexArray(0)
	s.mats, s.ibmBuf = newBuffer(), newBuffer()
	var tex [2]uint32
	gl.GenTextures(2, &tex[0])
	s.matTex, s.ibmTex = glTexture(tex[0]), glTexture(tex[1])
	return s, checkGL("create skin pass")
}

// AddSkinned registers the skinned meshes of m, every one of which must
// use the same skin, as a skinned model and returns its id for
// simthread.Skin.Model: each primitive a part drawn with its glTF
// material (registered as AddModel registers them), skinned by the
// skin's joints (the mesh nodes' transforms ignored, as glTF says) after
// its morph targets, if any, moved it. A character drawing it publishes
// as many joints as the skin has (Character.Joints) and as many morph
// weights as its meshes have targets (Character.Weights; AppendSkin
// writes both). The model's meshes without a skin are not part of
// it. It must be called on the render thread.
func (r *Renderer) AddSkinned(m *gltf.Model) (uint16, error) {
	s := r.skins
	skin := -1
	for i := range m.Meshes {
		me := &m.Meshes[i]
		if me.Joints == nil {
			continue
		}
		if skin >= 0 && me.Skin != skin {
			return 0, fmt.Errorf("renderer: skinned model: meshes use skins %d and %d: one skin a model", skin, me.Skin)
		}
		skin = me.Skin
	}
	if skin < 0 {
		return 0, errors.New("renderer: skinned model: no mesh has a skin")
	}
	if len(s.models) > maxIDs {
		return 0, fmt.Errorf("renderer: skinned model: all %d ids are taken", maxIDs)
	}
	sk := &m.Skins[skin]
	morphs, weights := morphNodes(m)
	model := skinModel{joints: len(sk.Joints), ibm: len(s.ibm) / 12, weights: weights}
	mats := &modelMaterials{ids: make(map[int]simthread.MaterialID)}
	fail := func(err error) (uint16, error) {
		for i := range model.parts {
			model.parts[i].delete()
		}
		return 0, err
	}
	for i := range m.Meshes {
		me := &m.Meshes[i]
		if me.Joints == nil || len(me.Indices) < 3 {
			continue
		}
		id, err := r.modelMaterial(m, me.Material, mats)
		if err != nil {
			return fail(err)
		}
		if _, err := s.program(&r.bodies.scene, int(r.bodies.materials[id].program)); err != nil {
			return fail(err)
		}
		p := modelPart(m, me, mgl32.Ident4())
		sp, err := uploadSkinPart(&p, me)
		if err != nil {
			return fail(err)
		}
		sp.material = uint16(id)
		model.parts = append(model.parts, sp)
		for _, n := range morphs {
			if n.node == me.NodeIndex {
				if err := uploadMorph(&model.parts[len(model.parts)-1], me, n.at); err != nil {
					return fail(err)
				}
			}
		}
	}
	if len(model.parts) == 0 {
		return 0, errors.New("renderer: skinned model has no triangles to draw")
	}
	for _, ib := range sk.InverseBind {
		for row := range 3 {
			s.ibm = append(s.ibm, ib[row], ib[4+row], ib[8+row], ib[12+row])
		}
	}
	gl.BindBuffer(gl.TEXTURE_BUFFER, uint32(s.ibmBuf))
	gl.BufferData(gl.TEXTURE_BUFFER, len(s.ibm)*4, unsafe.Pointer(&s.ibm[0]), gl.STATIC_DRAW)
	gl.BindBuffer(gl.TEXTURE_BUFFER, 0)
	gl.BindTexture(gl.TEXTURE_BUFFER, uint32(s.ibmTex))
	gl.TexBuffer(gl.TEXTURE_BUFFER, gl.RGBA32F, uint32(s.ibmBuf))
	gl.BindTexture(gl.TEXTURE_BUFFER, 0)
	if err := checkGL("upload inverse bind matrices"); err != nil {
		s.ibm = s.ibm[:model.ibm*12]
		return fail(err)
	}
	s.models = append(s.models, model)
	return uint16(len(s.models) - 1), nil
}

// program returns the skinned variant of body program i (the built-in
// lighting for a set of features), linking it on first use.
func (s *skinPass) program(sc *scene, i int) (*skinProgram, error) {
	if p, ok := s.programs[i]; ok {
		return p, nil
	}
	features, found := uint32(0), false
	for f, k := range sc.builtin {
		if k == i {
			features, found = f, true
		}
	}
	if !found {
		return nil, errors.New("renderer: skinned model: a material with its own shader is not supported")
	}
	prog, err := loadProgram(stage{files: shaders.FS, name: "skin.vert", lib: shaders.FS}, builtinStage(features))
	if err != nil {
		return nil, err
	}
	setupMaterialUniforms(prog)
	p := &skinProgram{program: program{prog: prog, uViewProj: prog.uniform("uViewProj"), uEye: prog.uniform("uEye"),
		uView: prog.uniform("uView")}, uJoints: prog.uniform("uJoints"),
		uTargets: prog.uniform("uTargets"), uMorphOffset: prog.uniform("uMorphOffset")}
	gl.UseProgram(uint32(prog))
	gl.Uniform1i(p.uJoints, skinTextureUnit)
	gl.Uniform1i(prog.uniform("uMorph"), morphTextureUnit)
	gl.Uniform1i(prog.uniform("uWeights"), morphWeightUnit)
	gl.UseProgram(0)
	s.programs[i] = p
	return p, nil
}

// uploadSkinPart uploads a part's vertices with mesh me's joints and
// weights, and sets up its vertex array's per-vertex attributes.
func uploadSkinPart(p *Part, me *gltf.Mesh) (skinPart, error) {
	verts := make([]byte, 0, len(p.Positions)*skinVertexStride)
	f := func(vs ...float32) {
		for _, v := range vs {
			verts = le32(verts, math.Float32bits(v))
		}
	}
	for i, v := range p.Positions {
		n := p.Normals[i]
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
		f(v[0], v[1], v[2], n[0], n[1], n[2], uv[0], uv[1], uv1[0], uv1[1], c[0], c[1], c[2], c[3], t[0], t[1], t[2], t[3])
		for _, j := range me.Joints[i] {
			verts = append(verts, byte(j), byte(j>>8))
		}
		w := me.Weights[i]
		f(w[0], w[1], w[2], w[3])
	}
	q := skinPart{vbo: newBuffer(), ebo: newBuffer(), vao: newVertexArray(), indices: int32(len(p.Indices))}
	gl.BindVertexArray(uint32(q.vao))
	gl.BindBuffer(gl.ARRAY_BUFFER, uint32(q.vbo))
	gl.BufferData(gl.ARRAY_BUFFER, len(verts), unsafe.Pointer(&verts[0]), gl.STATIC_DRAW)
	st := int32(skinVertexStride)
	for k, a := range []struct {
		n   int32
		off uintptr
	}{{3, 0}, {3, 12}, {2, 24}, {2, 32}, {4, 40}, {4, 56}} {
		gl.VertexAttribPointerWithOffset(uint32(k), a.n, gl.FLOAT, false, st, a.off)
	}
	gl.VertexAttribIPointerWithOffset(6, 4, gl.UNSIGNED_SHORT, st, vertexStride)
	gl.VertexAttribPointerWithOffset(7, 4, gl.FLOAT, false, st, vertexStride+8)
	for loc := uint32(0); loc <= 10; loc++ {
		gl.EnableVertexAttribArray(loc)
	}
	gl.VertexAttribDivisor(8, 1)
	gl.VertexAttribDivisor(9, 1)
	gl.VertexAttribDivisor(10, 1)
	gl.BindBuffer(gl.ELEMENT_ARRAY_BUFFER, uint32(q.ebo))
	gl.BufferData(gl.ELEMENT_ARRAY_BUFFER, len(p.Indices)*4, unsafe.Pointer(&p.Indices[0]), gl.STATIC_DRAW)
	gl.BindVertexArray(0)
	gl.BindBuffer(gl.ARRAY_BUFFER, 0)
	if err := checkGL("upload skinned mesh"); err != nil {
		q.delete()
		return skinPart{}, err
	}
	return q, nil
}

func le32(b []byte, v uint32) []byte {
	return append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
}

func (p *skinPart) delete() {
	p.vbo.Delete()
	p.ebo.Delete()
	p.vao.Delete()
	p.morph.Delete()
	p.morphTex.Delete()
}

// ensure uploads the plan's snapshots' joints and characters into the
// slots of the same index as the body pass's, where they are not there
// yet, growing every slot first when either does not fit.
func (s *skinPass) ensure(plan *Plan, prev, next int) error {
	needJ := max(len(plan.Next.Joints), len(plan.Prev.Joints))
	needI := max(len(plan.Next.Skins), len(plan.Prev.Skins))
	needW := max(len(plan.Next.MorphWeights), len(plan.Prev.MorphWeights))
	if needJ > s.jointCap || needI > s.instCap || needW > s.weightCap {
		if err := s.grow(max(needJ+needJ/4+64, s.jointCap), max(needI+needI/4+16, s.instCap), max(needW+needW/4, s.weightCap)); err != nil {
			return err
		}
	}
	if sl := &s.slots[next]; sl.seq != plan.NextSeq {
		s.upload(next, plan.NextSeq, plan.Next)
	}
	if sl := &s.slots[prev]; prev != next && sl.seq != plan.PrevSeq {
		s.upload(prev, plan.PrevSeq, plan.Prev)
	}
	return nil
}

// grow gives every slot storage for joints joints, inst characters and
// weights morph weights, and the frame's joint matrices and weights
// room for them. The slots' contents are lost: each is uploaded again
// when a frame needs it.
func (s *skinPass) grow(joints, inst, weights int) error {
	err := checkGL("frame")
	for i := range s.slots {
		sl := &s.slots[i]
		for _, b := range []struct {
			buf  glBuffer
			size int
		}{{sl.buf, joints * int(jointStride)}, {sl.tags, joints * 16}, {sl.inst, inst * instStride},
			{sl.wbuf, max(weights, 1) * 4}, {sl.wtags, max(weights, 1) * 16}} {
			gl.BindBuffer(gl.ARRAY_BUFFER, uint32(b.buf))
			gl.BufferData(gl.ARRAY_BUFFER, b.size, nil, gl.STREAM_DRAW)
		}
		sl.seq, sl.joints, sl.weights, sl.items = 0, 0, 0, sl.items[:0]
	}
	s.morph.grow(weights)
	gl.BindBuffer(gl.ARRAY_BUFFER, uint32(s.mats))
	gl.BufferData(gl.ARRAY_BUFFER, joints*jointMatrixStride, nil, gl.DYNAMIC_COPY)
	gl.BindBuffer(gl.ARRAY_BUFFER, 0)
	gl.BindTexture(gl.TEXTURE_BUFFER, uint32(s.matTex))
	gl.TexBuffer(gl.TEXTURE_BUFFER, gl.RGBA32F, uint32(s.mats))
	gl.BindTexture(gl.TEXTURE_BUFFER, 0)
	gl.BindTransformFeedback(gl.TRANSFORM_FEEDBACK, s.feedback)
	gl.BindBufferBase(gl.TRANSFORM_FEEDBACK_BUFFER, 0, uint32(s.mats))
	gl.BindTransformFeedback(gl.TRANSFORM_FEEDBACK, 0)
	s.boundPrev, s.boundNext = -1, -1
	if gerr := checkGL(fmt.Sprintf("grow skin buffers to %d joints", joints)); gerr != nil {
		s.jointCap, s.instCap, s.weightCap = 0, 0, 0
		return errors.Join(err, gerr)
	}
	s.jointCap, s.instCap, s.weightCap = joints, inst, weights
	return err
}

// upload copies a snapshot's joints into slot i, tags each joint of a
// character that is drawn, groups the characters by model, and tags the
// slot with seq. A character whose model is unknown or whose joints do
// not fit is left out.
func (s *skinPass) upload(i int, seq uint64, snap *simthread.Snapshot) {
	sl := &s.slots[i]
	joints, weights := snap.Joints, snap.MorphWeights
	sl.seq, sl.joints, sl.weights = seq, len(joints), len(weights)
	tags, wtags := s.tagScratch[:0], s.wtagScratch[:0]
	for range joints {
		tags = append(tags, math.MaxUint32, math.MaxUint32, math.MaxUint32, 0)
	}
	for range weights {
		wtags = append(wtags, math.MaxUint32, math.MaxUint32, math.MaxUint32, 0)
	}
	counts := s.countScratch[:0]
	for range s.models {
		counts = append(counts, 0)
	}
	drawn := func(k int) bool {
		c := &snap.Skins[k]
		if c.Model == 0 || int(c.Model) >= len(s.models) {
			return false
		}
		md := &s.models[c.Model]
		return int(c.First) <= len(joints) && md.joints <= len(joints)-int(c.First) &&
			(md.weights == 0 || int(c.FirstWeight) <= len(weights) && md.weights <= len(weights)-int(c.FirstWeight))
	}
	for k := range snap.Skins {
		if !drawn(k) {
			continue
		}
		c := &snap.Skins[k]
		md := &s.models[c.Model]
		for j := range md.joints {
			t := tags[4*(int(c.First)+j):]
			t[0], t[1], t[2], t[3] = uint32(k), c.Epoch, uint32(c.Model)<<16|uint32(j), uint32(md.ibm+j)
		}
		for j := range md.weights {
			t := wtags[4*(int(c.FirstWeight)+j):]
			t[0], t[1], t[2] = uint32(k), c.Epoch, uint32(c.Model)<<16|uint32(j)
		}
		counts[c.Model]++
	}
	// Group by model: a counting sort into the instance records.
	sl.items = sl.items[:0]
	at := int32(0)
	for m, n := range counts {
		if n > 0 {
			sl.items = append(sl.items, [3]int32{int32(m), at, n})
		}
		counts[m] = at
		at += n
	}
	inst := s.instScratch[:0]
	for range 3 * at {
		inst = append(inst, 0)
	}
	for k := range snap.Skins {
		if !drawn(k) {
			continue
		}
		c := &snap.Skins[k]
		w := counts[c.Model]
		counts[c.Model]++
		inst[3*w], inst[3*w+1], inst[3*w+2] = c.First, c.Color, c.FirstWeight
	}
	if len(joints) > 0 {
		gl.BindBuffer(gl.ARRAY_BUFFER, uint32(sl.buf))
		gl.BufferSubData(gl.ARRAY_BUFFER, 0, len(joints)*int(jointStride), unsafe.Pointer(&joints[0]))
		gl.BindBuffer(gl.ARRAY_BUFFER, uint32(sl.tags))
		gl.BufferSubData(gl.ARRAY_BUFFER, 0, len(tags)*4, unsafe.Pointer(&tags[0]))
	}
	if len(weights) > 0 {
		gl.BindBuffer(gl.ARRAY_BUFFER, uint32(sl.wbuf))
		gl.BufferSubData(gl.ARRAY_BUFFER, 0, len(weights)*4, unsafe.Pointer(&weights[0]))
		gl.BindBuffer(gl.ARRAY_BUFFER, uint32(sl.wtags))
		gl.BufferSubData(gl.ARRAY_BUFFER, 0, len(wtags)*4, unsafe.Pointer(&wtags[0]))
	}
	if len(inst) > 0 {
		gl.BindBuffer(gl.ARRAY_BUFFER, uint32(sl.inst))
		gl.BufferSubData(gl.ARRAY_BUFFER, 0, len(inst)*4, unsafe.Pointer(&inst[0]))
	}
	gl.BindBuffer(gl.ARRAY_BUFFER, 0)
	s.tagScratch, s.wtagScratch, s.instScratch, s.countScratch = tags, wtags, inst, counts
	debugCheck("upload skins")
}

// bind points the joint pass's attributes at slots prev and next.
func (s *skinPass) bind(prev, next int) {
	if prev == s.boundPrev && next == s.boundNext {
		return
	}
	point := func(loc uint32, sl *skinSlot) {
		gl.BindBuffer(gl.ARRAY_BUFFER, uint32(sl.buf))
		gl.VertexAttribPointerWithOffset(loc, 3, gl.FLOAT, false, jointStride, 0)
		gl.VertexAttribPointerWithOffset(loc+1, 4, gl.FLOAT, false, jointStride, 12)
		gl.VertexAttribPointerWithOffset(loc+2, 3, gl.FLOAT, false, jointStride, 28)
		gl.BindBuffer(gl.ARRAY_BUFFER, uint32(sl.tags))
		gl.VertexAttribIPointerWithOffset(loc+3, 4, gl.UNSIGNED_INT, 16, 0)
	}
	point(0, &s.slots[prev])
	point(4, &s.slots[next])
	gl.BindBuffer(gl.ARRAY_BUFFER, 0)
	s.boundPrev, s.boundNext = prev, next
	debugCheck("bind skin slots")
}

// draw interpolates the joints of the plan's snapshots (slots prev and
// next, as the body pass's) and draws the newer snapshot's characters. It
// does not allocate.
func (s *skinPass) draw(sc *scene, plan *Plan, prev, next int, viewProj *mgl32.Mat4, eye mgl32.Vec3, view View, frame uint64) error {
	if !plan.Ready || len(plan.Next.Skins) == 0 || len(s.models) == 1 {
		return nil
	}
	if err := s.ensure(plan, prev, next); err != nil {
		return err
	}
	sl := &s.slots[next]
	if sl.joints == 0 || len(sl.items) == 0 {
		return nil
	}
	// The joint pass.
	alpha := plan.Alpha
	if s.drawNewer {
		alpha = 1
	}
	gl.BindVertexArray(uint32(s.vao))
	s.bind(prev, next)
	gl.UseProgram(uint32(s.joint))
	gl.Uniform1f(s.uAlpha, alpha)
	prevCount := int32(s.slots[prev].joints)
	if prev == next {
		prevCount = 0
	}
	gl.Uniform1i(s.uPrevCount, prevCount)
	gl.ActiveTexture(gl.TEXTURE0 + skinTextureUnit)
	gl.BindTexture(gl.TEXTURE_BUFFER, uint32(s.ibmTex))
	gl.Enable(gl.RASTERIZER_DISCARD)
	gl.BindTransformFeedback(gl.TRANSFORM_FEEDBACK, s.feedback)
	gl.BeginTransformFeedback(gl.POINTS)
	gl.DrawArrays(gl.POINTS, 0, int32(sl.joints))
	gl.EndTransformFeedback()
	gl.BindTransformFeedback(gl.TRANSFORM_FEEDBACK, 0)
	gl.Disable(gl.RASTERIZER_DISCARD)
	s.morph.draw(s.slots, prev, next, alpha)
	// The characters.
	gl.ActiveTexture(gl.TEXTURE0 + skinTextureUnit)
	gl.BindTexture(gl.TEXTURE_BUFFER, uint32(s.matTex))
	gl.ActiveTexture(gl.TEXTURE0 + morphWeightUnit)
	gl.BindTexture(gl.TEXTURE_BUFFER, uint32(s.morph.tex))
	gl.ActiveTexture(gl.TEXTURE0)
	bound := &s.bound
	bound.reset()
	if view == ViewWireframe {
		gl.PolygonMode(gl.FRONT_AND_BACK, gl.LINE)
	}
	var cur *skinProgram
	for _, it := range sl.items {
		md := &s.models[it[0]]
		for k := range md.parts {
			p := &md.parts[k]
			sp := s.programs[int(sc.materials[p.material].program)]
			if sp != cur {
				cur = sp
				gl.UseProgram(uint32(sp.prog))
				if sp.frame != frame {
					sp.frame = frame
					gl.UniformMatrix4fv(sp.uViewProj, 1, false, &viewProj[0])
					gl.Uniform3f(sp.uEye, eye[0], eye[1], eye[2])
					gl.Uniform1i(sp.uView, int32(view))
				}
			}
			sc.bindMaterial(bound, p.material)
			gl.Uniform1i(sp.uTargets, p.targets)
			if p.targets > 0 {
				gl.Uniform1i(sp.uMorphOffset, p.morphAt)
				gl.ActiveTexture(gl.TEXTURE0 + morphTextureUnit)
				gl.BindTexture(gl.TEXTURE_BUFFER, uint32(p.morphTex))
				gl.ActiveTexture(gl.TEXTURE0)
			}
			gl.BindVertexArray(uint32(p.vao))
			gl.BindBuffer(gl.ARRAY_BUFFER, uint32(sl.inst))
			base := uintptr(it[1]) * instStride
			gl.VertexAttribIPointerWithOffset(8, 1, gl.UNSIGNED_INT, instStride, base)
			gl.VertexAttribPointerWithOffset(9, 4, gl.UNSIGNED_BYTE, true, instStride, base+4)
			gl.VertexAttribIPointerWithOffset(10, 1, gl.UNSIGNED_INT, instStride, base+8)
			gl.DrawElementsInstanced(gl.TRIANGLES, p.indices, gl.UNSIGNED_INT, nil, it[2])
		}
	}
	gl.BindBuffer(gl.ARRAY_BUFFER, 0)
	gl.BindVertexArray(0)
	if view == ViewWireframe {
		gl.PolygonMode(gl.FRONT_AND_BACK, gl.FILL)
	}
	sc.unbindMaterial(bound)
	for _, u := range [...]uint32{skinTextureUnit, morphTextureUnit, morphWeightUnit} {
		gl.ActiveTexture(gl.TEXTURE0 + u)
		gl.BindTexture(gl.TEXTURE_BUFFER, 0)
	}
	gl.ActiveTexture(gl.TEXTURE0)
	debugCheck("draw skins")
	return nil
}

func (s *skinPass) delete() {
	s.joint.Delete()
	s.vao.Delete()
	if s.feedback != 0 {
		gl.DeleteTransformFeedbacks(1, &s.feedback)
		s.feedback = 0
	}
	s.mats.Delete()
	s.ibmBuf.Delete()
	s.matTex.Delete()
	s.ibmTex.Delete()
	for i := range s.slots {
		sl := &s.slots[i]
		sl.buf.Delete()
		sl.tags.Delete()
		sl.inst.Delete()
		sl.wbuf.Delete()
		sl.wtags.Delete()
	}
	if s.morph != nil {
		s.morph.delete()
	}
	for i := range s.models {
		for k := range s.models[i].parts {
			s.models[i].parts[k].delete()
		}
	}
	for _, p := range s.programs {
		p.prog.Delete()
	}
}
