package renderer

import (
	"time"

	"github.com/go-gl/gl/v4.1-core/gl"
)

// inFlightSlots is how many presented frames are followed; a driver that
// queues more than this is reported as queueing this many.
const inFlightSlots = 8

// inFlight follows the frames presented to the driver that the GPU has not
// finished, with a fence after each buffer swap.
type inFlight struct {
	fences [inFlightSlots]fence
	head   int // the next slot to fence
	n      int // fences pending, the oldest at head−n
}

// Presented marks the end of a frame's GL work: call it right after the
// buffer swap. It inserts a fence the GPU signals once it has finished the
// frame. It does not allocate.
func (r *Renderer) Presented() {
	f := &r.flight
	if f.n == inFlightSlots {
		// The oldest is forgotten rather than waited for.
		f.fences[(f.head+inFlightSlots-f.n)%inFlightSlots].delete()
		f.n--
	}
	f.fences[f.head] = fence(gl.FenceSync(gl.SYNC_GPU_COMMANDS_COMPLETE, 0))
	f.head = (f.head + 1) % inFlightSlots
	f.n++
}

// InFlight reports how many presented frames the GPU has not finished yet,
// without waiting.
func (r *Renderer) InFlight() int {
	r.flight.retire(0)
	return r.flight.n
}

// WaitInFlight waits, before a frame's GL work starts, until at most max−1
// presented frames are unfinished, so that with this frame at most max are
// in flight: max 1 is a frame that starts only once the GPU has finished
// the last, so the driver queues nothing and input reaches the screen a
// frame sooner. It returns how long it waited. Each wait is bounded by
// timeout (a lost GPU must not hang the app): it then gives up and reports
// the time spent.
func (r *Renderer) WaitInFlight(max int, timeout time.Duration) time.Duration {
	f := &r.flight
	f.retire(0)
	if f.n < max {
		return 0
	}
	start := time.Now()
	for f.n >= max {
		left := timeout - time.Since(start)
		if left <= 0 || !f.retire(left) {
			break
		}
	}
	return time.Since(start)
}

// retire drops the finished fences, oldest first, waiting up to wait for
// the oldest unfinished one (0: no wait). It reports whether it dropped
// any.
func (f *inFlight) retire(wait time.Duration) bool {
	dropped := false
	for f.n > 0 {
		i := (f.head + inFlightSlots - f.n) % inFlightSlots
		var flags uint32
		timeout := uint64(0)
		if !dropped && wait > 0 {
			flags, timeout = gl.SYNC_FLUSH_COMMANDS_BIT, uint64(wait)
		}
		switch gl.ClientWaitSync(uintptr(f.fences[i]), flags, timeout) {
		case gl.ALREADY_SIGNALED, gl.CONDITION_SATISFIED:
			f.fences[i].delete()
			f.n--
			dropped = true
			continue
		}
		break
	}
	return dropped
}

func (f *inFlight) delete() {
	for i := range f.fences {
		f.fences[i].delete()
	}
	f.n = 0
}
