package renderer

import (
	"errors"
	"fmt"
	"math"
	"unsafe"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/shaders"
	"github.com/tickframe/tickframe/simthread"
)

// bodyStride is the size of one snapshot body as uploaded: simthread.Body
// as it is.
const bodyStride = int32(unsafe.Sizeof(simthread.Body{}))

// Offsets of simthread.Body's fields, which the attribute layout reads.
const (
	offPos   = uintptr(unsafe.Offsetof(simthread.Body{}.Pos))   // vec3
	offRot   = uintptr(unsafe.Offsetof(simthread.Body{}.Rot))   // vec4: W X Y Z
	offScale = uintptr(unsafe.Offsetof(simthread.Body{}.Scale)) // vec3
	offColor = uintptr(unsafe.Offsetof(simthread.Body{}.Color)) // 4 × u8
	offEpoch = uintptr(unsafe.Offsetof(simthread.Body{}.Epoch)) // u32
)

// The layout simthread.Body documents and interp.vert reads: a change to
// Body that moves a field fails to compile here rather than drawing
// garbage.
var (
	_ [76]byte = [bodyStride]byte{}
	_ [0]byte  = [offPos]byte{}
	_ [12]byte = [offRot]byte{}
	_ [28]byte = [offScale]byte{}
	_ [40]byte = [offColor]byte{}
	_ [44]byte = [offEpoch]byte{}
)

// poseStride is the size of one interpolated pose: position, orientation,
// scale, linear tint (four vec4). The probe reads its first 48 bytes.
const poseStride = 64

// feedbackVaryings are interp.vert's outputs, captured in this order.
var feedbackVaryings = []string{"oPos", "oRot", "oScale", "oAlbedo"}

// Vertex attribute locations of body.vert.
const (
	locVertex = 0 // aPos, aNormal, aUV: 0–2
	locPose   = 3 // iPos, iRot, iScale, iTint: 3–6
	locMore   = 7 // aUV1, aColor, aTangent: 7–9
)

// slot is one snapshot buffer of the ring, and what the renderer derived
// from its snapshot when it was uploaded.
type slot struct {
	buf   glBuffer // the snapshot's bodies, as they are
	seq   uint64   // acquire sequence number held, 0: none
	count int      // bodies held
	// sorted is true when the bodies are already grouped by mesh and
	// material (keys in order): the interpolation pass then reads them in
	// order. Else order holds the body indices grouped (perm, its copy on
	// the CPU), and the pass reads them through it.
	sorted bool
	order  glBuffer
	perm   []uint32
	// items are the frame's draw calls for this snapshot: one per mesh
	// part and material, with its range of the pose buffer.
	items []drawItem
	// probeAt is where Options.ProbeBody's pose lands in the pose buffer,
	// −1 when the snapshot has no such body.
	probeAt int
	// drawSeq is the opaque (and masked) items, drawn first in order;
	// blend, the blended parts of each body, sorted back to front each
	// frame (see anchor and drawOrder).
	drawSeq []int32
	blend   []blendEntry
}

// drawItem is one instanced draw call: part's mesh part drawn with
// material mat for count bodies, whose poses start at pose first.
type drawItem struct {
	part         int32
	mat          uint16
	first, count int32
}

// itemVAO is a vertex array set up for a draw item: the part's vertices
// and the item's range of the pose buffer. Draw
// items and vertex arrays are matched by position in the frame's list;
// one is set up again only when what it points at changes, so a steady
// scene draws each item with one bind and one call.
type itemVAO struct {
	vao          glVertexArray
	part         int32
	mat          uint16
	first        int32
	gen          uint64 // bodyPass.gen it was set up under
	initialized  bool
	vertexBuffer glBuffer
}

