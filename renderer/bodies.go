package renderer

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/renderer/interp"
	"github.com/tickframe/tickframe/shaders"
	"github.com/tickframe/tickframe/simthread"
)

// bodyStride is the size of one snapshot body as uploaded: simthread.Body
// as it is.
const bodyStride = int32(unsafe.Sizeof(simthread.Body{}))

// Offsets of simthread.Body's fields, which the attribute layout reads.
var (
	offPos   = uintptr(unsafe.Offsetof(simthread.Body{}.Pos))   // vec4: Pos, Scale
	offRot   = uintptr(unsafe.Offsetof(simthread.Body{}.Rot))   // vec4: W X Y Z
	offColor = uintptr(unsafe.Offsetof(simthread.Body{}.Color)) // 4 × u8
	offEpoch = uintptr(unsafe.Offsetof(simthread.Body{}.Epoch)) // u32
)

// poseStride is the size of one interpolated pose: position and scale,
// orientation, linear colour (three vec4).
const poseStride = 48

// Feedback are interp.vert's outputs, captured in this order.
var Feedback = []string{"oPosScale", "oRot", "oAlbedo"}

// bodyPass draws every body with two GPU passes and one draw call each.
//
// Its snapshot buffers mirror the render side's snapshot history one to
// one: slot i holds the snapshot that was the i-th acquired (mod the
// history depth), uploaded once when it arrived. Each frame, the
// interpolation pass (interp.vert, one point per body, rasterizer off)
// reads the two slots of the frame's bracket, lerps and slerps every body
// with one alpha uniform and captures the poses with transform feedback;
// the draw pass (body.vert) draws one instanced mesh at those poses. The
// CPU's work per frame is a handful of GL calls whatever the body count.
//
// Every slot's storage, and the pose buffer's, holds slotCap bodies, at
// least as many as any slot holds: the interpolation pass fetches the
// older slot's attributes for every body of the newer one, also for the
// bodies spawned since (the shader then ignores those values), and OpenGL
// 4.1 core leaves a fetch past a buffer's storage undefined (robust buffer
// access is an extension it does not promise).
type bodyPass struct {
	interp, draw         Program
	interpVAO, drawVAO   VertexArray
	mesh, index, poses   Buffer
	feedback             uint32 // transform feedback object
	slotCap              int    // bodies every slot's storage and the pose buffer hold
	ring                 []Buffer
	seq                  []uint64 // acquire sequence number each slot holds, 0: none
	count                []int    // bodies in each slot
	boundPrev, boundNext int
	uAlpha, uPrevCount   int32
	uViewProj, uEye, uLD int32

	// Knobs that break the GPU path on purpose, set by tests only (see
	// export_test.go), to prove that the read-back tests catch a broken
	// path: alphaBias is added to every frame's alpha; staleOnMiss makes
	// ensure tag a slot with a snapshot it never uploaded, as a renderer
	// that trusted frames to arrive in order would.
	alphaBias   float32
	staleOnMiss bool
}

