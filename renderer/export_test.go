package renderer

import (
	"unsafe"

	"github.com/go-gl/gl/v4.1-core/gl"
)

// Knobs and views for the tests in package renderer_test. The knobs break
// the GPU path on purpose, so that a test can show that its read-back
// check catches a broken path and does not pass whatever the GPU draws.

// SetAlphaBias adds bias to the alpha of every frame r draws from now on.
func (r *Renderer) SetAlphaBias(bias float32) { r.bodies.alphaBias = bias }

// SetStaleOnMiss makes r, on a frame whose snapshot no buffer holds, tag
// the victim buffer with it without uploading it: the stale-slot bug that
// tagging by sequence number prevents.
func (r *Renderer) SetStaleOnMiss(on bool) { r.bodies.staleOnMiss = on }

// SetNoTimerQueries makes the renderers New creates from now on act as if
// the driver had no timer queries.
func SetNoTimerQueries(on bool) { noTimerQueries = on }

// Storage reports the storage, in bytes, of every snapshot buffer and of
// the pose buffer, and the bodies each snapshot buffer holds.
func (r *Renderer) Storage() (slots []int, poses int, counts []int) {
	b := r.bodies
	size := func(buf Buffer) int {
		var n int32
		gl.BindBuffer(gl.COPY_READ_BUFFER, uint32(buf))
		gl.GetBufferParameteriv(gl.COPY_READ_BUFFER, gl.BUFFER_SIZE, &n)
		gl.BindBuffer(gl.COPY_READ_BUFFER, 0)
		return int(n)
	}
	for _, buf := range b.ring {
		slots = append(slots, size(buf))
	}
	return slots, size(b.poses), append([]int(nil), b.count...)
}

// ReadPoses reads the first len(dst)/12 poses the last frame's
// interpolation pass wrote (position and scale, rotation W X Y Z, albedo)
// and waits for the GPU to do so: for tests, never for frames.
func (r *Renderer) ReadPoses(dst []float32) error {
	if len(dst) == 0 {
		return nil
	}
	gl.BindBuffer(gl.COPY_READ_BUFFER, uint32(r.bodies.poses))
	gl.GetBufferSubData(gl.COPY_READ_BUFFER, 0, len(dst)*4, unsafe.Pointer(&dst[0]))
	gl.BindBuffer(gl.COPY_READ_BUFFER, 0)
	return checkGL("read poses")
}

// BodyStride and PoseStride are the sizes of a body as uploaded and of an
// interpolated pose.
const (
	BodyStride = int(bodyStride)
	PoseStride = poseStride
)