// bodyPass draws every body with one interpolation pass and one
// instanced draw call per mesh part and material.
//
// Its snapshot buffers mirror the render side's snapshot history one to
// one: slot i holds the snapshot that was the i-th acquired (mod the
// history depth), uploaded once when it arrived. Each frame, the
// interpolation pass (interp.vert, one point per body, rasterizer off)
// reads the two slots of the frame's plan, moves every body in the plan's
// motion mode (lerp and slerp, Hermite, or extrapolation with the
// correction offsets of motionPass) with one set of uniforms and captures
// the poses with transform feedback, in the order of the newer slot's
// bodies grouped by mesh and material;
// the draw pass (body.vert) draws each group's range of poses as
// instances of its mesh. The CPU's work per frame is a handful of GL calls
// per draw item whatever the body count; grouping costs O(n) once per
// snapshot, when it is uploaded.
//
// Every slot's storage, and the pose buffer's, holds slotCap bodies, at
// least as many as any slot holds: the interpolation pass fetches the
// older slot's attributes for every body of the newer one, also for the
// bodies spawned since (the shader then ignores those values), and OpenGL
// 4.1 core leaves a fetch past a buffer's storage undefined (robust buffer
// access is an extension it does not promise).
type bodyPass struct {
	interp               glProgram
	interpVAO            glVertexArray
	poses                glBuffer
	feedback             uint32 // transform feedback object
	slotCap              int    // bodies every slot's storage and the pose buffer hold
	slots                []slot
	boundPrev, boundNext int
	uAlpha, uPrevCount   int32
	probeBody            int        // Options.ProbeBody
	motion               motionPass // the hermite and extrapolate modes' uniforms, attributes and offsets

	scene
	// gen counts reallocations of buffers that the item vertex arrays
	// point into (the pose buffer, the material buffer).
	gen  uint64
	vaos []itemVAO
	// grouper is the grouping's scratch memory (see group).
	grouper grouper
	// bound is what the frame's draw calls have bound (material.go).
	bound boundMaterial
	// blendVAOs are the vertex arrays of the blended entries, one body's
	// part each (blendEntry.vao).
	blendVAOs []itemVAO
	// view is how bodies are shaded (Renderer.SetView).
	view View

	// Knobs that break the GPU path on purpose, set by tests only (see
	// export_test.go), to prove that the read-back tests catch a broken
	// path: alphaBias is added to every frame's alpha; staleOnMiss makes
	// ensure tag a slot with a snapshot it never uploaded, as a renderer
	// that trusted frames to arrive in order would.
	alphaBias   float32
	staleOnMiss bool
}

func newBodyPass(history, probeBody int) (b *bodyPass, err error) {
	b = &bodyPass{
		slots:     make([]slot, history),
		boundPrev: -1,
		boundNext: -1,
		probeBody: probeBody,
	}
	pass := b // b is nil once a failure returns
	defer func() {
		if err != nil {
			pass.delete()
		}
	}()
	if b.interp, err = loadShaderProgram(shaders.FS, "interp.vert", "", feedbackVaryings...); err != nil {
		return nil, err
	}
	b.uAlpha = b.interp.uniform("uAlpha")
	b.uPrevCount = b.interp.uniform("uPrevCount")
	if err = b.motion.init(b.interp); err != nil {
		return nil, err
	}
	for i := range b.slots {
		b.slots[i].buf = newBuffer()
		b.slots[i].order = newBuffer()
		b.slots[i].probeAt = -1
	}
	gl.GenTransformFeedbacks(1, &b.feedback)

	// The interpolation pass reads snapshot bodies as vertices; bind()
	// points its attributes at the bracket's two slots.
	b.interpVAO = newVertexArray()
	gl.BindVertexArray(uint32(b.interpVAO))
	for loc := uint32(0); loc <= 7; loc++ {
		gl.EnableVertexAttribArray(loc)
	}
	gl.BindVertexArray(0)
	// Storage comes with the first snapshot that has bodies (grow); until
	// then the pose buffer has none and nothing is drawn.
	b.poses = newBuffer()
	b.bindPoses()
	if err := b.scene.init(); err != nil {
		return nil, err
	}
	if err := checkGL("create body pass"); err != nil {
		return nil, err
	}
	return b, nil
}

// ensure returns the slots holding the plan's two snapshots, uploading
// each that no slot holds into the slot with the oldest snapshot (never
// the one the other end of the bracket is in). It returns the first GL
// error it met (see upload); the slots it returns are safe to draw even
// then.
func (b *bodyPass) ensure(plan *Plan) (prev, next int, err error) {
	next = b.find(plan.NextSeq)
	if next < 0 {
		next = b.victim(-1)
		err = b.upload(next, plan.NextSeq, plan.Next.Bodies)
	}
	if plan.PrevSeq == plan.NextSeq {
		return next, next, err
	}
	prev = b.find(plan.PrevSeq)
	if prev < 0 {
		prev = b.victim(next)
		if e := b.upload(prev, plan.PrevSeq, plan.Prev.Bodies); err == nil {
			err = e
		}
	}
	return prev, next, err
}

