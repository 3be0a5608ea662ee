package loop

import (
	"context"
	"math"
	"time"

	"github.com/tickframe/tickframe/platform/internal/present"
	"github.com/tickframe/tickframe/platform/internal/sim"
	"github.com/tickframe/tickframe/platform/internal/window"
)

// measureFrames is how many swaps are timed to find a display's refresh
// rate when the monitor does not report one.
const measureFrames = 32

// pacing decides when each frame is displayed: at the vblanks of a pacer
// (the monitor's rate with vsync, an emulated rate in software, or the
// rate measured from the first swaps), or unpaced. It belongs to the
// render thread.
type pacing struct {
	pacer     *window.Pacer // nil while measuring, and unpaced
	hz        float64
	source    string
	measuring []window.SwapSample // the swaps timed so far, while measuring
	latency   LatencyMode
	jit       jit
	grid      *present.Grid // the display's measured vblanks; nil: none
	onGrid    bool          // the rate is the grid's own
	following bool          // the pacer follows grid
	// emulating is true while a software pacer keeps a grid of its own
	// beside a display system whose vblanks run at another rate: it has
	// not followed them (package instrument places the frames that landed on its vblanks). Once it has,
	// a frame whose measure of them is off for a moment (a young fit)
	// does not make it so.
	emulating bool
	// late: the pacing was chosen before the display system reported
	// any vblank (measuring, or unpaced); its grid, once known, is
	// taken as choose would have taken it (a present source that fell
	// back to X11's vblanks after its first fell silent).
	late bool
}

// choose picks how frames are paced: an emulated refresh (above 0) in
// software, else the monitor's rate with vsync, else measurement of the
// first swaps.
func (p *pacing) choose(win *window.Window, clock sim.Clock, refresh float64, latency LatencyMode) error {
	p.latency = latency
	var err error
	measured := p.grid != nil && p.grid.Known()
	switch hz := win.RefreshRate(); {
	case refresh > 0:
		p.hz, p.source = refresh, "emulated"
		p.pacer, err = window.NewPacer(clock, refresh, true)
	case win.VSync() && win.SelfPaced():
		// The swap does not wait (Wayland, XWayland): paced in software
		// on the display system's vblanks, from the first it reports
		// (on Wayland they come with the frames), at the monitor's rate
		// until then.
		p.hz, p.source, p.onGrid = 60, "monitor, until measured", true
		switch {
		case measured && p.grid.Hz() >= 1 && p.grid.Hz() <= window.MaxRefresh:
			p.hz, p.source = p.grid.Hz(), p.grid.Source()
		case hz > 0:
			p.hz = float64(hz)
		default:
			p.source = "60 Hz, until measured"
		}
		p.pacer, err = window.NewPacer(clock, p.hz, true)
	case win.VSync() && hz > 0:
		p.hz, p.source = float64(hz), "monitor"
		p.pacer, err = window.NewPacer(clock, float64(hz), false)
	case measured && p.grid.Hz() >= 1 && p.grid.Hz() <= window.MaxRefresh:
		// The display system's own vblanks (Present's MSC on X11), in
		// software: where they come with a swap that does not wait
		// (Xvfb), nothing else paces.
		p.hz, p.source, p.onGrid = p.grid.Hz(), p.grid.Source(), true
		p.pacer, err = window.NewPacer(clock, p.hz, true)
	case win.VSync():
		p.source = "measuring"
		p.measuring = make([]window.SwapSample, 0, measureFrames)
		p.late = p.grid != nil
	default:
		p.source = "unpaced"
		p.late = p.grid != nil
	}
	return err
}

// adopt paces on the display system's vblanks once they are known, where
// the pacing was chosen before they were (late): at their rate, in
// software, as choose does with a grid known from the start.
func (p *pacing) adopt(clock sim.Clock) {
	hz := p.grid.Hz()
	if !p.grid.Known() || hz < 1 || hz > window.MaxRefresh {
		return
	}
	pacer, err := window.NewPacer(clock, hz, true)
	if err != nil {
		return
	}
	p.late, p.measuring, p.following, p.emulating = false, nil, false, false
	p.pacer, p.hz, p.source, p.onGrid = pacer, hz, p.grid.Source(), true
}

