package renderer

import (
	"unsafe"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/shaders"
	"github.com/tickframe/tickframe/simthread"
)

// bodyStride is the size of one instance: simthread.Body as it is.
const bodyStride = int32(unsafe.Sizeof(simthread.Body{}))

// Offsets of simthread.Body's fields, which the attribute layout reads.
var (
	offPos   = uintptr(unsafe.Offsetof(simthread.Body{}.Pos))   // vec4: Pos, Scale
	offRot   = uintptr(unsafe.Offsetof(simthread.Body{}.Rot))   // vec4: W X Y Z
	offColor = uintptr(unsafe.Offsetof(simthread.Body{}.Color)) // 4 × u8
	offEpoch = uintptr(unsafe.Offsetof(simthread.Body{}.Epoch)) // u32
)

// bodyPass draws every body in one instanced draw call. Its instance
// buffers mirror the render side's snapshot history one to one: slot i
// holds the snapshot that was the i-th acquired (mod the history depth),
// uploaded once when it arrived. A frame binds the two slots of its
// bracket as the "previous" and "next" attribute streams.
type bodyPass struct {
	prog                                     Program
	vao                                      VertexArray
	mesh, index                              Buffer
	ring                                     []Buffer
	count                                    []int // bodies in each slot
	capacity                                 []int // bodies each slot's storage holds
	boundPrev, boundNext                     int
	uViewProj, uAlpha, uPrevCount, uEye, uLD int32
}

func newBodyPass(history int) (*bodyPass, error) {
	prog, err := LoadProgram(shaders.FS, "body.vert", "lit.frag")
	if err != nil {
		return nil, err
	}
	b := &bodyPass{
		prog:      prog,
		ring:      make([]Buffer, history),
		count:     make([]int, history),
		capacity:  make([]int, history),
		boundPrev: -1,
		boundNext: -1,
	}
	b.uViewProj = prog.uniform("uViewProj")
	b.uAlpha = prog.uniform("uAlpha")
	b.uPrevCount = prog.uniform("uPrevCount")
	b.uEye = prog.uniform("uEye")
	b.uLD = prog.uniform("uLightDir")

	b.vao = newVertexArray()
	gl.BindVertexArray(uint32(b.vao))
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
	for loc := uint32(2); loc <= 8; loc++ {
		gl.EnableVertexAttribArray(loc)
		gl.VertexAttribDivisor(loc, 1)
	}
	for i := range b.ring {
		b.ring[i] = newBuffer()
	}
	gl.BindVertexArray(0)
	if err := checkGL("create body pass"); err != nil {
		b.delete()
		return nil, err
	}
	return b, nil
}

// upload copies a snapshot's bodies into ring slot i.
func (b *bodyPass) upload(i int, bodies []simthread.Body) {
	gl.BindBuffer(gl.ARRAY_BUFFER, uint32(b.ring[i]))
	n := len(bodies)
	if n > b.capacity[i] {
		// Grow with headroom so that a few spawns do not reallocate.
		b.capacity[i] = n + n/4 + 64
		gl.BufferData(gl.ARRAY_BUFFER, b.capacity[i]*int(bodyStride), nil, gl.STREAM_DRAW)
	}
	if n > 0 {
		gl.BufferSubData(gl.ARRAY_BUFFER, 0, n*int(bodyStride), unsafe.Pointer(&bodies[0]))
	}
	debugCheck("upload bodies")
	b.count[i] = n
}

// bind points the previous and next instance streams at ring slots prev
// and next; it does nothing when they are already bound.
func (b *bodyPass) bind(prev, next int) {
	if prev == b.boundPrev && next == b.boundNext {
		return
	}
	gl.BindBuffer(gl.ARRAY_BUFFER, uint32(b.ring[prev]))
	gl.VertexAttribPointerWithOffset(2, 4, gl.FLOAT, false, bodyStride, offPos)
	gl.VertexAttribPointerWithOffset(3, 4, gl.FLOAT, false, bodyStride, offRot)
	gl.VertexAttribIPointerWithOffset(4, 1, gl.UNSIGNED_INT, bodyStride, offEpoch)
	gl.BindBuffer(gl.ARRAY_BUFFER, uint32(b.ring[next]))
	gl.VertexAttribPointerWithOffset(5, 4, gl.FLOAT, false, bodyStride, offPos)
	gl.VertexAttribPointerWithOffset(6, 4, gl.FLOAT, false, bodyStride, offRot)
	gl.VertexAttribPointerWithOffset(7, 4, gl.UNSIGNED_BYTE, true, bodyStride, offColor)
	gl.VertexAttribIPointerWithOffset(8, 1, gl.UNSIGNED_INT, bodyStride, offEpoch)
	debugCheck("bind instance streams")
	b.boundPrev, b.boundNext = prev, next
}

// draw draws the bodies of slot next, interpolated from slot prev.
func (b *bodyPass) draw(prev, next int, alpha float32, viewProj *mgl32.Mat4, eye, lightDir mgl32.Vec3) {
	n := b.count[next]
	if n == 0 {
		return
	}
	gl.UseProgram(uint32(b.prog))
	gl.BindVertexArray(uint32(b.vao))
	b.bind(prev, next)
	gl.UniformMatrix4fv(b.uViewProj, 1, false, &viewProj[0])
	gl.Uniform1f(b.uAlpha, alpha)
	gl.Uniform1i(b.uPrevCount, int32(b.count[prev]))
	gl.Uniform3f(b.uEye, eye[0], eye[1], eye[2])
	gl.Uniform3f(b.uLD, lightDir[0], lightDir[1], lightDir[2])
	gl.DrawElementsInstanced(gl.TRIANGLES, 36, gl.UNSIGNED_SHORT, nil, int32(n))
	debugCheck("draw bodies")
	gl.BindVertexArray(0)
}

func (b *bodyPass) delete() {
	b.prog.Delete()
	b.vao.Delete()
	b.mesh.Delete()
	b.index.Delete()
	for i := range b.ring {
		b.ring[i].Delete()
	}
}

// cube returns a unit cube (half-extent 1, scaled per instance) with one
// normal per face: 24 vertices of position and normal, 36 indices.
func cube() ([]float32, []uint16) {
	faces := [6][3]mgl32.Vec3{
		// normal, then the two in-plane axes
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
