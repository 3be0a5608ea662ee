package instrument

import (
	"testing"
	"time"

	"github.com/tickframe/tickframe/platform/internal/interp"
	"github.com/tickframe/tickframe/platform/internal/loop"
	"github.com/tickframe/tickframe/platform/internal/refworld"
	"github.com/tickframe/tickframe/platform/internal/sim"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/simthread"
)

// headless is the instruments of an App with no window
// (loop.NewHeadless): the simulation on a virtual clock, the planner and
// the meter, with a frame to plan.
type headless struct {
	*Set
	f    loop.Frame
	plan renderer.Plan
}

// Sim returns the simulation.
func (a *headless) Sim() *sim.Sim { return a.run.Sim }

// planAt plans a frame at display time at, since the first frame, as the
// loop's planning step does with the instruments attached (Planned), and
// returns its plan.
func (a *headless) planAt(at, since time.Duration) renderer.Plan {
	a.f = loop.Frame{At: at, Since: since, Plan: &a.plan}
	a.plan = a.run.Pipeline.Plan(at)
	a.Planned(&a.f)
	return a.plan
}

// newHeadless builds a headless App of the reference world with that many
// bodies.
func newHeadless(t testing.TB, bodies int) (*headless, *sim.VirtualClock) {
	t.Helper()
	return newHeadlessInputs(t, bodies, 0)
}

// newHeadlessInputs is newHeadless with an input queue of that capacity
// (0: the default).
func newHeadlessInputs(t testing.TB, bodies, inputs int) (*headless, *sim.VirtualClock) {
	t.Helper()
	world, err := refworld.New(bodies, 1)
	if err != nil {
		t.Fatal(err)
	}
	clock := new(sim.VirtualClock)
	cfg := loop.Config{Sim: simthread.Tuning{Inputs: inputs, InitSnapshot: func(s *simthread.Snapshot) {
		s.Bodies = make([]simthread.Body, 0, bodies)
	}}}
	in := New(Options{Reference: &interp.Reference{Body: 0, Truth: refworld.RefPosition, Speed: refworld.RefSpeed}})
	la, err := loop.NewHeadless(cfg, world, clock, in)
	if err != nil {
		t.Fatal(err)
	}
	if la.Pipeline().Meter() == nil {
		t.Fatal("no meter: the instruments' Open did not reach the pipeline")
	}
	// The run's view as a headless App has it (loop.View): no window, no
	// renderer, unpaced, no scheduling governor.
	in.run = &loop.View{Config: cfg, Sim: la.Sim(), Pipeline: la.Pipeline(), Paused: la.Paused,
		Pacing: func() loop.Pacing { return loop.Pacing{} }, SchedAllocs: func() uint64 { return 0 }}
	return &headless{Set: in}, clock
}

// TestFramePathDoesNotAllocate runs the frame's work up to the GL calls
// (acquire, plan, measure, count) for 144 Hz frames over a 120 Hz
// simulation, and checks that a steady-state frame allocates nothing.
func TestFramePathDoesNotAllocate(t *testing.T) {
	a, clock := newHeadless(t, 1000)
	next, _ := a.Sim().Wake()
	frame := time.Duration(0)
	step := func() {
		frame += time.Second / 144
		for next <= frame {
			clock.Set(next)
			next, _ = a.Sim().Wake()
		}
		a.planAt(frame, frame)
		a.stats.Series.add(frameSample{At: frame})
		a.stats.swapped(frame)
	}
	for i := 0; i < 300; i++ { // warm up: fill every slot and the series
		step()
	}
	clamped := a.stats.Clamped // the first frame, before tick 1, clamps
	if n := testing.AllocsPerRun(500, step); n != 0 {
		t.Fatalf("a frame allocates %.1f times", n)
	}
	if a.stats.Clamped != clamped || a.run.Pipeline.Meter().PosErr().Count() == 0 {
		t.Fatalf("%d frames clamped in steady state, %d measured", a.stats.Clamped-clamped, a.run.Pipeline.Meter().PosErr().Count())
	}
	if p99 := a.run.Pipeline.Meter().PosErrTicks(0.99); p99 > 0.05 {
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
	var steady, beating beatDetector
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
	var ratio beatDetector
	for i := 0; i < 400; i++ {
		ratio.Add(uint64((i*5)/6 - ((i-1)*5)/6))
	}
	if ratio.Beating() {
		t.Fatal("120 Hz on 144 Hz flagged as a beat")
	}
}
