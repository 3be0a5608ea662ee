package instrument

import (
	"runtime"
	"testing"
	"time"

	"github.com/tickframe/tickframe/platform/internal/sched"
	"github.com/tickframe/tickframe/renderer"
)

// steadyFrames runs the headless app through a warm-up of 144 Hz frames
// over its 120 Hz simulation and returns a function that runs one more
// frame of planning (as TestFramePathDoesNotAllocate does) and returns
// its plan.
func steadyFrames(t testing.TB, a *headless, clock interface{ Set(time.Duration) }) func() renderer.Plan {
	t.Helper()
	next, _ := a.Sim().Wake()
	frame := time.Duration(0)
	step := func() renderer.Plan {
		frame += time.Second / 144
		for next <= frame {
			clock.Set(next)
			next, _ = a.Sim().Wake()
		}
		plan := a.planAt(frame, frame)
		a.stats.Series.add(frameSample{At: frame})
		a.stats.swapped(frame)
		return plan
	}
	for range 3 * 144 { // past the meter's warm-up, every slot filled
		step()
	}
	return step
}

// TestPeriodicPathsDoNotAllocate runs what the frame loop does now and
// then in the steady state, over and over after the warm-up: the HUD's
// rebuild (every line, the scheduling latency's read and mark, the GC
// count), the warm-up's end, a meter's Reset. None may allocate: a long
// run would otherwise show allocations and GC cycles that a short one
// never reaches (the report's alloc_objects_per_frame and gc_cycles).
func TestPeriodicPathsDoNotAllocate(t *testing.T) {
	a, clock := newHeadless(t, 256)
	step := steadyFrames(t, a, clock)
	var h renderer.HUD
	a.hud.lat = sched.NewLatency()
	a.lat = sched.NewLatency()
	plan := step()
	now := 3 * time.Second
	a.hud.rebuild(&h, a.Set, true, now, &plan) // with the small counts of the start
	// Then every count the lines show at its longest: a line that grew
	// past its buffer would allocate in the first call measured.
	const huge = ^uint64(0)
	a.stats.Clamped, a.stats.Paused, a.stats.Delay = huge, huge, 1<<62
	a.stats.Present = presentStats{Displayed: huge, Dropped: huge, Repeated: huge, Unknown: huge}
	for i := range a.stats.TicksPerFrame {
		a.stats.TicksPerFrame[i] = huge / ticksPerFrameBuckets
	}
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"hud", func() {
			plan := step()
			now += hudPeriod
			a.hud.rebuild(&h, a.Set, true, now, &plan)
		}},
		{"warm-up end", func() {
			tel := a.Sim().Telemetry().Read()
			a.steady.mark(now, a.stats.Frames, &tel, a.run.SchedAllocs())
			a.lat.Mark()
		}},
		{"meter reset", func() { a.run.Pipeline.Meter().Reset() }},
	} {
		if tc.name != "hud" {
			tc.f() // buffers of the first call aside
		}
		if n := mallocs(200, tc.f); n != 0 {
			t.Errorf("%s allocated %d times in 200 calls", tc.name, n)
		}
	}
}

// mallocs returns how many heap objects n calls of f allocate, every one
// counted (testing.AllocsPerRun calls f once unmeasured first and rounds
// the mean down, which hides an allocation that happens once).
func mallocs(n int, f func()) uint64 {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range n {
		f()
	}
	runtime.ReadMemStats(&after)
	return after.Mallocs - before.Mallocs
}

// BenchmarkPeriodic measures the paths TestPeriodicPathsDoNotAllocate
// checks, with their allocations (go test -bench Periodic -benchmem
// ./platform/app).
func BenchmarkPeriodic(b *testing.B) {
	a, clock := newHeadless(b, 256)
	step := steadyFrames(b, a, clock)
	var h renderer.HUD
	a.hud.lat = sched.NewLatency()
	plan := step()
	now := 3 * time.Second
	b.Run("path=hud", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			now += hudPeriod
			a.hud.rebuild(&h, a.Set, true, now, &plan)
		}
	})
	b.Run("path=meter-reset", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			a.run.Pipeline.Meter().Reset()
		}
	})
}
