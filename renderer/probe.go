package renderer

import (
	"math"
	"time"
	"unsafe"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"
)

// Probe is one drawn frame as the GPU saw it: the pose it drew the probe
// body at (Options.ProbeBody), read back from the interpolation pass's
// output, and when it finished the frame. Renderer.Probed returns them.
type Probe struct {
	// Frame is the frame's id: what Frames returned right after Draw drew
	// it.
	Frame uint64
	// Pos, Scale and Rot are the probe body's interpolated pose, exactly
	// as the draw pass read it. Rot is (W, X, Y, Z), unit length, and the
	// identity when the snapshots held a zero, infinite or NaN quaternion
	// (see shaders/common.glsl quatNormalize). Set only when Valid.
	Pos   mgl32.Vec3
	Scale mgl32.Vec3
	Rot   mgl32.Quat
	// Valid is false when the probe body did not exist that frame: the
	// plan was not Ready, or the newer snapshot had no body at ProbeBody.
	Valid bool
	// GPUDone is when the GPU had finished the frame's draw calls (those
	// before the buffer swap), on the app's clock (Options.Now). Set only
	// when HasGPUTime.
	GPUDone time.Duration
	// HasGPUTime is false when the driver has no timer queries.
	HasGPUTime bool
}

// Read-back tuning.
const (
	// probeBytes is what is read of a pose: position, orientation and
	// scale (three vec4), not the tint.
	probeBytes = 48
	// probeSlots is how many frames' read-backs can be in flight at once.
	// Drivers let the CPU queue 2–3 frames ahead of the GPU; 8 covers that
	// with room for a swap that stalls a frame or two. A frame that finds
	// every slot still in flight gets no record rather than waiting.
	probeSlots = 8
	// probeResults is how many completed records wait for Probed; a caller
	// that polls less often than frames complete loses the oldest.
	probeResults = 32
	// recalibrateEvery is how often the GPU clock is measured against the
	// app's again. The two drift apart by parts per million (a few tens of
	// microseconds a minute at worst), so once a second keeps the drift
	// below a microsecond, for a few glGetInteger64v calls a second.
	recalibrateEvery = time.Second
	// calibrationTries: each calibration keeps the one of this many
	// samples whose two app-clock reads bracket the GPU clock read most
	// tightly, as a preempted read would skew the offset.
	calibrationTries = 3
)

// noTimerQueries makes New act as if the driver had no timer queries; set
// by tests only (export_test.go).
var noTimerQueries bool

// probeRing reads the probe body's pose and a GPU timestamp back from
// each frame without ever waiting for the GPU. Draw reserves a slot
// (begin), copies the pose out of the pose buffer into the slot's own
// 48-byte buffer (position, orientation, scale: the first 48 bytes of a
// pose) right after the interpolation pass (capture), and after
// the frame's last draw call records a timestamp query and a fence (end).
// poll, a few frames later, reads the slots whose fence has signalled, in
// order, into a queue of records that Probed empties. Each slot has its
// own buffer, not a range of a shared one, because drivers track pending
// GPU writes per buffer: reading one range could wait for another's copy.
type probeRing struct {
	on    bool
	timer bool                 // timestamps taken
	now   func() time.Duration // the app's clock

	slots   [probeSlots]probeSlot
	head    int // the next slot to reserve
	pending int // slots in flight, the oldest at head−pending
	cur     int // this frame's slot, −1: none

	results      [probeResults]Probe
	first, count int // the queue of completed records

	offset       time.Duration // the app's clock minus the GPU's
	calibratedAt time.Duration // on the app's clock

	// Fields, not locals, because their addresses go to cgo, and a local
	// would escape to the heap on every call. pose is an allocation of its
	// own: glGetBufferSubData takes an unsafe.Pointer, for which cgo checks
	// the whole allocation pointed into for Go pointers, and the Renderer
	// has some.
	pose   *[probeBytes / 4]float32
	stamp  uint64
	avail  uint32
	gpuNow int64
}

