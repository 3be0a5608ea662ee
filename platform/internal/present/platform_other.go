//go:build !windows && !linux

package present

import (
	"errors"
	"time"
)

// platform is a Tracker where the display system gives no feedback
// tickframe reads: the model.
type platform struct{}

var start = time.Now()

func (p *platform) open(*Tracker, Options) error {
	return errors.New("present: no display feedback on this platform: the model is used")
}

func (p *platform) roundTrip() {}

func (p *platform) stamp(uint32) {}

func (p *platform) swapped(*Tracker, uint64, time.Duration) {}

// pump and flush read asynchronous feedback where it is the platform's
// to read (Wayland's); here there is none.
func (p *platform) pump(*Tracker) {}

func (p *platform) flush(*Tracker, time.Duration) {}

func (p *platform) close() error { return nil }

// Monotonic reads the monotonic clock.
func Monotonic() time.Duration { return time.Since(start) }

// MonotonicOffset measures Monotonic minus now().
func MonotonicOffset(now func() time.Duration) time.Duration { return Monotonic() - now() }

// FindWindow is X11's.
func FindWindow(display, name string) (x, y, w, h int, err error) {
	return 0, 0, 0, 0, errors.New("present: FindWindow needs X11")
}
