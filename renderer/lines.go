package renderer

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/shaders"
	"github.com/tickframe/tickframe/simthread"
)

// gpuLine is one segment as line.vert reads it: 48 bytes.
type gpuLine struct {
	a, b  [4]float32 // xyz; w 1 for a point, 0 for a ray's direction
	body  [2]int32   // each end's pose index when tied; lineFree, lineHidden
	width float32    // pixels
	color uint32     // sRGB with alpha, 0xAABBGGRR
}

const (
	lineStride = int32(unsafe.Sizeof(gpuLine{}))
	lineFree   = -1 // a world point
	lineHidden = -2 // a segment not drawn
	// linePoseUnit is the texture unit of the pose buffer's texture:
	// past the materials' units 0 to 4.
	linePoseUnit = 7
)

var _ [48]byte = [lineStride]byte{}

// lineSlot holds the lines of the snapshot in the body pass's slot of the
// same index, as line.vert reads them.
type lineSlot struct {
	buf   glBuffer
	seq   uint64 // acquire sequence number held, 0: none
	count int
}

// linePass draws the world's lines (simthread.Lines): one instanced draw
// call, a quad per segment, after the bodies, depth-tested against them.
//
// Its slots mirror the body pass's one to one: slot i holds the lines of
// the snapshot in the body pass's slot i, converted and uploaded once when
// a frame first needs them (each end tied to a body resolved to where the
// interpolation pass writes that body's pose when the slot is the newer
// of a frame's pair). The frame binds the two slots of its plan and the
// pose buffer (through a buffer texture), so a tied end is where the body
// is drawn, whatever the motion mode. Every slot's storage holds lineCap
// segments, as many as the most any slot holds: the draw fetches the
// older slot's segments for every segment of the newer one.
type linePass struct {
	prog                 glProgram
	vao                  glVertexArray
	poseTex              glTexture
	poseBuf              glBuffer // the buffer poseTex was last pointed at
	slots                []lineSlot
	lineCap              int
	boundPrev, boundNext int
	uViewProj, uEye      int32
	uViewport, uAlpha    int32
	uLerp                int32
	scratch              []gpuLine // a snapshot's segments, converted
	rank                 []int32   // the pose index of each body of an unsorted slot
}

func newLinePass(history int) (l *linePass, err error) {
	l = &linePass{slots: make([]lineSlot, history), boundPrev: -1, boundNext: -1}
	pass := l
	defer func() {
		if err != nil {
			pass.delete()
		}
	}()
	if l.prog, err = loadShaderProgram(shaders.FS, "line.vert", "line.frag"); err != nil {
		return nil, err
	}
	l.uViewProj = l.prog.uniform("uViewProj")
	l.uEye = l.prog.uniform("uEye")
	l.uViewport = l.prog.uniform("uViewport")
	l.uAlpha = l.prog.uniform("uAlpha")
	l.uLerp = l.prog.uniform("uLerp")
	gl.UseProgram(uint32(l.prog))
	gl.Uniform1i(l.prog.uniform("uPoses"), linePoseUnit)
	gl.UseProgram(0)
	for i := range l.slots {
		l.slots[i].buf = newBuffer()
	}
	var t uint32
	gl.GenTextures(1, &t)
	l.poseTex = glTexture(t)
	l.vao = newVertexArray()
	gl.BindVertexArray(uint32(l.vao))
	for loc := uint32(0); loc <= 7; loc++ {
		gl.EnableVertexAttribArray(loc)
		gl.VertexAttribDivisor(loc, 1)
	}
	gl.BindVertexArray(0)
	if err := checkGL("create line pass"); err != nil {
		return nil, err
	}
	return l, nil
}