// probeSlot is one frame's read-back in flight.
type probeSlot struct {
	buf   glBuffer // the frame's pose, probeBytes
	query query    // the frame's GL_TIMESTAMP, when timestamps are on
	fence fence    // signalled when the frame's commands have completed
	frame uint64
	valid bool // the pose was copied: the probe body existed
}

// query is a GL query object; 0 is none.
type query uint32

func (q *query) delete() {
	if *q != 0 {
		n := uint32(*q)
		gl.DeleteQueries(1, &n)
		*q = 0
	}
}

// fence is a GL sync object (GLsync); 0 is none.
type fence uintptr

func (f *fence) delete() {
	if *f != 0 {
		gl.DeleteSync(uintptr(*f))
		*f = 0
	}
}

// init makes the ring's GL objects when opts asks for a probe, and
// calibrates the GPU clock.
func (p *probeRing) init(opts *Options) error {
	p.cur = -1
	if !opts.Probe {
		return nil
	}
	p.on, p.now = true, opts.Now
	p.pose = new([probeBytes / 4]float32)
	if p.now == nil {
		start := time.Now()
		p.now = func() time.Duration { return time.Since(start) }
	}
	var bits int32
	if !noTimerQueries {
		// A zero counter width is how a driver says it has no timestamps.
		gl.GetQueryiv(gl.TIMESTAMP, gl.QUERY_COUNTER_BITS, &bits)
		if gl.GetError() != gl.NO_ERROR {
			bits = 0
		}
	}
	p.timer = bits > 0
	for i := range p.slots {
		s := &p.slots[i]
		s.buf = newBuffer()
		gl.BindBuffer(gl.COPY_WRITE_BUFFER, uint32(s.buf))
		// STREAM_READ: written by the GPU, read once by the CPU.
		gl.BufferData(gl.COPY_WRITE_BUFFER, probeBytes, nil, gl.STREAM_READ)
		if p.timer {
			var q uint32
			gl.GenQueries(1, &q)
			s.query = query(q)
		}
	}
	gl.BindBuffer(gl.COPY_WRITE_BUFFER, 0)
	if p.timer {
		p.calibrate()
	}
	return checkGL("create read-back ring")
}

// calibrate measures the offset from the GPU clock to the app's:
// glGetInteger64v(GL_TIMESTAMP) reads the GPU clock now, without waiting
// for queued commands, between two reads of the app's clock.
func (p *probeRing) calibrate() {
	best := time.Duration(math.MaxInt64)
	var t1 time.Duration
	for range calibrationTries {
		t0 := p.now()
		gl.GetInteger64v(gl.TIMESTAMP, &p.gpuNow)
		t1 = p.now()
		if rt := t1 - t0; rt < best {
			best = rt
			p.offset = t0 + rt/2 - time.Duration(p.gpuNow)
		}
	}
	p.calibratedAt = t1
}

// begin reserves a slot for frame, reading back finished slots first to
// make room; with every slot still in flight the frame goes without.
func (p *probeRing) begin(frame uint64) {
	p.cur = -1
	if !p.on {
		return
	}
	if p.pending == probeSlots {
		p.poll()
		if p.pending == probeSlots {
			return
		}
	}
	p.cur = p.head
	s := &p.slots[p.cur]
	s.frame, s.valid = frame, false
}

// capture copies the probe body's pose out of the pose buffer, which the
// interpolation pass has just filled, into the frame's slot: the pose at
// index at, where the pass put the probe body (it groups bodies by mesh;
// −1: the body does not exist). The copy runs on the GPU, in order after
// the pass.
func (p *probeRing) capture(poses glBuffer, at int) {
	if p.cur < 0 || at < 0 {
		return
	}
	s := &p.slots[p.cur]
	gl.BindBuffer(gl.COPY_READ_BUFFER, uint32(poses))
	gl.BindBuffer(gl.COPY_WRITE_BUFFER, uint32(s.buf))
	gl.CopyBufferSubData(gl.COPY_READ_BUFFER, gl.COPY_WRITE_BUFFER, at*poseStride, 0, probeBytes)
	gl.BindBuffer(gl.COPY_READ_BUFFER, 0)
	gl.BindBuffer(gl.COPY_WRITE_BUFFER, 0)
	debugCheck("copy probe pose")
	s.valid = true
}

