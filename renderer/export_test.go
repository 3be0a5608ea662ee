package renderer

import (
	"io/fs"
	"unsafe"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/renderer/gltf"
	"github.com/tickframe/tickframe/simthread"
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
	size := func(buf glBuffer) int {
		var n int32
		gl.BindBuffer(gl.COPY_READ_BUFFER, uint32(buf))
		gl.GetBufferParameteriv(gl.COPY_READ_BUFFER, gl.BUFFER_SIZE, &n)
		gl.BindBuffer(gl.COPY_READ_BUFFER, 0)
		return int(n)
	}
	for i := range b.slots {
		slots = append(slots, size(b.slots[i].buf))
		counts = append(counts, b.slots[i].count)
	}
	return slots, size(b.poses), counts
}

// ReadPoses reads the poses of the first len(dst)/16 bodies that the last
// frame's interpolation pass wrote (position, rotation W X Y Z, scale,
// linear tint: 16 floats each), in the order of the snapshot's bodies
// (the pass writes them grouped by mesh and material), and waits for the
// GPU to do so: for tests, never for frames.
func (r *Renderer) ReadPoses(dst []float32) error {
	if len(dst) == 0 {
		return nil
	}
	b := r.bodies
	s := &b.slots[max(b.boundNext, 0)]
	const f = poseStride / 4
	all := make([]float32, max(s.count*f, len(dst)))
	gl.BindBuffer(gl.COPY_READ_BUFFER, uint32(b.poses))
	gl.GetBufferSubData(gl.COPY_READ_BUFFER, 0, min(len(all), b.slotCap*f)*4, unsafe.Pointer(&all[0]))
	gl.BindBuffer(gl.COPY_READ_BUFFER, 0)
	if s.sorted {
		copy(dst, all)
	} else {
		for j, i := range s.perm[:s.count] {
			if int(i)*f < len(dst) {
				copy(dst[int(i)*f:int(i+1)*f], all[j*f:])
			}
		}
	}
	return checkGL("read poses")
}

// DrawCalls reports the draw calls the last frame made for bodies: one per
// mesh part and material group. (It reads the last slot bound for the
// interpolation pass, which is the last frame's newer snapshot.)
func (r *Renderer) DrawCalls() int {
	b := r.bodies
	if b.boundNext < 0 {
		return 0
	}
	return len(b.slots[b.boundNext].items)
}

// BodyStride and PoseStride are the sizes of a body as uploaded and of an
// interpolated pose (16 floats).
const (
	BodyStride = int(bodyStride)
	PoseStride = poseStride
)

// The tests' world (world_test.go), for package renderer_test.

// TestWorld is the renderer tests' world.
type TestWorld = testWorld

// NewTestWorld returns a test world of n bodies laid out from seed, with
// the spinner at SpinBody when spinner is set.
func NewTestWorld(n int, seed uint64, spinner bool) *TestWorld { return newTestWorld(n, seed, spinner) }

// RefColor is the reference body's colour, SpinBody the spinner's index.
const (
	RefColor = refColor
	SpinBody = spinBody
)

// SpinAxis is the spinner's axis.
var SpinAxis = spinAxis

// Names the package keeps to itself, for its tests.
const (
	HUDGraphLen       = hudGraphLen
	HUDLines          = hudLines
	HUDCaptionLines   = hudCaptionLines
	DefaultGroundSize = defaultGroundSize
	OverlayRefWidth   = overlayRefWidth
	OverlayRefHeight  = overlayRefHeight
)

var (
	Tangents      = tangents
	TransformPart = transformPart
	ErrGL         = errGL
)

func (r *Renderer) SetGroundSize(side float32) error { return r.setGroundSize(side) }
func (r *Renderer) Samples() int                     { return r.samples() }
func (r *Renderer) GPUTimestamps() bool              { return r.gpuTimestamps() }

// LoadProgram compiles and links a program as the renderer does, for the
// shader-error tests.
func LoadProgram(files fs.FS, vert, frag string, feedback ...string) (uint32, error) {
	p, err := loadShaderProgram(files, vert, frag, feedback...)
	return uint32(p), err
}

// OverlayScale is the overlay's pixels per unit, for its test.
var OverlayScale = overlayScale

// SetClearColor and SetGroundVisible change the sky and the ground of a
// renderer made, as Options.ClearColor and HideGround set them at New.
func (r *Renderer) SetClearColor(rgb uint32)      { r.setClearColor(rgb) }
func (r *Renderer) SetGroundVisible(visible bool) { r.setGroundVisible(visible) }

// The pose maths, the line length and the counts, for the external tests.
var (
	Subject    = subject
	Slerp      = slerp
	Hermite    = hermiteCurve
	HUDLineLen = hudLineLen
)

func (c Camera) ViewProj(aspect float32) mgl32.Mat4 { return c.viewProj(aspect) }
func (r *Renderer) Meshes() int                     { return r.meshCount() }
func (r *Renderer) Materials() int                  { return r.materialCount() }

// AddMesh and AddMaterial register at once, on the render thread, for
// the tests that check an upload's errors where it happens.
func (r *Renderer) AddMesh(parts ...Part) (simthread.MeshID, error) { return r.addMeshNow(parts...) }
func (r *Renderer) AddMaterial(m gltf.Material) (simthread.MaterialID, error) {
	return r.addMaterialNow(m)
}