// find returns the slot holding sequence number seq, or -1.
func (b *bodyPass) find(seq uint64) int {
	for i := range b.slots {
		if s := b.slots[i].seq; s == seq && s != 0 {
			return i
		}
	}
	return -1
}

// victim returns the slot holding the oldest snapshot (or none), other
// than keep.
func (b *bodyPass) victim(keep int) int {
	v := -1
	for i := range b.slots {
		if i != keep && (v < 0 || b.slots[i].seq < b.slots[v].seq) {
			v = i
		}
	}
	return v
}

// upload copies a snapshot's bodies into ring slot i, groups them by mesh
// and material, and tags the slot with the snapshot's sequence number,
// growing every slot first when the snapshot does not fit. If growing
// fails (GL_OUT_OF_MEMORY), the storage stays as it was, the slot gets the
// bodies that fit and no tag, so the next frame tries again, and upload
// returns the error. It also returns any GL error raised before it that it
// had to take out of GL's queue to tell a failed allocation apart.
func (b *bodyPass) upload(i int, seq uint64, bodies []simthread.Body) error {
	var err error
	n := len(bodies)
	if n > b.slotCap {
		err = checkGL("frame")
		// Headroom, so that a few spawns do not reallocate.
		if gerr := b.grow(n+n/4+64, i); gerr != nil {
			err, n = errors.Join(err, gerr), b.slotCap
		}
	}
	s := &b.slots[i]
	stale := b.staleOnMiss && s.seq != 0
	s.count, s.seq = n, seq
	if n < len(bodies) {
		s.seq = 0
	}
	if n > 0 && !stale {
		gl.BindBuffer(gl.ARRAY_BUFFER, uint32(s.buf))
		gl.BufferSubData(gl.ARRAY_BUFFER, 0, n*int(bodyStride), unsafe.Pointer(&bodies[0]))
		gl.BindBuffer(gl.ARRAY_BUFFER, 0)
	}
	b.group(s, bodies[:n])
	b.anchor(s, bodies[:n])
	if !s.sorted && n > 0 {
		gl.BindBuffer(gl.ARRAY_BUFFER, uint32(s.order))
		gl.BufferSubData(gl.ARRAY_BUFFER, 0, n*4, unsafe.Pointer(&s.perm[0]))
		gl.BindBuffer(gl.ARRAY_BUFFER, 0)
	}
	b.ensureVAOs(len(s.items))
	debugCheck("upload bodies")
	return err
}

// grow gives every ring slot, its order buffer and the pose buffer storage
// for capacity bodies. Every slot grows, not only the one that needs to
// (see bodyPass). Each is reallocated into a new buffer and its contents
// copied over on the GPU (glCopyBufferSubData, no round trip), except slot
// skip's, which is about to be overwritten; the pose buffer is rewritten
// every frame and needs no copy. The old buffers are deleted only once
// every new one has its storage, so a failure leaves the pass as it was.
func (b *bodyPass) grow(capacity, skip int) error {
	n := len(b.slots)
	fresh := make([]glBuffer, 2*n+1) // bodies, orders, then the pose buffer
	for i := range fresh {
		fresh[i] = newBuffer()
		gl.BindBuffer(gl.COPY_WRITE_BUFFER, uint32(fresh[i]))
		switch {
		case i == 2*n:
			gl.BufferData(gl.COPY_WRITE_BUFFER, capacity*poseStride, nil, gl.DYNAMIC_COPY)
		case i >= n:
			gl.BufferData(gl.COPY_WRITE_BUFFER, capacity*4, nil, gl.STREAM_DRAW)
		default:
			gl.BufferData(gl.COPY_WRITE_BUFFER, capacity*int(bodyStride), nil, gl.STREAM_DRAW)
		}
	}
	gl.BindBuffer(gl.COPY_WRITE_BUFFER, 0)
	if err := checkGL(fmt.Sprintf("grow snapshot buffers to %d bodies", capacity)); err != nil {
		for i := range fresh {
			fresh[i].Delete()
		}
		return err
	}
	cp := func(from, to glBuffer, size int) {
		gl.BindBuffer(gl.COPY_READ_BUFFER, uint32(from))
		gl.BindBuffer(gl.COPY_WRITE_BUFFER, uint32(to))
		gl.CopyBufferSubData(gl.COPY_READ_BUFFER, gl.COPY_WRITE_BUFFER, 0, 0, size)
	}
	for i := range b.slots {
		s := &b.slots[i]
		if i != skip && s.count > 0 {
			cp(s.buf, fresh[i], s.count*int(bodyStride))
			if !s.sorted {
				cp(s.order, fresh[n+i], s.count*4)
			}
		}
		s.buf.Delete()
		s.order.Delete()
		s.buf, s.order = fresh[i], fresh[n+i]
	}
	gl.BindBuffer(gl.COPY_READ_BUFFER, 0)
	gl.BindBuffer(gl.COPY_WRITE_BUFFER, 0)
	old := b.poses
	b.poses = fresh[2*n]
	b.bindPoses()
	old.Delete()
	b.slotCap = capacity
	b.boundPrev, b.boundNext = -1, -1 // the interpolation VAO names the old buffers
	b.gen++                           // and so do the draw items'
	return checkGL("copy snapshot buffers")
}