func newBodyPass(history int) (b *bodyPass, err error) {
	b = &bodyPass{
		ring:      make([]Buffer, history),
		seq:       make([]uint64, history),
		count:     make([]int, history),
		boundPrev: -1,
		boundNext: -1,
	}
	defer func() {
		if err != nil {
			b.delete()
		}
	}()
	if b.interp, err = LoadProgram(shaders.FS, "interp.vert", "", Feedback...); err != nil {
		return nil, err
	}
	if b.draw, err = LoadProgram(shaders.FS, "body.vert", "lit.frag"); err != nil {
		return nil, err
	}
	b.uAlpha = b.interp.uniform("uAlpha")
	b.uPrevCount = b.interp.uniform("uPrevCount")
	b.uViewProj = b.draw.uniform("uViewProj")
	b.uEye = b.draw.uniform("uEye")
	b.uLD = b.draw.uniform("uLightDir")

	for i := range b.ring {
		b.ring[i] = newBuffer()
	}
	gl.GenTransformFeedbacks(1, &b.feedback)

	// The interpolation pass reads snapshot bodies as vertices; bind()
	// points its attributes at the bracket's two slots.
	b.interpVAO = newVertexArray()
	gl.BindVertexArray(uint32(b.interpVAO))
	for loc := uint32(0); loc <= 6; loc++ {
		gl.EnableVertexAttribArray(loc)
	}

	// The draw pass: the mesh per vertex, the poses per instance.
	b.drawVAO = newVertexArray()
	gl.BindVertexArray(uint32(b.drawVAO))
	verts, idx := cube()
	b.mesh = newBuffer()
	gl.BindBuffer(gl.ARRAY_BUFFER, uint32(b.mesh))
	gl.BufferData(gl.ARRAY_BUFFER, len(verts)*4, unsafe.Pointer(&verts[0]), gl.STATIC_DRAW)
	gl.EnableVertexAttribArray(0)
	gl.VertexAttribPointerWithOffset(0, 3, gl.FLOAT, false, 24, 0)
	gl.EnableVertexAttribArray(1)
	gl.VertexAttribPointerWithOffset(1, 3, gl.FLOAT, false, 24, 12)
	b.index = newBuffer()
	gl.BindBuffer(gl.ELEMENT_ARRAY_BUFFER, uint32(b.index))
	gl.BufferData(gl.ELEMENT_ARRAY_BUFFER, len(idx)*2, unsafe.Pointer(&idx[0]), gl.STATIC_DRAW)
	for loc := uint32(2); loc <= 4; loc++ {
		gl.EnableVertexAttribArray(loc)
		gl.VertexAttribDivisor(loc, 1)
	}
	gl.BindVertexArray(0)
	// Storage comes with the first snapshot that has bodies (grow); until
	// then the pose buffer has none and nothing is drawn.
	b.poses = newBuffer()
	b.bindPoses()
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
func (b *bodyPass) ensure(plan *interp.Plan) (prev, next int, err error) {
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
	for i, s := range b.seq {
		if s == seq && s != 0 {
			return i
		}
	}
	return -1
}

// victim returns the slot holding the oldest snapshot (or none), other
// than keep.
func (b *bodyPass) victim(keep int) int {
	v := -1
	for i, s := range b.seq {
		if i != keep && (v < 0 || s < b.seq[v]) {
			v = i
		}
	}
	return v
}

// upload copies a snapshot's bodies into ring slot i and tags the slot
// with the snapshot's sequence number, growing every slot first when the
// snapshot does not fit. If growing fails (GL_OUT_OF_MEMORY), the storage
// stays as it was, the slot gets the bodies that fit and no tag, so the
// next frame tries again, and upload returns the error. It also returns
// any GL error raised before it that it had to take out of GL's queue to
// tell a failed allocation apart.
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
	stale := b.staleOnMiss && b.seq[i] != 0
	b.count[i], b.seq[i] = n, seq
	if n < len(bodies) {
		b.seq[i] = 0
	}
	if n > 0 && !stale {
		gl.BindBuffer(gl.ARRAY_BUFFER, uint32(b.ring[i]))
		gl.BufferSubData(gl.ARRAY_BUFFER, 0, n*int(bodyStride), unsafe.Pointer(&bodies[0]))
		gl.BindBuffer(gl.ARRAY_BUFFER, 0)
	}
	debugCheck("upload bodies")
	return err
}