// draw draws the lines of the plan's newer snapshot, interpolated as
// simthread.Lines says, prev and next being the body pass's slots of the
// plan, after its interpolation pass. It uploads
// the lines of either snapshot that its slot does not hold yet, and returns
// the GL error of growing the slots (the frame then draws no lines).
func (l *linePass) draw(b *bodyPass, plan *Plan, prev, next int, viewProj *mgl32.Mat4, eye mgl32.Vec3, width, height int) error {
	if !plan.Ready || len(plan.Next.Lines.Segs) == 0 {
		return nil
	}
	if err := l.ensure(b, plan, prev, next); err != nil {
		return err
	}
	count := l.slots[next].count
	if count == 0 {
		return nil
	}
	if b.poses != l.poseBuf {
		// The body pass reallocates its pose buffer as it grows.
		gl.BindTexture(gl.TEXTURE_BUFFER, uint32(l.poseTex))
		gl.TexBuffer(gl.TEXTURE_BUFFER, gl.RGBA32F, uint32(b.poses))
		gl.BindTexture(gl.TEXTURE_BUFFER, 0)
		l.poseBuf = b.poses
	}
	gl.BindVertexArray(uint32(l.vao))
	l.bind(prev, next)
	gl.UseProgram(uint32(l.prog))
	gl.UniformMatrix4fv(l.uViewProj, 1, false, &viewProj[0])
	gl.Uniform3f(l.uEye, eye[0], eye[1], eye[2])
	gl.Uniform2f(l.uViewport, float32(width), float32(height))
	gl.Uniform1f(l.uAlpha, plan.Alpha)
	lerp := int32(0)
	if prev != next && l.slots[prev].count == count {
		lerp = 1
	}
	gl.Uniform1i(l.uLerp, lerp)
	gl.ActiveTexture(gl.TEXTURE0 + linePoseUnit)
	gl.BindTexture(gl.TEXTURE_BUFFER, uint32(l.poseTex))
	gl.Disable(gl.CULL_FACE) // a quad faces either way, as its segment runs
	gl.Enable(gl.BLEND)
	// The frame's own alpha stays 1: screenshots are opaque.
	gl.BlendFuncSeparate(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA, gl.ZERO, gl.ONE)
	gl.DrawArraysInstanced(gl.TRIANGLE_STRIP, 0, 4, int32(count))
	gl.Disable(gl.BLEND)
	gl.Enable(gl.CULL_FACE)
	gl.BindTexture(gl.TEXTURE_BUFFER, 0)
	gl.ActiveTexture(gl.TEXTURE0)
	gl.BindVertexArray(0)
	debugCheck("draw lines")
	return nil
}

// ensure uploads the lines of the plan's snapshots into the slots of the
// same index as the body pass's, where they are not there yet, growing
// every slot first when either does not fit.
func (l *linePass) ensure(b *bodyPass, plan *Plan, prev, next int) error {
	if need := max(len(plan.Next.Lines.Segs), len(plan.Prev.Lines.Segs)); need > l.lineCap {
		if err := l.grow(need + need/4 + 64); err != nil {
			return err
		}
	}
	if s := &l.slots[next]; s.seq != plan.NextSeq {
		l.upload(next, plan.NextSeq, &plan.Next.Lines, &b.slots[next])
	}
	if s := &l.slots[prev]; prev != next && s.seq != plan.PrevSeq {
		l.upload(prev, plan.PrevSeq, &plan.Prev.Lines, &b.slots[prev])
	}
	return nil
}

// grow gives every slot storage for capacity segments. Their contents are
// lost: each is uploaded again when a frame needs it. On a failure
// (GL_OUT_OF_MEMORY) every slot is left empty and untagged.
func (l *linePass) grow(capacity int) error {
	err := checkGL("frame") // earlier errors, told apart from the allocation's
	for i := range l.slots {
		s := &l.slots[i]
		gl.BindBuffer(gl.ARRAY_BUFFER, uint32(s.buf))
		gl.BufferData(gl.ARRAY_BUFFER, capacity*int(lineStride), nil, gl.STREAM_DRAW)
		s.seq, s.count = 0, 0
	}
	gl.BindBuffer(gl.ARRAY_BUFFER, 0)
	if gerr := checkGL(fmt.Sprintf("grow line buffers to %d segments", capacity)); gerr != nil {
		l.lineCap = 0
		return errors.Join(err, gerr)
	}
	l.lineCap = capacity
	return err
}

