package platform

import (
	"math"
	"time"
)

// Follow re-anchors a started pacer's grid on a vblank measured at time at
// by the display system, with the measured period: from then on its
// vblanks are the display's (package present measures them). The index
// of the vblanks is kept, so Missed goes on counting. A period out of
// range is ignored.
func (p *Pacer) Follow(at, period time.Duration) {
	if !p.started || period <= 0 {
		return
	}
	hz := 1e9 / float64(period)
	if !(hz >= 1 && hz <= MaxRefresh) {
		return
	}
	k := math.Round(float64(at-p.origin) * hz / 1e9)
	p.hz = hz
	p.origin = at - time.Duration(math.Round(k*1e9/hz))
}