// bindPoses points the transform feedback at the pose buffer.
func (b *bodyPass) bindPoses() {
	gl.BindTransformFeedback(gl.TRANSFORM_FEEDBACK, b.feedback)
	gl.BindBufferBase(gl.TRANSFORM_FEEDBACK_BUFFER, 0, uint32(b.poses))
	gl.BindTransformFeedback(gl.TRANSFORM_FEEDBACK, 0)
}

// bind points the interpolation pass's previous and next attributes at
// ring slots prev and next, and its element buffer at next's order; it
// does nothing when they are already bound. The interpolation VAO must be
// bound.
func (b *bodyPass) bind(prev, next int) {
	if prev == b.boundPrev && next == b.boundNext {
		return
	}
	gl.BindBuffer(gl.ARRAY_BUFFER, uint32(b.slots[prev].buf))
	gl.VertexAttribPointerWithOffset(0, 3, gl.FLOAT, false, bodyStride, offPos)
	gl.VertexAttribPointerWithOffset(1, 4, gl.FLOAT, false, bodyStride, offRot)
	gl.VertexAttribIPointerWithOffset(2, 1, gl.UNSIGNED_INT, bodyStride, offEpoch)
	gl.BindBuffer(gl.ARRAY_BUFFER, uint32(b.slots[next].buf))
	gl.VertexAttribPointerWithOffset(3, 3, gl.FLOAT, false, bodyStride, offPos)
	gl.VertexAttribPointerWithOffset(4, 4, gl.FLOAT, false, bodyStride, offRot)
	gl.VertexAttribPointerWithOffset(5, 4, gl.UNSIGNED_BYTE, true, bodyStride, offColor)
	gl.VertexAttribIPointerWithOffset(6, 1, gl.UNSIGNED_INT, bodyStride, offEpoch)
	gl.VertexAttribPointerWithOffset(7, 3, gl.FLOAT, false, bodyStride, offScale)
	gl.BindBuffer(gl.ARRAY_BUFFER, 0)
	gl.BindBuffer(gl.ELEMENT_ARRAY_BUFFER, uint32(b.slots[next].order))
	debugCheck("bind snapshot slots")
	b.boundPrev, b.boundNext = prev, next
}

// interpolate runs the interpolation pass: the poses of the bodies of slot
// next, moved from slot prev as plan says (its motion mode, alpha, span,
// prediction and correction), into the pose buffer, in next's grouped
// order. It returns the number of poses, and the first GL error of growing
// the extrapolate mode's offset buffers (the frame is then drawn without
// the offsets).
func (b *bodyPass) interpolate(prev, next int, plan *Plan) (int, error) {
	s := &b.slots[next]
	n := s.count
	if n == 0 {
		return 0, nil
	}
	gl.BindVertexArray(uint32(b.interpVAO))
	b.bind(prev, next)
	gl.UseProgram(uint32(b.interp))
	err := b.motion.setup(b, prev, next, plan)
	gl.Uniform1f(b.uAlpha, plan.Alpha+b.alphaBias)
	gl.Uniform1i(b.uPrevCount, int32(b.slots[prev].count))
	gl.Enable(gl.RASTERIZER_DISCARD)
	gl.BindTransformFeedback(gl.TRANSFORM_FEEDBACK, b.feedback)
	gl.BeginTransformFeedback(gl.POINTS)
	if s.sorted {
		gl.DrawArrays(gl.POINTS, 0, int32(n))
	} else {
		gl.DrawElements(gl.POINTS, int32(n), gl.UNSIGNED_INT, nil)
	}
	gl.EndTransformFeedback()
	gl.BindTransformFeedback(gl.TRANSFORM_FEEDBACK, 0)
	gl.Disable(gl.RASTERIZER_DISCARD)
	gl.BindVertexArray(0)
	debugCheck("interpolate bodies")
	return n, err
}

