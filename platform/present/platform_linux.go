//go:build linux && !wayland

package present

import (
	"fmt"
	"time"
	"unsafe"
)

// platform is the X11 side of a Tracker.
type platform struct {
	x   *x11
	dpy unsafe.Pointer // GLFW's connection, for the round trip
	win uint64         // the app's window
}

func (p *platform) open(t *Tracker, o Options) error {
	var win uint64
	if !o.VblanksOnly {
		p.dpy, win = glfwX11()
		p.win = win
		if p.dpy == nil {
			return fmt.Errorf("present: no GLFW window on X11 is current")
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
}

func (p *platform) roundTrip() {
	if p.dpy != nil {
		roundTrip(p.dpy)
	}
}

func (p *platform) swapped(*Tracker, uint64, time.Duration) {}

// pump and flush read asynchronous feedback where it is the platform's
// to read (Wayland's); here there is none.
func (p *platform) pump(*Tracker) {}

func (p *platform) flush(*Tracker, time.Duration) {}

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
