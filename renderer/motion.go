package renderer

import (
	"fmt"
	"unsafe"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/tickframe/tickframe/shaders"
	"github.com/tickframe/tickframe/simthread"
)

// Offsets of simthread.Body's velocities, which the hermite and
// extrapolate modes read.
const (
	offVel    = uintptr(unsafe.Offsetof(simthread.Body{}.Vel))    // vec3
	offAngVel = uintptr(unsafe.Offsetof(simthread.Body{}.AngVel)) // vec3
)

var (
	_ [52]byte = [offVel]byte{}
	_ [64]byte = [offAngVel]byte{}
)

// corrStride is the size of one body's correction offset: position (vec4,
// w unused) and rotation (vec4 quaternion).
const corrStride = 32

// Vertex attribute locations of interp.vert beyond the lerp's 0–7.
const (
	locVel  = 8  // iPrevVel, iPrevAngVel, iNextVel, iNextAngVel: 8–11
	locCorr = 12 // iCorrPos, iCorrRot: 12–13
)

// motionPass is what the interpolation pass needs for the hermite and
// extrapolate modes: its uniforms, which velocity and offset attributes
// its vertex array has enabled, and extrapolate's correction offsets.
//
// The offsets are per body state that lives on the GPU from frame to
// frame: the offset from the current basis's prediction to the drawn pose
// as it stood at the last switch of basis (see Correction). They
// must be found by body index whatever order the interpolation pass draws
// in (bodies grouped by mesh and material), and transform feedback writes
// in drawing order; so a pass of their own, correct.vert, runs at each
// switch, one point per body in body order, reading the offsets from one
// buffer and writing the new ones into the other, and interp.vert reads
// them as vertex attributes, which it fetches at the body's index.
// Between switches nothing is written: the frames only scale the offsets
// by the plan's Blend. The buffers are allocated when extrapolate first
// runs, and grow with the snapshot buffers (their storage must cover
// every body fetched, as theirs must).
type motionPass struct {
	uMotion, uSpan, uAhead, uBlend, uStateCount int32

	attribs   MotionMode // the modes whose attributes the interpolation VAO has enabled
	boundCorr glBuffer   // the offset buffer interp.vert's attributes point at
	// The slots (and bodyPass.gen) the velocity attributes point at, set
	// only for the modes that read them: a lerp frame makes no GL call
	// for them. hasVel is false until they are set.
	velPrev, velNext int
	velGen           uint64
	hasVel           bool
	// The uniforms last set (uniforms are the program's state): set again
	// only when they change, so that a lerp frame costs no GL call more
	// than before the motion modes.
	setMode MotionMode
	setOnce bool
	setSpan float32

	prog                                              glProgram // correct.vert
	vao                                               glVertexArray
	feedback                                          uint32
	uCarry, uPrevAhead, uCAhead, uCPrev, uCStateCount int32
	bufs                                              [2]glBuffer
	cur                                               int // bufs[cur] holds the offsets
	capacity                                          int // bodies each buffer holds
	count                                             int // bodies with an offset in bufs[cur]
}

// init looks up the interpolation program's motion uniforms and builds
// the correction pass.
func (m *motionPass) init(interpProg glProgram) (err error) {
	m.uMotion = interpProg.uniform("uMotion")
	m.uSpan = interpProg.uniform("uSpan")
	m.uAhead = interpProg.uniform("uAhead")
	m.uBlend = interpProg.uniform("uBlend")
	m.uStateCount = interpProg.uniform("uStateCount")
	if m.prog, err = loadShaderProgram(shaders.FS, "correct.vert", "", "oCorrPos", "oCorrRot"); err != nil {
		return err
	}
	m.uCarry = m.prog.uniform("uCarry")
	m.uPrevAhead = m.prog.uniform("uPrevAhead")
	m.uCAhead = m.prog.uniform("uAhead")
	m.uCPrev = m.prog.uniform("uPrevCount")
	m.uCStateCount = m.prog.uniform("uStateCount")
	m.vao = newVertexArray()
	gl.BindVertexArray(uint32(m.vao))
	for loc := uint32(0); loc <= 11; loc++ {
		gl.EnableVertexAttribArray(loc)
	}
	gl.BindVertexArray(0)
	gl.GenTransformFeedbacks(1, &m.feedback)
	return checkGL("create correction pass")
}