// probeAt returns where body Options.ProbeBody's pose is in the pose
// buffer after a frame whose newer slot is next, or −1.
func (b *bodyPass) probeAt(next int) int { return b.slots[next].probeAt }

// drawBodies draws slot next's items from the pose buffer, which
// interpolate wrote, frame being the frame's id.
func (b *bodyPass) drawBodies(next, n int, viewProj *mgl32.Mat4, eye mgl32.Vec3, frame uint64) {
	if n == 0 {
		return
	}
	s := &b.slots[next]
	items := s.items
	var cur *program
	b.bound.reset()
	if b.view == ViewWireframe {
		gl.PolygonMode(gl.FRONT_AND_BACK, gl.LINE)
	}
	// Opaque and masked items first, in order; then the blended parts,
	// one body at a time, back to front, without writing depth (see
	// Material.AlphaMode).
	for _, j := range s.drawSeq {
		it := &items[j]
		v := &b.vaos[j]
		if !v.initialized || v.part != it.part || v.mat != it.mat || v.first != it.first || v.gen != b.gen {
			b.point(v, it)
		}
		cur = b.drawItem(v, it, cur, viewProj, eye, frame)
	}
	if blend := b.drawOrder(s, eye); len(blend) > 0 {
		gl.Enable(gl.BLEND)
		// The frame's own alpha stays 1: screenshots are opaque.
		gl.BlendFuncSeparate(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA, gl.ZERO, gl.ONE)
		gl.DepthMask(false)
		for k := range blend {
			e := &blend[k]
			it := drawItem{part: items[e.item].part, mat: items[e.item].mat, first: e.pose, count: 1}
			v := &b.blendVAOs[e.vao]
			if !v.initialized || v.part != it.part || v.mat != it.mat || v.first != it.first || v.gen != b.gen {
				b.point(v, &it)
			}
			cur = b.drawItem(v, &it, cur, viewProj, eye, frame)
		}
		gl.DepthMask(true)
		gl.Disable(gl.BLEND)
	}
	gl.BindVertexArray(0)
	if b.view == ViewWireframe {
		gl.PolygonMode(gl.FRONT_AND_BACK, gl.FILL)
	}
	b.unbindMaterial(&b.bound)
}

// drawItem draws item it through vertex array v, with its material's
// program (cur is the program in use; it returns the one it used).
func (b *bodyPass) drawItem(v *itemVAO, it *drawItem, cur *program, viewProj *mgl32.Mat4, eye mgl32.Vec3, frame uint64) *program {
	m := &b.materials[it.mat]
	if p := &b.programs[m.program]; p != cur {
		cur = p
		gl.UseProgram(uint32(p.prog))
		if p.frame != frame {
			// Uniforms are the program's state: once a frame each.
			p.frame = frame
			gl.UniformMatrix4fv(p.uViewProj, 1, false, &viewProj[0])
			gl.Uniform3f(p.uEye, eye[0], eye[1], eye[2])
			gl.Uniform1i(p.uView, int32(b.view))
		}
	}
	b.bindMaterial(&b.bound, it.mat)
	gl.BindVertexArray(uint32(v.vao))
	gl.DrawElementsInstanced(gl.TRIANGLES, b.parts[it.part].indices, gl.UNSIGNED_INT, nil, it.count)
	debugCheck("draw bodies")
	return cur
}

// ensureVAOs makes sure there is a vertex array for each of n draw items.
func (b *bodyPass) ensureVAOs(n int) {
	for len(b.vaos) < n {
		b.vaos = append(b.vaos, itemVAO{vao: newVertexArray()})
	}
}