// upload converts lines into slot i's buffer and tags it with seq; bs is
// the body pass's slot of the same snapshot, whose order says where each
// body's pose is written.
func (l *linePass) upload(i int, seq uint64, lines *simthread.Lines, bs *slot) {
	segs := lines.Segs
	if cap(l.scratch) < len(segs) {
		l.scratch = make([]gpuLine, len(segs), l.lineCap)
	}
	out := l.scratch[:len(segs)]
	ranked := bs.sorted
	for k := range segs {
		s := &segs[k]
		g := &out[k]
		g.a = [4]float32{s.A.Pos[0], s.A.Pos[1], s.A.Pos[2], 1}
		g.b = [4]float32{s.B.Pos[0], s.B.Pos[1], s.B.Pos[2], 1}
		g.width = s.Width
		if !(g.width > 0) {
			g.width = 1
		}
		g.color = s.Color
		if g.color == 0 {
			g.color = simthread.White
		}
		bodyA, bodyB := -1, -1
		if s.A.OnBody {
			bodyA = s.A.Body
		}
		if s.Ray {
			g.b[3] = 0
		} else if s.B.OnBody {
			bodyB = s.B.Body
		}
		if !ranked && (bodyA >= 0 || bodyB >= 0) {
			l.rankSlot(bs)
			ranked = true
		}
		g.body = [2]int32{l.poseIndex(bs, s.A.OnBody, bodyA), l.poseIndex(bs, s.B.OnBody && !s.Ray, bodyB)}
		if !finite(g.a[0], g.a[1], g.a[2], g.b[0], g.b[1], g.b[2], g.width) || s.Ray && s.B.Pos == (mgl32.Vec3{}) {
			g.body[0] = lineHidden
		}
	}
	sl := &l.slots[i]
	sl.seq, sl.count = seq, len(out)
	if len(out) > 0 {
		gl.BindBuffer(gl.ARRAY_BUFFER, uint32(sl.buf))
		gl.BufferSubData(gl.ARRAY_BUFFER, 0, len(out)*int(lineStride), unsafe.Pointer(&out[0]))
		gl.BindBuffer(gl.ARRAY_BUFFER, 0)
	}
	debugCheck("upload lines")
}

// rankSlot fills rank with the pose index of each body of an unsorted
// slot: the inverse of its order.
func (l *linePass) rankSlot(bs *slot) {
	if cap(l.rank) < bs.count {
		l.rank = make([]int32, bs.count, bs.count+bs.count/4+64)
	}
	l.rank = l.rank[:bs.count]
	for j, i := range bs.perm[:bs.count] {
		l.rank[i] = int32(j)
	}
}

// poseIndex returns where the pose of body i of slot bs is written, or
// lineFree for an end not tied, or lineHidden for a body the slot does not
// have.
func (l *linePass) poseIndex(bs *slot, tied bool, i int) int32 {
	switch {
	case !tied:
		return lineFree
	case i < 0 || i >= bs.count:
		return lineHidden
	case bs.sorted:
		return int32(i)
	}
	return l.rank[i]
}

// bind points the attributes at slots prev and next; it does nothing when
// they are already bound (a slot's buffer keeps its name as it grows).
func (l *linePass) bind(prev, next int) {
	if prev == l.boundPrev && next == l.boundNext {
		return
	}
	point := func(loc uint32, buf glBuffer) {
		gl.BindBuffer(gl.ARRAY_BUFFER, uint32(buf))
		gl.VertexAttribPointerWithOffset(loc, 4, gl.FLOAT, false, lineStride, 0)
		gl.VertexAttribPointerWithOffset(loc+1, 4, gl.FLOAT, false, lineStride, 16)
		gl.VertexAttribIPointerWithOffset(loc+2, 2, gl.INT, lineStride, 32)
	}
	point(0, l.slots[prev].buf)
	point(3, l.slots[next].buf)
	gl.VertexAttribPointerWithOffset(6, 1, gl.FLOAT, false, lineStride, 40)
	gl.VertexAttribPointerWithOffset(7, 4, gl.UNSIGNED_BYTE, true, lineStride, 44)
	gl.BindBuffer(gl.ARRAY_BUFFER, 0)
	l.boundPrev, l.boundNext = prev, next
	debugCheck("bind line slots")
}

func (l *linePass) delete() {
	l.prog.Delete()
	l.vao.Delete()
	l.poseTex.Delete()
	for i := range l.slots {
		l.slots[i].buf.Delete()
	}
}
