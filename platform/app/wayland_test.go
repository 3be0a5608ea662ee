//go:build linux && wayland

package app

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tickframe/tickframe/platform/internal/loop"
	"github.com/tickframe/tickframe/platform/internal/observe"
	"github.com/tickframe/tickframe/platform/internal/present"
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
	westonDesktop(t)
	const hideAfter, run = 1500 * time.Millisecond, 4 * time.Second
	var hidden time.Duration // when the window was minimised (the app's clock)
	var before, after int    // frames planned before and after
	var gap, last time.Duration
	var lastBefore uint64 // the last frame drawn before minimising
	var clk present.ClockStats
	set := Settings{Tools: Tools{FrameLog: filepath.Join(t.TempDir(), "frames.log")}}
	a := runApp(t, Config{}, set, run, func(a *loop.App, v *loop.View, _ int) {
		clk, _ = v.Present.Clock()
		now := v.Clock.Now()
		if last > 0 && hidden > 0 {
			gap = max(gap, now-last)
		}
		last = now
		switch {
		case hidden == 0 && now-v.Start >= hideAfter:
			lastBefore = v.Renderer.Frames()
			v.Window.Iconify()
			hidden = now
		case hidden == 0:
			before++
		default:
			after++
		}
	})
	r := a.report
	// The frame log's verdicts: how many frames drawn before minimising,
	// and after it, were shown.
	var shownBefore, shownAfter uint64
	for _, f := range a.inst.FrameLog().Frames() {
		switch {
		case !f.Shown:
		case f.ID <= lastBefore:
			shownBefore++
		default:
			shownAfter++
		}
	}
	t.Logf("%d frames before minimising, %d after; longest wait between frames after: %v; displayed %d (%d before), dropped %d; %s; %+v",
		before, after, gap, r.DisplayedFrames, shownBefore, r.DroppedFrames, r.PresentTimeSource, clk)
	if !strings.HasPrefix(r.PresentTimeSource, "wayland-presentation") || clk.Presented == 0 {
		t.Errorf("present_time_source %q, %d presented events: not the compositor's", r.PresentTimeSource, clk.Presented)
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
	if shownAfter > uint64(rateBefore/2)+2 || shownBefore+shownAfter != r.DisplayedFrames {
		t.Errorf("displayed %d frames, %d of them drawn after minimising (the frame log: %d before, %d after): a hidden window's frames counted shown",
			r.DisplayedFrames, shownAfter, shownBefore, shownAfter)
	}
}

// On Wayland no event says that a window was minimised or unmapped: the
// app learns it from the compositor's feedback (present.Tracker.Hidden,
// every frame discarded). Unmapped under Weston, the window's simulation
// pauses, and the frame loop goes on drawing (the feedback is how it
// learns that the window is shown again); mapped again, it resumes
// without catching up: the ticks run are the time not paused at the
// tick rate, and the time paused is the time hidden.
func TestWaylandHiddenPausesTheSimulation(t *testing.T) {
	westonDesktop(t)
	const hideAt, showAt, run = 1500 * time.Millisecond, 3000 * time.Millisecond, 4500 * time.Millisecond
	var hid, shown, paused, resumed time.Duration // on the app's clock
	var ticksPaused, ticksShown uint64
	var framesHidden int
	var flips []string // the pause's changes, when (since the start)
	was := false
	var start time.Duration // when the run started its first frame
	a := runApp(t, Config{}, Settings{}, run, func(a *loop.App, v *loop.View, _ int) {
		start = v.Start
		now := v.Clock.Now()
		if a.Paused() != was {
			was = a.Paused()
			flips = append(flips, fmt.Sprintf("%v at %v", was, (now-start).Round(time.Millisecond)))
		}
		tel := v.Sim.Telemetry()
		switch since := now - start; {
		case hid == 0 && since >= hideAt:
			v.Window.Hide()
			hid = now
		case hid > 0 && shown == 0 && since >= showAt:
			ticksShown = tel.Ticks()
			v.Window.Show()
			shown = now
		case hid > 0 && shown == 0:
			framesHidden++
		}
		if hid > 0 && paused == 0 && a.Paused() {
			paused, ticksPaused = now, tel.Ticks()
		}
		if paused > 0 && resumed == 0 && !a.Paused() {
			resumed = now
		}
	})
	tel := a.simulation().Telemetry().Read()
	rate := float64(a.simulation().Config().Rate)
	running := a.report.DurationS - tel.PausedTotal.Seconds()
	t.Logf("paused: %v", flips)
	t.Logf("hidden at %v, paused %v later (%d frames planned while hidden), shown at %v, resumed %v later; %d ticks while paused; %d ticks in %.3f s not paused (%.1f Hz), paused %v, discarded %d",
		hid-start, paused-hid, framesHidden, shown-start, resumed-shown, ticksShown-ticksPaused, tel.Ticks, running, float64(tel.Ticks)/running, tel.PausedTotal, tel.DiscardedTicks)
	switch {
	case hid == 0 || shown == 0:
		t.Fatal("the run ended before the window was hidden and shown again")
	case paused == 0 || paused-hid > time.Second:
		t.Fatalf("hidden, the simulation did not pause within a second (paused %v after)", paused-hid)
	case resumed == 0 || resumed-shown > 500*time.Millisecond:
		t.Fatalf("shown again, the simulation did not resume within 500 ms (resumed %v after)", resumed-shown)
	}
	if d := ticksShown - ticksPaused; d > 1 {
		t.Errorf("%d ticks ran while the window was hidden", d)
	}
	// Without catch-up: the ticks run are the time not paused at the
	// rate (within 2 % and two ticks), and the pause is the time between
	// the pause and the resume (within 50 ms: both are seen a frame late).
	if want := running * rate; math.Abs(float64(tel.Ticks)-want) > 0.02*want+2 {
		t.Errorf("%d ticks in %.3f s not paused: want %.0f (the hidden time caught up, or lost)", tel.Ticks, running, want)
	}
	if len(flips) != 2 {
		t.Errorf("the pause changed %d times (%v), want once each way", len(flips), flips)
	}
	if d := tel.PausedTotal - (resumed - paused); d < -50*time.Millisecond || d > 50*time.Millisecond {
		t.Errorf("paused %v in all, %v between the pause and the resume", tel.PausedTotal, resumed-paused)
	}
	if framesHidden < 10 {
		t.Errorf("%d frames planned while hidden: the loop stalled", framesHidden)
	}
}

// westonDesktop starts a Weston with its desktop shell (where a window can
// be minimised) nested in make test's Xvfb, for the rest of the test, and
// points the test's Wayland clients at it.
func westonDesktop(t *testing.T) {
	t.Helper()
	w, err := observe.StartWeston(observe.WestonConfig{Desktop: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	t.Setenv("WAYLAND_DISPLAY", w.Socket)
	t.Setenv("XDG_RUNTIME_DIR", w.RuntimeDir)
}
