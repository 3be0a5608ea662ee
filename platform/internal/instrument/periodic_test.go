package instrument

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
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
		if n, where := mallocs(200, tc.f); n != 0 {
			t.Errorf("%s allocated %d times in 200 calls, the first at%s", tc.name, n, where)
		}
	}
}

// mallocs returns how many heap objects n calls of f allocate, every one
// counted (testing.AllocsPerRun calls f once unmeasured first and rounds
// the mean down, which hides an allocation that happens once), and the
// stack of the first. Only allocations made beneath the calls count: the
// heap profile samples every allocation while they run, and a sample is
// theirs when measuredCalls is on its stack. The process's malloc count
// (runtime.MemStats) also counted whatever another goroutine allocated
// meanwhile: a test left running, the runtime's own.
func mallocs(n int, f func()) (uint64, string) {
	defer func(rate int) { runtime.MemProfileRate = rate }(runtime.MemProfileRate)
	runtime.GC() // what was allocated before is published
	before := measuredSamples()
	runtime.MemProfileRate = 1
	measuredCalls(n, f)
	runtime.MemProfileRate = 0
	runtime.GC() // and now what the calls allocated
	runtime.GC()
	var count uint64
	var first string
	for stack, after := range measuredSamples() {
		if d := after - before[stack]; d > 0 {
			count += uint64(d)
			if first == "" {
				first = describeStack(stack)
			}
		}
	}
	return count, first
}

// measuredCalls calls f n times; mallocs counts what is allocated beneath
// it. It must not be inlined: its frame is how a sample is recognised.
//
//go:noinline
func measuredCalls(n int, f func()) {
	for range n {
		f()
	}
}

// measuredSamples returns the heap profile's allocation counts by stack,
// for the stacks that pass through measuredCalls.
func measuredSamples() map[[32]uintptr]int64 {
	var recs []runtime.MemProfileRecord
	n, _ := runtime.MemProfile(nil, true)
	for {
		recs = make([]runtime.MemProfileRecord, n+64)
		var ok bool
		if n, ok = runtime.MemProfile(recs, true); ok {
			recs = recs[:n]
			break
		}
	}
	out := make(map[[32]uintptr]int64)
	for _, r := range recs {
		frames := runtime.CallersFrames(r.Stack())
		for {
			fr, more := frames.Next()
			if strings.HasSuffix(fr.Function, ".measuredCalls") {
				out[r.Stack0] += r.AllocObjects
				break
			}
			if !more {
				break
			}
		}
	}
	return out
}

// describeStack names the functions of a sampled stack, innermost first.
func describeStack(stack [32]uintptr) string {
	var b strings.Builder
	frames := runtime.CallersFrames(stack[:])
	for {
		fr, more := frames.Next()
		if fr.Function != "" {
			fmt.Fprintf(&b, "\n\t%s (%s:%d)", fr.Function, filepath.Base(fr.File), fr.Line)
		}
		if !more || strings.HasSuffix(fr.Function, ".measuredCalls") {
			return b.String()
		}
	}
}

// TestMallocsCountsOnlyTheCalls holds the counter to what it claims: a
// goroutine allocating all along beside the calls adds nothing, one
// allocation in each call is counted once a call, and the first one's
// stack names the function that made it.
func TestMallocsCountsOnlyTheCalls(t *testing.T) {
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
				besideSink = make([]byte, 64)
			}
		}
	}()
	defer func() { close(stop); <-done }()
	buf := make([]byte, 0, 64)
	if n, where := mallocs(200, func() { buf = append(buf[:0], 'x') }); n != 0 {
		t.Errorf("a call that allocates nothing: %d allocations counted, the first at%s", n, where)
	}
	n, where := mallocs(200, allocateOnce)
	if n != 200 {
		t.Errorf("a call that allocates once: %d allocations counted in 200 calls, want 200", n)
	}
	if !strings.Contains(where, ".allocateOnce") {
		t.Errorf("the allocation's stack does not name allocateOnce:%s", where)
	}
}

// sink keeps allocateOnce's allocation on the heap, besideSink the other
// goroutine's.
var sink, besideSink []byte

//go:noinline
func allocateOnce() { sink = make([]byte, 48) }

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