// point sets vertex array v up for draw item it: the part's vertices and
// indices, the item's poses (attribute offsets first·poseStride: OpenGL
// 4.1 has no base instance), the material's parameters.
func (b *bodyPass) point(v *itemVAO, it *drawItem) {
	p := &b.parts[it.part]
	gl.BindVertexArray(uint32(v.vao))
	if !v.initialized || v.vertexBuffer != p.vbo {
		gl.BindBuffer(gl.ARRAY_BUFFER, uint32(p.vbo))
		gl.VertexAttribPointerWithOffset(locVertex, 3, gl.FLOAT, false, vertexStride, 0)
		gl.VertexAttribPointerWithOffset(locVertex+1, 3, gl.FLOAT, false, vertexStride, 12)
		gl.VertexAttribPointerWithOffset(locVertex+2, 2, gl.FLOAT, false, vertexStride, 24)
		gl.VertexAttribPointerWithOffset(locMore, 2, gl.FLOAT, false, vertexStride, 32)
		gl.VertexAttribPointerWithOffset(locMore+1, 4, gl.FLOAT, false, vertexStride, 40)
		gl.VertexAttribPointerWithOffset(locMore+2, 4, gl.FLOAT, false, vertexStride, 56)
		gl.BindBuffer(gl.ELEMENT_ARRAY_BUFFER, uint32(p.ebo))
		v.vertexBuffer = p.vbo
	}
	if !v.initialized {
		for loc := uint32(0); loc <= locMore+2; loc++ {
			gl.EnableVertexAttribArray(loc)
		}
		for loc := uint32(locPose); loc < locPose+4; loc++ {
			gl.VertexAttribDivisor(loc, 1)
		}
		v.initialized = true
	}
	gl.BindBuffer(gl.ARRAY_BUFFER, uint32(b.poses))
	base := uintptr(it.first) * poseStride
	for k := uint32(0); k < 4; k++ {
		gl.VertexAttribPointerWithOffset(locPose+k, 4, gl.FLOAT, false, poseStride, base+uintptr(k)*16)
	}
	gl.BindBuffer(gl.ARRAY_BUFFER, 0)
	v.part, v.mat, v.first, v.gen = it.part, it.mat, it.first, b.gen
	debugCheck("set up draw item")
}

func (b *bodyPass) delete() {
	b.interp.Delete()
	b.interpVAO.Delete()
	b.motion.delete()
	b.poses.Delete()
	if b.feedback != 0 {
		gl.DeleteTransformFeedbacks(1, &b.feedback)
		b.feedback = 0
	}
	for i := range b.slots {
		b.slots[i].buf.Delete()
		b.slots[i].order.Delete()
	}
	for i := range b.vaos {
		b.vaos[i].vao.Delete()
	}
	for i := range b.blendVAOs {
		b.blendVAOs[i].vao.Delete()
	}
	b.scene.delete()
}

// cube returns a cube of half-extent 1 (scaled per instance) with one
// normal per face and each face's UVs spanning [0, 1]²: 24 vertices, 36
// indices.
func cube() Part {
	faces := [6][3]mgl32.Vec3{
		// normal, then two in-plane axes whose cross product is the normal
		{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}},
		{{-1, 0, 0}, {0, 0, 1}, {0, 1, 0}},
		{{0, 1, 0}, {0, 0, 1}, {1, 0, 0}},
		{{0, -1, 0}, {1, 0, 0}, {0, 0, 1}},
		{{0, 0, 1}, {1, 0, 0}, {0, 1, 0}},
		{{0, 0, -1}, {0, 1, 0}, {1, 0, 0}},
	}
	var p Part
	for f, face := range faces {
		n, u, w := face[0], face[1], face[2]
		for _, c := range [4][2]float32{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}} {
			p.Positions = append(p.Positions, n.Add(u.Mul(c[0])).Add(w.Mul(c[1])))
			p.Normals = append(p.Normals, n)
			p.UVs = append(p.UVs, mgl32.Vec2{(c[0] + 1) / 2, (1 - c[1]) / 2})
		}
		base := uint32(f * 4)
		p.Indices = append(p.Indices, base, base+1, base+2, base, base+2, base+3)
	}
	return p
}

// finite reports whether every float is finite.
func finite(fs ...float32) bool {
	for _, f := range fs {
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
			return false
		}
	}
	return true
}
