package app

import (
	"testing"
	"time"

	"github.com/go-gl/glfw/v3.3/glfw"
	"github.com/tickframe/tickframe/platform"
	"github.com/tickframe/tickframe/renderer/interp"
	"github.com/tickframe/tickframe/simthread"
	"github.com/tickframe/tickframe/simthread/refworld"
)

// newHeadless builds the part of an App that needs no window: the
// simulation on a virtual clock, the planner, the meter and the stats.
func newHeadless(t testing.TB, bodies int) (*App, *simthread.VirtualClock) {
	t.Helper()
	world, err := refworld.New(bodies, 1)
	if err != nil {
		t.Fatal(err)
	}
	clock := new(simthread.VirtualClock)
	sim, err := simthread.New(simthread.Config{InitSnapshot: func(s *simthread.Snapshot) {
		s.Bodies = make([]simthread.Body, 0, bodies)
	}}, world, clock)
	if err != nil {
		t.Fatal(err)
	}
	a := &App{sim: sim, gc: newGCMetrics()}
	a.planner = interp.NewPlanner(sim.Snapshots(), interp.NewDelay(sim.Step(), 0))
	a.meter = &interp.Meter{Rate: sim.Config().Rate, Truth: refworld.RefPosition, Speed: refworld.RefSpeed}
	return a, clock
}

// TestFramePathDoesNotAllocate runs the frame's work up to the GL calls
// (acquire, plan, measure, count) for 144 Hz frames over a 120 Hz
// simulation, and checks that a steady-state frame allocates nothing.
func TestFramePathDoesNotAllocate(t *testing.T) {
	a, clock := newHeadless(t, 1000)
	next, _ := a.sim.Wake()
	frame := time.Duration(0)
	step := func() {
		frame += time.Second / 144
		for next <= frame {
			clock.Set(next)
			next, _ = a.sim.Wake()
		}
		a.plan(frame, frame)
		a.stats.Series.add(Sample{At: frame})
		a.stats.swapped(frame)
	}
	for i := 0; i < 300; i++ { // warm up: fill every slot and the series
		step()
	}
	clamped := a.stats.Clamped // the first frame, before tick 1, clamps
	if n := testing.AllocsPerRun(500, step); n != 0 {
		t.Fatalf("a frame allocates %.1f times", n)
	}
	if a.stats.Clamped != clamped || a.meter.PosErr.Count() == 0 {
		t.Fatalf("%d frames clamped in steady state, %d measured", a.stats.Clamped-clamped, a.meter.PosErr.Count())
	}
	if p99 := a.meter.PosErrTicks(0.99); p99 > 0.05 {
		t.Fatalf("position error p99 %.3f ticks", p99)
	}
}

func TestGCCyclesReadDoesNotAllocate(t *testing.T) {
	g := newGCMetrics()
	g.cycles()
	if n := testing.AllocsPerRun(100, func() { g.cycles() }); n != 0 {
		t.Fatalf("reading the GC count allocates %.1f times", n)
	}
}

func TestBeatDetector(t *testing.T) {
	var steady, beating BeatDetector
	for i := 0; i < 400; i++ {
		steady.Add(1) // 60 Hz on 60 Hz, in phase
		if i%2 == 0 {
			beating.Add(0) // the same rates, out of phase: 0, 2, 0, 2
		} else {
			beating.Add(2)
		}
	}
	if steady.Beating() || steady.Frames != 0 {
		t.Fatal("a steady 1 tick per frame was flagged")
	}
	if !beating.Beating() || beating.Frames == 0 {
		t.Fatal("0/2 alternation was not flagged")
	}
	// 120 Hz on 144 Hz: 0 or 1 tick per frame is the floor/ceil, no beat.
	var ratio BeatDetector
	for i := 0; i < 400; i++ {
		ratio.Add(uint64((i*5)/6 - ((i-1)*5)/6))
	}
	if ratio.Beating() {
		t.Fatal("120 Hz on 144 Hz flagged as a beat")
	}
}

// TestEventsPauseAndForward feeds window events to the app's handler: an
// iconified window or a focus loss pauses the simulation and restoring it
// resumes it, Space toggles a pause of its own, Esc and a close request
// quit, and other keys reach the world only through Config.Input and the
// simulation's input queue.
func TestEventsPauseAndForward(t *testing.T) {
	a, clock := newHeadless(t, 10)
	var forwarded []platform.Event
	a.cfg.Input = func(e platform.Event) (simthread.Input, bool) {
		forwarded = append(forwarded, e)
		return simthread.Input{Kind: refworld.Kick, X: 1}, e.Key == glfw.KeyK
	}
	next, _ := a.sim.Wake()
	wake := func() {
		clock.Set(next)
		next, _ = a.sim.Wake()
	}
	paused := func() bool { wake(); return a.sim.Telemetry().Paused() }

	steps := []struct {
		name   string
		events []platform.Event
		paused bool
	}{
		{"iconify", []platform.Event{{Kind: platform.IconifyEvent, On: true}}, true},
		{"restore", []platform.Event{{Kind: platform.IconifyEvent, On: false}}, false},
		{"focus lost", []platform.Event{{Kind: platform.FocusEvent, On: false}}, true},
		{"focus back", []platform.Event{{Kind: platform.FocusEvent, On: true}}, false},
		{"space", []platform.Event{{Kind: platform.KeyEvent, Key: glfw.KeySpace, Action: glfw.Press}}, true},
		{"iconify while paused", []platform.Event{{Kind: platform.IconifyEvent, On: true}}, true},
		{"restore, still paused by space", []platform.Event{{Kind: platform.IconifyEvent, On: false}}, true},
		{"space again", []platform.Event{{Kind: platform.KeyEvent, Key: glfw.KeySpace, Action: glfw.Press}}, false},
	}
	for _, s := range steps {
		a.handle(s.events)
		if got := paused(); got != s.paused {
			t.Fatalf("%s: paused %v, want %v", s.name, got, s.paused)
		}
	}
	a.cfg.KeepRunningUnfocused = true
	a.handle([]platform.Event{{Kind: platform.FocusEvent, On: false}})
	if paused() {
		t.Fatal("KeepRunningUnfocused: a focus loss paused the simulation")
	}

	ticks := a.sim.Telemetry().Read().Inputs
	a.handle([]platform.Event{
		{Kind: platform.KeyEvent, Key: glfw.KeyK, Action: glfw.Press},
		{Kind: platform.KeyEvent, Key: glfw.KeyK, Action: glfw.Release},
		{Kind: platform.KeyEvent, Key: glfw.KeyJ, Action: glfw.Press},
	})
	wake()
	if got := a.sim.Telemetry().Read().Inputs - ticks; got != 1 {
		t.Fatalf("%d inputs reached the world, want the one K press", got)
	}
	if len(forwarded) != 2 {
		t.Fatalf("Config.Input saw %d events, want the two presses (releases are not forwarded)", len(forwarded))
	}
	if a.quit {
		t.Fatal("quit before Esc")
	}
	a.handle([]platform.Event{{Kind: platform.KeyEvent, Key: glfw.KeyEscape, Action: glfw.Press}})
	if !a.quit {
		t.Fatal("Esc did not quit")
	}
	a.quit = false
	a.handle([]platform.Event{{Kind: platform.CloseEvent}})
	if !a.quit {
		t.Fatal("closing the window did not quit")
	}
}
