package app

import (
	"testing"
	"time"

	"github.com/tickframe/tickframe/platform"
	"github.com/tickframe/tickframe/platform/internal/loop"
)

// TestHiddenWindowMissesNoVblanks hides the window three times in a real
// run at 144 Hz (software pacing): the vblanks it rests through (20 ms at
// a time, drawing nothing) are not missed by a late frame, and
// missed_vblanks does not count them. Each rest counted about 20 ms/P
// (2.9 at 144 Hz), all of the hidden vblanks in all; the bound, a quarter
// of them, leaves room for a frame a loaded machine makes late as the
// window hides or shows.
func TestHiddenWindowMissesNoVblanks(t *testing.T) {
	iconify := func(on bool) []platform.Event { return []platform.Event{{Kind: platform.IconifyEvent, On: on}} }
	cycles := []struct{ hide, show time.Duration }{
		{1000 * time.Millisecond, 1500 * time.Millisecond},
		{1800 * time.Millisecond, 2200 * time.Millisecond},
		{2500 * time.Millisecond, 2800 * time.Millisecond},
	}
	var hiddenFor time.Duration
	var missedHidden, before uint64
	var hiddenAt time.Duration
	hidden := false
	var run *loop.View
	a := runApp(t, Config{}, refresh(144), 3500*time.Millisecond, func(a *loop.App, v *loop.View, n int) {
		run = v
		now := v.Clock.Now()
		since := now - v.Start
		switch {
		case len(cycles) > 0 && !hidden && since >= cycles[0].hide:
			before, hiddenAt = v.Pacing().Missed, now
			a.Handle(iconify(true))
			hidden = true
		case len(cycles) > 0 && hidden && since >= cycles[0].show:
			missedHidden += v.Pacing().Missed - before
			hiddenFor += now - hiddenAt
			a.Handle(iconify(false))
			hidden = false
			cycles = cycles[1:]
		}
	})
	vblanks := uint64(hiddenFor.Seconds() * 144)
	t.Logf("hidden %v (%d vblanks): %d counted missed; %d missed in the whole run of %d frames",
		hiddenFor, vblanks, missedHidden, run.Pacing().Missed, a.report.Frames)
	if len(cycles) != 0 || vblanks < 100 {
		t.Fatalf("the run hid the window for %v, %d cycles left: it did not run as meant", hiddenFor, len(cycles))
	}
	if missedHidden*4 > vblanks {
		t.Errorf("%d vblanks counted missed while the window was hidden for %d: the rests count as late frames", missedHidden, vblanks)
	}
}