// grow gives every ring slot, and the pose buffer, storage for capacity
// bodies. Every slot grows, not only the one that needs to (see
// bodyPass). Each is reallocated into a new buffer and its bodies copied
// over on the GPU (glCopyBufferSubData, no round trip), except slot skip's,
// which is about to be overwritten; the pose buffer is rewritten every
// frame and needs no copy. The old buffers are deleted only once every new
// one has its storage, so a failure leaves the pass as it was.
func (b *bodyPass) grow(capacity, skip int) error {
	fresh := make([]Buffer, len(b.ring)+1) // the last: the pose buffer
	for i := range fresh {
		fresh[i] = newBuffer()
		gl.BindBuffer(gl.COPY_WRITE_BUFFER, uint32(fresh[i]))
		if i == len(b.ring) {
			gl.BufferData(gl.COPY_WRITE_BUFFER, capacity*poseStride, nil, gl.DYNAMIC_COPY)
		} else {
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
	for i := range b.ring {
		if i != skip && b.count[i] > 0 {
			gl.BindBuffer(gl.COPY_READ_BUFFER, uint32(b.ring[i]))
			gl.BindBuffer(gl.COPY_WRITE_BUFFER, uint32(fresh[i]))
			gl.CopyBufferSubData(gl.COPY_READ_BUFFER, gl.COPY_WRITE_BUFFER, 0, 0, b.count[i]*int(bodyStride))
		}
		b.ring[i].Delete()
		b.ring[i] = fresh[i]
	}
	gl.BindBuffer(gl.COPY_READ_BUFFER, 0)
	gl.BindBuffer(gl.COPY_WRITE_BUFFER, 0)
	old := b.poses
	b.poses = fresh[len(b.ring)]
	b.bindPoses()
	old.Delete()
	b.slotCap = capacity
	b.boundPrev, b.boundNext = -1, -1 // the interpolation VAO names the old buffers
	return checkGL("copy snapshot buffers")
}

// bindPoses points the transform feedback and the draw pass's instance
// attributes at the pose buffer.
func (b *bodyPass) bindPoses() {
	gl.BindTransformFeedback(gl.TRANSFORM_FEEDBACK, b.feedback)
	gl.BindBufferBase(gl.TRANSFORM_FEEDBACK_BUFFER, 0, uint32(b.poses))
	gl.BindTransformFeedback(gl.TRANSFORM_FEEDBACK, 0)
	gl.BindVertexArray(uint32(b.drawVAO))
	gl.BindBuffer(gl.ARRAY_BUFFER, uint32(b.poses))
	for loc := uint32(2); loc <= 4; loc++ {
		gl.VertexAttribPointerWithOffset(loc, 4, gl.FLOAT, false, poseStride, uintptr(loc-2)*16)
	}
	gl.BindVertexArray(0)
	gl.BindBuffer(gl.ARRAY_BUFFER, 0)
}

// bind points the interpolation pass's previous and next attributes at
// ring slots prev and next; it does nothing when they are already bound.
// The interpolation VAO must be bound.
func (b *bodyPass) bind(prev, next int) {
	if prev == b.boundPrev && next == b.boundNext {
		return
	}
	gl.BindBuffer(gl.ARRAY_BUFFER, uint32(b.ring[prev]))
	gl.VertexAttribPointerWithOffset(0, 4, gl.FLOAT, false, bodyStride, offPos)
	gl.VertexAttribPointerWithOffset(1, 4, gl.FLOAT, false, bodyStride, offRot)
	gl.VertexAttribIPointerWithOffset(2, 1, gl.UNSIGNED_INT, bodyStride, offEpoch)
	gl.BindBuffer(gl.ARRAY_BUFFER, uint32(b.ring[next]))
	gl.VertexAttribPointerWithOffset(3, 4, gl.FLOAT, false, bodyStride, offPos)
	gl.VertexAttribPointerWithOffset(4, 4, gl.FLOAT, false, bodyStride, offRot)
	gl.VertexAttribPointerWithOffset(5, 4, gl.UNSIGNED_BYTE, true, bodyStride, offColor)
	gl.VertexAttribIPointerWithOffset(6, 1, gl.UNSIGNED_INT, bodyStride, offEpoch)
	debugCheck("bind snapshot slots")
	b.boundPrev, b.boundNext = prev, next
}

// interpolate runs the interpolation pass: the poses of the bodies of slot
// next, interpolated from slot prev by alpha, into the pose buffer.
func (b *bodyPass) interpolate(prev, next int, alpha float32) int {
	n := b.count[next]
	if n == 0 {
		return 0
	}
	gl.BindVertexArray(uint32(b.interpVAO))
	b.bind(prev, next)
	gl.UseProgram(uint32(b.interp))
	gl.Uniform1f(b.uAlpha, alpha+b.alphaBias)
	gl.Uniform1i(b.uPrevCount, int32(b.count[prev]))
	gl.Enable(gl.RASTERIZER_DISCARD)
	gl.BindTransformFeedback(gl.TRANSFORM_FEEDBACK, b.feedback)
	gl.BeginTransformFeedback(gl.POINTS)
	gl.DrawArrays(gl.POINTS, 0, int32(n))
	gl.EndTransformFeedback()
	gl.BindTransformFeedback(gl.TRANSFORM_FEEDBACK, 0)
	gl.Disable(gl.RASTERIZER_DISCARD)
	gl.BindVertexArray(0)
	debugCheck("interpolate bodies")
	return n
}

// drawBodies draws the first n poses of the pose buffer, which
// interpolate wrote.
func (b *bodyPass) drawBodies(n int, viewProj *mgl32.Mat4, eye, lightDir mgl32.Vec3) {
	if n == 0 {
		return
	}
	gl.UseProgram(uint32(b.draw))
	gl.BindVertexArray(uint32(b.drawVAO))
	gl.UniformMatrix4fv(b.uViewProj, 1, false, &viewProj[0])
	gl.Uniform3f(b.uEye, eye[0], eye[1], eye[2])
	gl.Uniform3f(b.uLD, lightDir[0], lightDir[1], lightDir[2])
	gl.DrawElementsInstanced(gl.TRIANGLES, 36, gl.UNSIGNED_SHORT, nil, int32(n))
	debugCheck("draw bodies")
	gl.BindVertexArray(0)
}

func (b *bodyPass) delete() {
	b.interp.Delete()
	b.draw.Delete()
	b.interpVAO.Delete()
	b.drawVAO.Delete()
	b.mesh.Delete()
	b.index.Delete()
	b.poses.Delete()
	if b.feedback != 0 {
		gl.DeleteTransformFeedbacks(1, &b.feedback)
		b.feedback = 0
	}
	for i := range b.ring {
		b.ring[i].Delete()
	}
}

// cube returns a unit cube (half-extent 1, scaled per instance) with one
// normal per face: 24 vertices of position and normal, 36 indices.
func cube() ([]float32, []uint16) {
	faces := [6][3]mgl32.Vec3{
		// normal, then two in-plane axes whose cross product is the normal
		{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}},
		{{-1, 0, 0}, {0, 0, 1}, {0, 1, 0}},
		{{0, 1, 0}, {0, 0, 1}, {1, 0, 0}},
		{{0, -1, 0}, {1, 0, 0}, {0, 0, 1}},
		{{0, 0, 1}, {1, 0, 0}, {0, 1, 0}},
		{{0, 0, -1}, {0, 1, 0}, {1, 0, 0}},
	}
	var v []float32
	var idx []uint16
	for f, face := range faces {
		n, u, w := face[0], face[1], face[2]
		for _, c := range [4][2]float32{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}} {
			p := n.Add(u.Mul(c[0])).Add(w.Mul(c[1]))
			v = append(v, p[0], p[1], p[2], n[0], n[1], n[2])
		}
		base := uint16(f * 4)
		idx = append(idx, base, base+1, base+2, base, base+2, base+3)
	}
	return v, idx
}
