package app

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/tickframe/tickframe/platform"
	"github.com/tickframe/tickframe/platform/internal/loop"
	"github.com/tickframe/tickframe/platform/internal/refworld"
	"github.com/tickframe/tickframe/platform/internal/window"
	"github.com/tickframe/tickframe/simthread"
)

func TestMain(m *testing.M) {
	code := 0
	window.Main(func() { code = m.Run() })
	for _, f := range afterTests {
		f()
	}
	os.Exit(code)
}

// afterTests are run when every test has: they remove what the tests
// built once for all of them (wmDelete's client).
var afterTests []func()

// runApp runs a real App (window, GL, simulation, the instruments) with
// cfg and set on the main thread for d, calling each with the runtime and
// the frame count every frame, and returns it after its run. It needs a
// display, which make test provides.
func runApp(t *testing.T, cfg Config, set Settings, d time.Duration, each func(rt *loop.App, run *loop.View, frame int)) ran {
	t.Helper()
	world := smallApp(t, &cfg, &set, t.Name())
	set.Duration = d
	var err error
	var r ran
	window.Call(func() {
		var a *App
		e := &eachFrame{}
		if a, err = newApp(cfg, set, world, false, e); err != nil {
			return
		}
		defer a.close()
		n := 0
		e.f = func() { n++; each(a.rt, e.run, n) }
		err = a.run(context.Background())
		r = ran{App: a, report: a.report()}
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// ran is an App runApp ran and closed, with its report (the window is
// closed: report can no longer be asked).
type ran struct {
	*App
	report *Report
}

// eachFrame is a hook that keeps the run's view and calls its function as
// each frame is paced, before its input step: tests hand the loop events
// there (App.Handle).
type eachFrame struct {
	loop.NoHook
	run *loop.View
	f   func()
}

func (e *eachFrame) Started(v *loop.View) { e.run = v }
func (e *eachFrame) Paced(*loop.Frame)    { e.f() }

// Iconify and restore, driven through the app's own event handler: frames
// planned while hidden are not drawn, and after each restore no frame
// draws a stale buffer nor shows an earlier simulated time, checked on
// the poses read back from the GPU.
func TestIconifyRestoreDrawsNoStaleFrame(t *testing.T) {
	iconify := func(on bool) []platform.Event { return []platform.Event{{Kind: platform.IconifyEvent, On: on}} }
	var afterRestore []uint64 // the first frame ids drawn after each restore
	restored, hidden := false, false
	// Three cycles by time, so that a slow machine drawing fewer frames
	// still goes through all of them: hidden 1.5–1.9 s, 2.3–2.6 s and
	// 3.0–3.05 s after the start.
	cycles := []struct{ hide, show time.Duration }{
		{1500 * time.Millisecond, 1900 * time.Millisecond},
		{2300 * time.Millisecond, 2600 * time.Millisecond},
		{3000 * time.Millisecond, 3050 * time.Millisecond},
	}
	a := runApp(t, Config{}, refresh(144), 4*time.Second, func(a *loop.App, run *loop.View, n int) {
		since := run.Clock.Now() - run.Start
		switch {
		case len(cycles) > 0 && !hidden && since >= cycles[0].hide:
			a.Handle(iconify(true))
			hidden = true
		case len(cycles) > 0 && hidden && since >= cycles[0].show:
			a.Handle(iconify(false))
			hidden = false
			cycles = cycles[1:]
			restored = true
		case restored && !hidden:
			afterRestore = append(afterRestore, a.Renderer().Frames()+1)
			restored = false
		}
	})
	m := a.meter()
	d := m.Drawn()
	perTick := refworld.RefSpeed / 120
	t.Logf("%d frames, %d paused; read back %d of %d tracked; GPU/CPU max diff %g; drawn error p99 %.4f tick; backwards %d",
		a.report.Frames, m.Paused, d.Measured, d.Tracked, d.GPUDiffMax, float64(d.PosErrGPU.Quantile(0.99))/1e6, m.Backwards)
	if len(afterRestore) != 3 {
		t.Fatalf("%d restores seen, want 3", len(afterRestore))
	}
	if d.Measured < 100 {
		t.Fatalf("only %d frames read back", d.Measured)
	}
	// A stale buffer draws a pose from snapshots up to four acquires old:
	// ticks of motion away from what the plan asked for.
	if d.GPUDiffMax > 1e-4*perTick {
		t.Errorf("a drawn pose differs from its plan by %g (%.4f tick): a stale buffer", d.GPUDiffMax, d.GPUDiffMax/perTick)
	}
	if m.Backwards != 0 {
		t.Errorf("%d frames showed an earlier simulated time than the frame before", m.Backwards)
	}
	// No frame after a restore off its path: the worst drawn error is the
	// planner's own worst (a late simulation wake on a loaded machine can
	// make that one frame's plan clamp), never more; and the error is that
	// of a run without the restores.
	drawnMax, plannedMax := float64(d.PosErrGPU.Max())/1e6, float64(m.PosErr().Max())/1e6
	if drawnMax > plannedMax+1e-4 {
		t.Errorf("drawn position error max %.4f tick, above the planner's own max %.4f: a frame drawn off its plan", drawnMax, plannedMax)
	}
	if p := float64(d.PosErrGPU.Quantile(0.99)) / 1e6; p > 0.05 {
		t.Errorf("drawn position error p99 %.4f tick, want ≤ 0.05", p)
	}
}

// Space pauses and resumes, at 3 s and 6 s of a 9 s run at 60 Hz: the
// paused frames are counted, not measured, and the error stays that of a
// run without a pause.
func TestPausedFramesAreNotMeasured(t *testing.T) {
	space := []platform.Event{{Kind: platform.KeyEvent, Key: platform.KeySpace, Action: platform.Press}}
	a := runApp(t, Config{}, refresh(60), 9*time.Second, func(a *loop.App, _ *loop.View, n int) {
		if n == 180 || n == 360 {
			a.Handle(space)
		}
	})
	m := a.meter()
	t.Logf("%d frames, %d paused (stats %d); planned error p99 %.4f tick, drawn %.4f, animation error p99 %.3f ms (shown %.3f); clamped %d",
		a.report.Frames, m.Paused, a.report.PausedFrames, m.PosErrTicks(0.99), float64(m.Drawn().PosErrGPU.Quantile(0.99))/1e6,
		m.AnimErrMs(0.99), float64(m.Drawn().AnimErrShown.Quantile(0.99))/1e6, a.report.AlphaClampedFrames)
	if m.Paused < 150 || a.report.PausedFrames != m.Paused {
		t.Errorf("%d paused frames (stats %d), want about 180 counted by both", m.Paused, a.report.PausedFrames)
	}
	// A paused frame measured against the truth (which runs on while the
	// world is paused) would read the pause's length, hundreds of ticks;
	// the bound is the stress targets' 0.05 tick, which a loaded machine
	// (a late simulation wake, one clamped plan) stays within (0.0125
	// read beside a build loop, against < 0.01 quiet).
	if p := m.PosErrTicks(0.99); p > 0.05 {
		t.Errorf("animation error p99 %.4f tick with a pause, want ≤ 0.05", p)
	}
	if p := float64(m.Drawn().PosErrGPU.Quantile(0.99)) / 1e6; p > 0.05 {
		t.Errorf("drawn error p99 %.4f tick with a pause, want ≤ 0.05", p)
	}
	if a.report.AlphaClampedFrames > 5 {
		t.Errorf("%d frames clamped: the paused ones must not count", a.report.AlphaClampedFrames)
	}
}

// refresh is the settings of a display of hz emulated in software.
func refresh(hz float64) Settings {
	return Settings{Runtime: Runtime{Display: Display{Refresh: hz}}}
}

// smallApp sets cfg and set up for a real App of 64 reference bodies
// measured against their closed form, 320×240, HUD hidden, running
// unfocused, and returns its world. It needs a display, which make test
// provides.
func smallApp(t testing.TB, cfg *Config, set *Settings, title string) *refworld.World {
	t.Helper()
	if os.Getenv("DISPLAY") == "" {
		t.Fatal("needs a display: run make test (or make bench-instruments), which starts Xvfb, or set DISPLAY")
	}
	world, err := refworld.New(64, 1)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Title, cfg.Width, cfg.Height, cfg.Look.HideHUD = title, 320, 240, true
	set.Display.KeepRunningUnfocused = true
	set.Tools.Truth, set.Tools.TruthSpeed = refworld.RefPosition, refworld.RefSpeed
	set.Sim.InitSnapshot = func(s *simthread.Snapshot) { s.Bodies = make([]simthread.Body, 0, 64) }
	return world
}