// end closes the frame's slot after its last draw call: a timestamp query
// (when the GPU gets there, it has finished the frame), then a fence. It
// also calibrates the GPU clock again now and then, and reads back
// whatever earlier frames have finished.
func (p *probeRing) end() {
	if !p.on {
		return
	}
	if p.cur >= 0 {
		s := &p.slots[p.cur]
		if p.timer {
			gl.QueryCounter(uint32(s.query), gl.TIMESTAMP)
		}
		s.fence = fence(gl.FenceSync(gl.SYNC_GPU_COMMANDS_COMPLETE, 0))
		debugCheck("fence read-back")
		p.head = (p.head + 1) % probeSlots
		p.pending++
		p.cur = -1
	}
	// Calibrate first: the records poll reads take the offset as it is.
	if p.timer && p.now()-p.calibratedAt >= recalibrateEvery {
		p.calibrate()
	}
	p.poll()
}

// poll reads back the slots in flight whose frames the GPU has finished,
// oldest first, and stops at the first it has not: it never waits.
func (p *probeRing) poll() {
	for p.pending > 0 {
		s := &p.slots[(p.head-p.pending+probeSlots)%probeSlots]
		// Timeout 0: a status, not a wait. The flush bit makes sure the
		// fence reaches the GPU, else it might never signal.
		switch gl.ClientWaitSync(uintptr(s.fence), gl.SYNC_FLUSH_COMMANDS_BIT, 0) {
		case gl.TIMEOUT_EXPIRED:
			return
		case gl.ALREADY_SIGNALED, gl.CONDITION_SATISFIED:
		default: // GL_WAIT_FAILED: the fence is broken; give the record up
			s.fence.delete()
			p.pending--
			continue
		}
		rec := Probe{Frame: s.frame}
		if p.timer {
			// The frame is done, so its timestamp is written; still,
			// only a result reported available is read, as reading one
			// that is not would wait.
			gl.GetQueryObjectuiv(uint32(s.query), gl.QUERY_RESULT_AVAILABLE, &p.avail)
			if p.avail == gl.FALSE {
				return
			}
			gl.GetQueryObjectui64v(uint32(s.query), gl.QUERY_RESULT, &p.stamp)
			rec.GPUDone = time.Duration(int64(p.stamp)) + p.offset
			rec.HasGPUTime = true
		}
		if s.valid {
			gl.BindBuffer(gl.COPY_READ_BUFFER, uint32(s.buf))
			gl.GetBufferSubData(gl.COPY_READ_BUFFER, 0, probeBytes, unsafe.Pointer(&p.pose[0]))
			gl.BindBuffer(gl.COPY_READ_BUFFER, 0)
			v := p.pose
			rec.Pos = mgl32.Vec3{v[0], v[1], v[2]}
			rec.Rot = mgl32.Quat{W: v[4], V: mgl32.Vec3{v[5], v[6], v[7]}}
			rec.Scale = mgl32.Vec3{v[8], v[9], v[10]}
			rec.Valid = true
		}
		s.fence.delete()
		p.pending--
		p.push(rec)
	}
}

// push queues a completed record, dropping the oldest when the queue is
// full.
func (p *probeRing) push(rec Probe) {
	if p.count == probeResults {
		p.first = (p.first + 1) % probeResults
		p.count--
	}
	p.results[(p.first+p.count)%probeResults] = rec
	p.count++
}

// pop takes the oldest completed record off the queue.
func (p *probeRing) pop() (Probe, bool) {
	if p.count == 0 {
		return Probe{}, false
	}
	rec := p.results[p.first]
	p.first = (p.first + 1) % probeResults
	p.count--
	return rec, true
}

func (p *probeRing) delete() {
	for i := range p.slots {
		s := &p.slots[i]
		s.fence.delete()
		s.query.delete()
		s.buf.Delete()
	}
	p.on, p.pending, p.count = false, 0, 0
}