// frameAt waits, with software pacing, for the next vblank, and returns
// the display time of the frame to start now and its lead: how long
// before that time it starts (low latency: just in time; throughput: a
// whole period ahead). It fails only when ctx is done.
//
// Where the display system reports its vblanks (grid), a software pacer
// follows them: its grid is re-anchored on the measured one every frame
// (window.Pacer.Follow), when their rates agree within 1 %. A hook
// may start the frame at once for a time of its own, or a period ahead
// (Hook.BeforePace).
func (p *pacing) frameAt(ctx context.Context, clock sim.Clock, hooks []Hook) (at, lead time.Duration, err error) {
	if p.late {
		p.adopt(clock)
	}
	if p.pacer == nil {
		return clock.Now(), 0, nil
	}
	lead = p.pacer.Period()
	if p.latency == LowLatency && p.pacer.Software() && !p.presentPaced() {
		lead = p.jit.next(p.pacer.Period())
	}
	for _, h := range hooks {
		switch at, take, ahead := h.BeforePace(); {
		case take:
			return at, lead, nil
		case ahead:
			lead = p.pacer.Period()
		}
	}
	if p.grid != nil && p.pacer.Software() {
		if v, _, ok := p.grid.Next(clock.Now()); ok {
			period := p.grid.Period()
			switch {
			case p.onGrid:
				// Paced at the display's own rate: its latest measure.
				p.pacer.Follow(v, period)
				p.hz = p.pacer.Hz()
				if src := p.grid.Source(); p.source != src {
					p.source = src
				}
				p.emulating = false
			case RatesAgree(period, p.pacer.Period()):
				p.pacer.Follow(v, period)
				if !p.following {
					p.following, p.source = true, "emulated on measured vblanks"
				}
				p.emulating = false
			default:
				p.emulating = !p.following
			}
		}
	}
	at, err = p.pacer.FrameAt(ctx, lead)
	return at, lead, err
}

// presentPaced reports whether the vblanks are a Wayland compositor's
// presentations (wp_presentation): there a low-latency frame starts a
// whole period ahead, at the presentation of the frame before, which it
// waits for (present.Tracker.WaitReported) and then commits at once. The
// compositor takes a commit at its repaint, well before the presentation
// it stamps (Weston's x11 backend: 10 ms and more before; its drm
// backend: its repaint window, 7 ms), so a frame started its own cost
// before its presentation misses that repaint, and the output repaints
// with no new frame.
func (p *pacing) presentPaced() bool {
	return p.grid != nil && p.grid.Source() == present.VblankWayland
}

// probing reports whether this frame's swap is held back to measure the
// refresh rate (see window.MeasureRefresh).
func (p *pacing) probing() bool { return p.measuring != nil && len(p.measuring)%2 == 1 }

// swapped accounts for a swap interval d (probed: held back), and decides
// the pacing once enough swaps have been timed: if they were paced by a
// display, follow it; if not (Xvfb), emulate 60 Hz.
func (p *pacing) swapped(clock sim.Clock, d time.Duration, probed bool) {
	if p.measuring == nil {
		return
	}
	p.measuring = append(p.measuring, window.SwapSample{Interval: d, Delayed: probed})
	if len(p.measuring) < measureFrames {
		return
	}
	hz, ok := window.MeasureRefresh(p.measuring)
	p.measuring = nil
	p.source = "measured"
	if !ok {
		hz, p.source = 60, "swaps unpaced; emulated"
	}
	p.hz = hz
	p.pacer, _ = window.NewPacer(clock, hz, !ok) // hz is in range
}

// missed reports how many vblanks frames missed (0 when unpaced).
func (p *pacing) missed() uint64 {
	if p.pacer == nil {
		return 0
	}
	return p.pacer.Missed()
}

// RatesAgree reports whether two display periods are within 1 % of each
// other (b's): a software pacer follows the display system's vblanks at
// such a rate, and the present figures are on them.
func RatesAgree(a, b time.Duration) bool {
	return math.Abs(float64(a-b)) <= 0.01*float64(b)
}

// Pacing is how the frames are paced, as the loop has it now.
type Pacing struct {
	// Hz is the rate frames are paced at (0 while measuring, and
	// unpaced), and Source where it came from.
	Hz     float64
	Source string
	// Pacer is the vblank grid frames are paced on; nil while measuring,
	// and unpaced.
	Pacer *window.Pacer
	// Emulating is true while a software pacer keeps a grid of its own
	// beside a display system whose vblanks run at another rate (it has
	// not followed them): frames are on the display it emulates.
	Emulating bool
	// Missed is how many vblanks frames missed (0 when unpaced).
	Missed uint64
}

// pacingNow returns how the frames are paced (View.Pacing).
func (a *App) pacingNow() Pacing {
	p := &a.pacing
	return Pacing{Hz: p.hz, Source: p.source, Pacer: p.pacer, Emulating: p.emulating, Missed: p.missed()}
}
