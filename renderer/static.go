package renderer

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/simthread"
)

// staticPass holds the static bodies (Registry.AddStatic): bodies drawn
// every frame at a fixed pose, never interpolated. Their poses are
// computed on the CPU once, when the set or the registries change, into
// a pose buffer of their own, in the order of their draw items; each
// frame draws them as the body pass draws a snapshot's bodies, with the
// same programs and materials, after the snapshot's bodies (blended
// static items are ordered among themselves, not with the snapshot's).
type staticPass struct {
	bodies []simthread.Body
	dirty  bool
	// The registries' sizes when the items were grouped: an id registered
	// since may be one a static body names (group counts unknown ids as 0).
	meshes, materials int
	slot              slot      // its items and draw order; its buffers are unused
	poses             glBuffer  // the poses, in item order
	capacity          int       // poses the buffer holds
	vaos              []itemVAO // the items' vertex arrays, pointing into poses
	scratch           []float32 // the poses before upload
}

func (st *staticPass) add(bodies []simthread.Body) {
	st.bodies = append(st.bodies, bodies...)
	st.dirty = true
}

func (st *staticPass) clear() {
	st.bodies = st.bodies[:0]
	st.dirty = true
}

// prepare groups the static bodies and uploads their poses, when the set
// or the registries changed since the last time.
func (b *bodyPass) prepareStatic(st *staticPass) error {
	if !st.dirty && st.meshes == len(b.meshes) && st.materials == len(b.materials) {
		return nil
	}
	st.dirty, st.meshes, st.materials = false, len(b.meshes), len(b.materials)
	n := len(st.bodies)
	b.group(&st.slot, st.bodies)
	st.slot.probeAt = -1
	b.anchor(&st.slot, st.bodies)
	if n == 0 {
		return nil
	}
	st.scratch = st.scratch[:0]
	for k := range n {
		i := k
		if !st.slot.sorted {
			i = int(st.slot.perm[k])
		}
		st.scratch = appendStaticPose(st.scratch, &st.bodies[i])
	}
	if n > st.capacity {
		buf := newBuffer()
		gl.BindBuffer(gl.ARRAY_BUFFER, uint32(buf))
		gl.BufferData(gl.ARRAY_BUFFER, n*poseStride, nil, gl.STATIC_DRAW)
		gl.BindBuffer(gl.ARRAY_BUFFER, 0)
		if err := checkGL(fmt.Sprintf("allocate %d static poses", n)); err != nil {
			buf.Delete()
			st.slot.items = st.slot.items[:0]
			st.dirty = true // try again next frame
			return err
		}
		st.poses.Delete()
		st.poses, st.capacity = buf, n
		for i := range st.vaos {
			st.vaos[i].initialized = false // set up again, pointing at the new buffer
		}
	}
	gl.BindBuffer(gl.ARRAY_BUFFER, uint32(st.poses))
	gl.BufferSubData(gl.ARRAY_BUFFER, 0, len(st.scratch)*4, unsafe.Pointer(&st.scratch[0]))
	gl.BindBuffer(gl.ARRAY_BUFFER, 0)
	return checkGL("upload static poses")
}

// appendStaticPose appends the pose interp.vert would give body b
// standing still: its position, its orientation normalised (the identity
// for a zero or unusable one), its scale (1 for a zero one), its tint in
// linear light.
func appendStaticPose(dst []float32, b *simthread.Body) []float32 {
	q := b.Rot
	l := math.Sqrt(float64(q.W)*float64(q.W) + float64(q.V.Dot(q.V)))
	if !(l > 0) || math.IsInf(l, 0) {
		q = mgl32.QuatIdent()
	} else {
		q = mgl32.Quat{W: float32(float64(q.W) / l), V: q.V.Mul(float32(1 / l))}
	}
	s := b.Scale
	if s == (mgl32.Vec3{}) {
		s = mgl32.Vec3{1, 1, 1}
	}
	c := b.Color
	lin := func(shift uint) float32 { return float32(srgbDecode(float64(c>>shift&0xFF) / 255)) }
	return append(dst,
		b.Pos[0], b.Pos[1], b.Pos[2], 0,
		q.W, q.V[0], q.V[1], q.V[2],
		s[0], s[1], s[2], 0,
		lin(0), lin(8), lin(16), float32(c>>24)/255)
}

// srgbDecode is the exact sRGB decoding function, as the shaders'
// srgbToLinear.
func srgbDecode(v float64) float64 {
	if v < 0.04045 {
		return v / 12.92
	}
	return math.Pow((v+0.055)/1.055, 2.4)
}

// drawStatic draws the static bodies with drawBodies, lending it the
// static pass's items, poses and vertex arrays in place of slot 0's and
// the snapshot pose buffer's.
func (b *bodyPass) drawStatic(st *staticPass, viewProj *mgl32.Mat4, eye mgl32.Vec3, frame uint64) error {
	err := b.prepareStatic(st)
	if len(st.slot.items) == 0 || len(b.slots) == 0 {
		return err
	}
	saved := b.slots[0]
	b.slots[0] = st.slot
	b.poses, st.poses = st.poses, b.poses
	b.vaos, st.vaos = st.vaos, b.vaos
	b.ensureVAOs(len(b.slots[0].items))
	b.drawBodies(0, len(st.bodies), viewProj, eye, frame)
	b.vaos, st.vaos = st.vaos, b.vaos
	b.poses, st.poses = st.poses, b.poses
	st.slot = b.slots[0]
	b.slots[0] = saved
	return err
}

func (st *staticPass) delete() {
	st.poses.Delete()
	for i := range st.vaos {
		st.vaos[i].vao.Delete()
	}
	st.vaos, st.capacity = nil, 0
}
