//go:build linux && wayland

package app

import (
	"strings"
	"testing"
	"time"

	"github.com/tickframe/tickframe/platform/observe"
	"github.com/tickframe/tickframe/platform/present"
)

// The Wayland build in a Weston nested in make test's Xvfb (the desktop
// shell, where a window can be minimised): the frames' display times come
// from the compositor's wp_presentation, and once the window is minimised
// (Weston then shows none of its frames) the frame loop goes on without
// ever waiting on the compositor: frames keep being planned at the
// display's rate, no frame waits more than a few periods, and the frames
// swapped while hidden are reported discarded or not at all, never shown.
// (With swap interval 1, Mesa's eglSwapBuffers waits for a frame callback
// a hidden window never gets: glfw#2109.)
func TestWaylandMinimisedNeverStalls(t *testing.T) {
	w, err := observe.StartWeston(observe.WestonConfig{Desktop: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	t.Setenv("WAYLAND_DISPLAY", w.Socket)
	t.Setenv("XDG_RUNTIME_DIR", w.RuntimeDir)
	const hideAfter, run = 1500 * time.Millisecond, 4 * time.Second
	var hidden time.Duration // when the window was minimised (the app's clock)
	var before, after int    // frames planned before and after
	var gap, last time.Duration
	var shownBefore uint64
	var clk present.ClockStats
	a := runApp(t, Config{}, run, func(a *App, _ int) {
		clk, _ = a.present.src.Clock()
		now := a.clock.Now()
		if last > 0 && hidden > 0 {
			gap = max(gap, now-last)
		}
		last = now
		switch {
		case hidden == 0 && now-a.steady.start >= hideAfter:
			shownBefore = a.stats.Present.Displayed
			a.win.Iconify()
			hidden = now
		case hidden == 0:
			before++
		default:
			after++
		}
	})
	st := &a.stats.Present // the window is closed: its figures, not Report's
	t.Logf("%d frames before minimising, %d after; longest wait between frames after: %v; displayed %d (%d before), dropped %d; %s; %+v",
		before, after, gap, st.Displayed, shownBefore, st.Dropped, st.Source, clk)
	if !strings.HasPrefix(st.Source, "wayland-presentation") || clk.Presented == 0 {
		t.Errorf("present_time_source %q, %d presented events: not the compositor's", st.Source, clk.Presented)
	}
	if hidden == 0 {
		t.Fatal("the run ended before the window was minimised")
	}
	// The pace before minimising is the machine's: after it, at least
	// half of it, and no wait longer than 250 ms (15 periods at 60 Hz; a
	// blocked swap waits forever, a wait for a hidden frame's report 100
	// ms a frame).
	rateBefore := float64(before) / hideAfter.Seconds()
	rateAfter := float64(after) / (last - hidden).Seconds()
	if rateAfter < rateBefore/2 || gap > 250*time.Millisecond {
		t.Errorf("minimised, the loop planned %.1f frames/s (%.1f before), its longest wait %v: it waited on the compositor", rateAfter, rateBefore, gap)
	}
	// Weston shows nothing of a minimised window: its frames are
	// discarded, or still unreported at the end.
	if st.Displayed > shownBefore+uint64(rateBefore/2)+2 {
		t.Errorf("displayed %d frames, %d of them after minimising: a hidden window's frames counted shown", st.Displayed, st.Displayed-shownBefore)
	}
}