// reserve gives both offset buffers storage for capacity bodies, keeping
// the offsets held. On failure (GL_OUT_OF_MEMORY) the buffers stay as they
// were and it returns the error.
func (m *motionPass) reserve(capacity int) error {
	if m.capacity >= capacity {
		return nil
	}
	var fresh [2]glBuffer
	for i := range fresh {
		fresh[i] = newBuffer()
		gl.BindBuffer(gl.COPY_WRITE_BUFFER, uint32(fresh[i]))
		gl.BufferData(gl.COPY_WRITE_BUFFER, capacity*corrStride, nil, gl.DYNAMIC_COPY)
	}
	gl.BindBuffer(gl.COPY_WRITE_BUFFER, 0)
	if err := checkGL(fmt.Sprintf("grow correction offsets to %d bodies", capacity)); err != nil {
		fresh[0].Delete()
		fresh[1].Delete()
		return err
	}
	if m.count > 0 {
		gl.BindBuffer(gl.COPY_READ_BUFFER, uint32(m.bufs[m.cur]))
		gl.BindBuffer(gl.COPY_WRITE_BUFFER, uint32(fresh[m.cur]))
		gl.CopyBufferSubData(gl.COPY_READ_BUFFER, gl.COPY_WRITE_BUFFER, 0, 0, m.count*corrStride)
		gl.BindBuffer(gl.COPY_READ_BUFFER, 0)
		gl.BindBuffer(gl.COPY_WRITE_BUFFER, 0)
	}
	for i := range m.bufs {
		m.bufs[i].Delete()
		m.bufs[i] = fresh[i]
	}
	m.capacity = capacity
	return checkGL("copy correction offsets")
}

// correct runs the correction pass for a switch of basis from slot prev
// (the old basis) to slot next: every body of next gets its new offset.
// The offset buffers must hold next's bodies (reserve).
func (m *motionPass) correct(b *bodyPass, prev, next int, plan *Plan) {
	n := b.slots[next].count
	src, dst := m.bufs[m.cur], m.bufs[1-m.cur]
	gl.BindVertexArray(uint32(m.vao))
	gl.BindBuffer(gl.ARRAY_BUFFER, uint32(b.slots[prev].buf))
	gl.VertexAttribPointerWithOffset(0, 3, gl.FLOAT, false, bodyStride, offPos)
	gl.VertexAttribPointerWithOffset(1, 4, gl.FLOAT, false, bodyStride, offRot)
	gl.VertexAttribIPointerWithOffset(2, 1, gl.UNSIGNED_INT, bodyStride, offEpoch)
	gl.VertexAttribPointerWithOffset(3, 3, gl.FLOAT, false, bodyStride, offVel)
	gl.VertexAttribPointerWithOffset(4, 3, gl.FLOAT, false, bodyStride, offAngVel)
	gl.BindBuffer(gl.ARRAY_BUFFER, uint32(b.slots[next].buf))
	gl.VertexAttribPointerWithOffset(5, 3, gl.FLOAT, false, bodyStride, offPos)
	gl.VertexAttribPointerWithOffset(6, 4, gl.FLOAT, false, bodyStride, offRot)
	gl.VertexAttribIPointerWithOffset(7, 1, gl.UNSIGNED_INT, bodyStride, offEpoch)
	gl.VertexAttribPointerWithOffset(8, 3, gl.FLOAT, false, bodyStride, offVel)
	gl.VertexAttribPointerWithOffset(9, 3, gl.FLOAT, false, bodyStride, offAngVel)
	gl.BindBuffer(gl.ARRAY_BUFFER, uint32(src))
	gl.VertexAttribPointerWithOffset(10, 4, gl.FLOAT, false, corrStride, 0)
	gl.VertexAttribPointerWithOffset(11, 4, gl.FLOAT, false, corrStride, 16)
	gl.BindBuffer(gl.ARRAY_BUFFER, 0)
	gl.UseProgram(uint32(m.prog))
	gl.Uniform1f(m.uCarry, plan.Carry)
	gl.Uniform1f(m.uPrevAhead, plan.PrevAhead)
	gl.Uniform1f(m.uCAhead, plan.Ahead)
	gl.Uniform1i(m.uCPrev, int32(b.slots[prev].count))
	gl.Uniform1i(m.uCStateCount, int32(m.count))
	gl.Enable(gl.RASTERIZER_DISCARD)
	gl.BindTransformFeedback(gl.TRANSFORM_FEEDBACK, m.feedback)
	gl.BindBufferBase(gl.TRANSFORM_FEEDBACK_BUFFER, 0, uint32(dst))
	gl.BeginTransformFeedback(gl.POINTS)
	gl.DrawArrays(gl.POINTS, 0, int32(n))
	gl.EndTransformFeedback()
	gl.BindTransformFeedback(gl.TRANSFORM_FEEDBACK, 0)
	gl.Disable(gl.RASTERIZER_DISCARD)
	gl.BindVertexArray(0)
	debugCheck("correct bodies")
	m.cur, m.count = 1-m.cur, n
}

