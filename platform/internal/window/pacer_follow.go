package window

import (
	"math"
	"time"
)

// Follow re-anchors a started pacer's grid on a vblank measured at time at
// by the display system, with the measured period: from then on its
// vblanks are the display's (package present measures them). The index
// of the vblanks is kept, so Missed goes on counting: the measured vblank
// takes the index of the last vblank the pacer returned plus the measured
// periods between the two, and the grid is re-based there (its origin
// moves to at). Counting from the last frame, not from the pacer's start,
// keeps a change of period from acting on every vblank since the start:
// from a far origin a period a microsecond off shifts the index by one
// vblank per thousand periods, and ten minutes into a 60 Hz run a change
// of 60 µs would put the next vblank seconds away. A period out of range
// is ignored.
func (p *Pacer) Follow(at, period time.Duration) {
	if !p.started || period <= 0 {
		return
	}
	hz := 1e9 / float64(period)
	if !(hz >= 1 && hz <= MaxRefresh) {
		return
	}
	// How many of the display's periods at is after the last vblank
	// returned (negative: before it), a frame or two at most.
	k := int64(math.Round(float64(at-p.last) / float64(period)))
	p.origin, p.k, p.hz = at, -k, hz
}
