package app

import (
	"context"
	"time"

	"github.com/tickframe/tickframe/platform"
	"github.com/tickframe/tickframe/simthread"
)

// measureFrames is how many swaps are timed to find a display's refresh
// rate when the monitor does not report one.
const measureFrames = 32

// pacing decides when each frame is displayed: at the vblanks of a pacer
// (the monitor's rate with vsync, an emulated rate in software, or the
// rate measured from the first swaps), or unpaced. It belongs to the
// render thread.
type pacing struct {
	pacer     *platform.Pacer // nil while measuring, and unpaced
	hz        float64
	source    string
	measuring []platform.SwapSample // the swaps timed so far, while measuring
	latency   LatencyMode
	jit       jit
}

// choose picks how frames are paced: an emulated refresh (above 0) in
// software, else the monitor's rate with vsync, else measurement of the
// first swaps.
func (p *pacing) choose(win *platform.Window, clock simthread.Clock, refresh float64, latency LatencyMode) error {
	p.latency = latency
	var err error
	switch hz := win.RefreshRate(); {
	case refresh > 0:
		p.hz, p.source = refresh, "emulated"
		p.pacer, err = platform.NewPacer(clock, refresh, true)
	case win.VSync() && hz > 0:
		p.hz, p.source = float64(hz), "monitor"
		p.pacer, err = platform.NewPacer(clock, float64(hz), false)
	case win.VSync():
		p.source = "measuring"
		p.measuring = make([]platform.SwapSample, 0, measureFrames)
	default:
		p.source = "unpaced"
	}
	return err
}

// frameAt waits, with software pacing, for the next vblank, and returns
// the display time of the frame to start now and its lead: how long
// before that time it starts (low latency: just in time; throughput: a
// whole period ahead). It fails only when ctx is done.
func (p *pacing) frameAt(ctx context.Context, clock simthread.Clock) (at, lead time.Duration, err error) {
	if p.pacer == nil {
		return clock.Now(), 0, nil
	}
	lead = p.pacer.Period()
	if p.latency == LowLatency && p.pacer.Software() {
		lead = p.jit.next(p.pacer.Period())
	}
	at, err = p.pacer.FrameAt(ctx, lead)
	return at, lead, err
}

// probing reports whether this frame's swap is held back to measure the
// refresh rate (see platform.MeasureRefresh).
func (p *pacing) probing() bool { return p.measuring != nil && len(p.measuring)%2 == 1 }

// swapped accounts for a swap interval d (probed: held back), and decides
// the pacing once enough swaps have been timed: if they were paced by a
// display, follow it; if not (Xvfb), emulate 60 Hz.
func (p *pacing) swapped(clock simthread.Clock, d time.Duration, probed bool) {
	if p.measuring == nil {
		return
	}
	p.measuring = append(p.measuring, platform.SwapSample{Interval: d, Delayed: probed})
	if len(p.measuring) < measureFrames {
		return
	}
	hz, ok := platform.MeasureRefresh(p.measuring)
	p.measuring = nil
	p.source = "measured"
	if !ok {
		hz, p.source = 60, "swaps unpaced; emulated"
	}
	p.hz = hz
	p.pacer, _ = platform.NewPacer(clock, hz, !ok) // hz is in range
}

// missed reports how many vblanks frames missed (0 when unpaced).
func (p *pacing) missed() uint64 {
	if p.pacer == nil {
		return 0
	}
	return p.pacer.Missed()
}
