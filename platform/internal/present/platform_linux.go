//go:build linux && !wayland

package present

import (
	"fmt"
	"time"
	"unsafe"
)

// platform is the X11 side of a Tracker.
type platform struct {
	x       *x11
	dpy     unsafe.Pointer // GLFW's connection, for the round trip
	win     uint64         // the app's window
	fs      *frameSync     // the compositor's frame timings, where its window manager sends them
	display string         // Options.Display, for a fallback's connection
}

func (p *platform) open(t *Tracker, o Options) error {
	var win uint64
	if !o.VblanksOnly {
		p.dpy, win = glfwX11()
		p.win = win
		if p.dpy == nil {
			return fmt.Errorf("present: no GLFW window on X11 is current")
		}
		p.display = o.Display
		if fs := openFrameSync(p.dpy, win, t); fs != nil {
			// The compositor says when it showed each frame: better
			// than anything the X server says (under XWayland, when it
			// took the frame; on a composited X11 desktop, when it
			// copied it for the compositor).
			p.fs = fs
			return nil
		}
		// The round trip needs only the app's connection: it is the
		// source even where the server has no Present (no vblanks then).
		t.source, t.probing = SourceRoundTrip, probeSwaps
	}
	x, err := openX11(o.Display, win, t.now, &t.grid, &t.ring, &t.stamps)
	if err != nil {
		return err
	}
	p.x = x
	t.stamped = p.dpy != nil
	return nil
}

// stamp asks the server, on the app's connection, to time its processing
// of what was sent before: see Tracker.Swapped.
func (p *platform) stamp(serial uint32) { stamp(p.dpy, p.win, serial) }

func init() {
	swapSynced = func(p *platform) bool { return p.dpy != nil && synced(p.dpy) }
	fallbackOpen = func(t *Tracker) bool { return t.plat.fallBack(t) }
	fallbackClose = func(t *Tracker) { t.plat.resume(t) }
}

// fallBack goes on from frame timings that fell silent with what the X
// server says (Tracker.Fallback): the round trip after each swap, and
// the MSC grid, so that the pacing keeps following the display's
// vblanks. Not the PresentCompleteNotify probe: the completions of
// swaps made before the tracker's connection watched the window cannot
// be told from those after.
func (p *platform) fallBack(t *Tracker) bool {
	if p.fs == nil {
		return false
	}
	t.source, t.stamped = SourceRoundTrip, false
	x, err := openX11(p.display, p.win, t.now, &t.grid, &t.ring, &t.stamps)
	if err != nil {
		return true // the round trip alone, with no vblanks
	}
	p.x, t.stamped = x, true
	return true
}

// resume closes the fallback's connection: frame timings speak again.
func (p *platform) resume(t *Tracker) {
	if p.x != nil {
		_ = p.x.close() // an error of its own thread, after the fact
		p.x = nil
	}
	t.grid.SetSource(VblankFrameTimings)
}

func (p *platform) roundTrip() {
	if p.dpy != nil {
		roundTrip(p.dpy)
	}
}

// swapped marks the swap just made complete for the compositor (frame
// sync); elsewhere the round trip has done all.
func (p *platform) swapped(t *Tracker, _ uint64, _ time.Duration) {
	if p.fs != nil {
		p.fs.swapped(p.dpy, t.nSwaps-1)
		p.pump(t)
	}
}

// pump reads the compositor's frame messages off the app's connection
// (frame sync); without frame sync there is nothing of the platform's to
// read here.
func (p *platform) pump(t *Tracker) {
	if p.fs != nil {
		p.fs.pump(p.dpy, t)
	}
}

// flush waits up to timeout for the compositor's frame timings of the
// swaps made so far (frame sync).
func (p *platform) flush(t *Tracker, timeout time.Duration) {
	if p.fs == nil {
		return
	}
	for start := t.now(); t.emitted < t.nSwaps && t.now()-start < timeout; {
		p.pump(t)
		time.Sleep(200 * time.Microsecond)
	}
}

func (p *platform) close() error {
	if p.x == nil {
		return nil
	}
	err := p.x.close()
	p.x = nil
	return err
}

// Monotonic reads CLOCK_MONOTONIC, the clock of the X server's UST and of
// Go's monotonic time.
func Monotonic() time.Duration { return monotonic() }

// MonotonicOffset measures CLOCK_MONOTONIC minus now().
func MonotonicOffset(now func() time.Duration) time.Duration { return monoOffset(now) }

// openWindow is Open for an X window of the caller's, watched from the
// tracker's own connection, with no round trip (tests: a client that
// presents pixmaps as a DRI3 driver does).
func openWindow(o Options, win uint64) (*Tracker, error) {
	t := &Tracker{now: o.Now, source: SourceRoundTrip, probing: probeSwaps, completeFrom: ^uint64(0)}
	x, err := openX11(o.Display, win, t.now, &t.grid, &t.ring, &t.stamps)
	if err != nil {
		return nil, err
	}
	t.plat.x = x
	return t, nil
}