// setup prepares the interpolation pass for a frame of plan's mode, whose
// newer slot holds n bodies: the extrapolate mode's offsets (a correction
// pass at a switch of basis) and the attributes and uniforms of the mode.
// The interpolation vertex array must be bound (and is again on return)
// and the interpolation program in use. It returns the first GL error of
// growing the offset buffers; the frame is then drawn without offsets.
func (m *motionPass) setup(b *bodyPass, prev, next int, plan *Plan) (err error) {
	mode := plan.Motion
	stateCount, blend := 0, float32(0)
	if mode == MotionExtrapolate {
		if err = m.reserve(b.slotCap); err == nil {
			if plan.Switched {
				m.correct(b, prev, next, plan)
				gl.UseProgram(uint32(b.interp))
				gl.BindVertexArray(uint32(b.interpVAO))
			}
			stateCount, blend = m.count, plan.Blend
		}
	}
	m.enable(mode, err == nil)
	if m.attribs != MotionLerp && (!m.hasVel || m.velPrev != prev || m.velNext != next || m.velGen != b.gen) {
		gl.BindBuffer(gl.ARRAY_BUFFER, uint32(b.slots[prev].buf))
		gl.VertexAttribPointerWithOffset(locVel, 3, gl.FLOAT, false, bodyStride, offVel)
		gl.VertexAttribPointerWithOffset(locVel+1, 3, gl.FLOAT, false, bodyStride, offAngVel)
		gl.BindBuffer(gl.ARRAY_BUFFER, uint32(b.slots[next].buf))
		gl.VertexAttribPointerWithOffset(locVel+2, 3, gl.FLOAT, false, bodyStride, offVel)
		gl.VertexAttribPointerWithOffset(locVel+3, 3, gl.FLOAT, false, bodyStride, offAngVel)
		gl.BindBuffer(gl.ARRAY_BUFFER, 0)
		m.velPrev, m.velNext, m.velGen, m.hasVel = prev, next, b.gen, true
	}
	if m.attribs == MotionExtrapolate && m.boundCorr != m.bufs[m.cur] {
		gl.BindBuffer(gl.ARRAY_BUFFER, uint32(m.bufs[m.cur]))
		gl.VertexAttribPointerWithOffset(locCorr, 4, gl.FLOAT, false, corrStride, 0)
		gl.VertexAttribPointerWithOffset(locCorr+1, 4, gl.FLOAT, false, corrStride, 16)
		gl.BindBuffer(gl.ARRAY_BUFFER, 0)
		m.boundCorr = m.bufs[m.cur]
	}
	if !m.setOnce || mode != m.setMode {
		gl.Uniform1i(m.uMotion, int32(mode))
		m.setOnce, m.setMode = true, mode
	}
	switch mode {
	case MotionHermite:
		if plan.Span != m.setSpan {
			gl.Uniform1f(m.uSpan, plan.Span)
			m.setSpan = plan.Span
		}
	case MotionExtrapolate:
		gl.Uniform1f(m.uAhead, plan.Ahead)
		gl.Uniform1f(m.uBlend, blend)
		gl.Uniform1i(m.uStateCount, int32(stateCount))
	}
	debugCheck("set up motion")
	return err
}

// enable enables the interpolation vertex array's attributes that mode
// reads, and disables the others: the velocities for hermite and
// extrapolate, the offsets for extrapolate (when it has them). Attributes
// a mode does not read are not fetched. The vertex array must be bound.
func (m *motionPass) enable(mode MotionMode, offsets bool) {
	want := mode
	if mode == MotionExtrapolate && !offsets {
		want = MotionHermite // velocities, no offsets
	}
	if want == m.attribs {
		return
	}
	toggle := func(loc uint32, on bool) {
		if on {
			gl.EnableVertexAttribArray(loc)
		} else {
			gl.DisableVertexAttribArray(loc)
		}
	}
	for loc := uint32(locVel); loc < locCorr; loc++ {
		toggle(loc, want != MotionLerp)
	}
	toggle(locCorr, want == MotionExtrapolate)
	toggle(locCorr+1, want == MotionExtrapolate)
	m.attribs = want
}

func (m *motionPass) delete() {
	m.prog.Delete()
	m.vao.Delete()
	if m.feedback != 0 {
		gl.DeleteTransformFeedbacks(1, &m.feedback)
		m.feedback = 0
	}
	for i := range m.bufs {
		m.bufs[i].Delete()
	}
	m.capacity, m.count = 0, 0
}
