package instrument

import (
	"testing"
	"time"

	"github.com/tickframe/tickframe/platform/internal/sim"
	"github.com/tickframe/tickframe/renderer"
)

// benchSince is the time since the first frame passed to plan: past the
// warm-up, as in the steady state (the meter runs in every frame either
// way).
const benchSince = 2 * time.Second

// benchWarmTicks is how many ticks the benchmarks run, one frame each,
// before measuring: enough to fill the snapshot history and to let the
// adaptive render delay fall from its initial margin to its target.
const benchWarmTicks = 24

// frameWork is the render thread's work for one frame up to the GL calls,
// as Run does it: plan (acquire, plan the interpolation, meter, stats) and
// the series and swap bookkeeping. What Run does besides needs a window or
// the renderer (events, the HUD, drawing, the swap itself).
func frameWork(a *headless, frame time.Duration) renderer.Plan {
	plan := a.planAt(frame, benchSince)
	if plan.Ready {
		a.stats.Series.add(frameSample{At: frame, Alpha: plan.Alpha, NewTicks: uint8(min(plan.NewTicks, 255)),
			PosErr: float32(a.run.Pipeline.Meter().LastPos), AnimErr: float32(a.run.Pipeline.Meter().LastAnim)})
	}
	a.stats.swapped(frame)
	return plan
}

// warmFrames runs benchWarmTicks ticks of the headless app's simulation
// with one frame at each tick's time (a display at the tick rate), and
// returns the next tick's deadline.
func warmFrames(b *testing.B, a *headless, clock *sim.VirtualClock) (next time.Duration) {
	b.Helper()
	next, err := a.Sim().Wake()
	for range benchWarmTicks {
		if err != nil {
			b.Fatal(err)
		}
		clock.Set(next)
		frame := next
		next, err = a.Sim().Wake()
		frameWork(a, frame)
	}
	if err != nil {
		b.Fatal(err)
	}
	return next
}

// BenchmarkFrame measures the CPU cost of the render thread's frame up to
// the GL calls (frameWork) with the reference world at three sizes. Nothing
// in it touches the bodies except the meter, which reads body 0, so its cost
// should not depend on their number: the target is snapshot=none at 100k
// bodies within 1.5 × at 1k.
//
//   - snapshot=none: frames that find nothing new to acquire. After a
//     warm-up, the b.N frames sweep the middle three quarters of one tick
//     bracket and the simulation is not woken, so every measured frame
//     interpolates (no clamp) between the same two snapshots, as a frame
//     between two publishes does on a display faster than the tick rate.
//     The frame times are spread over the bracket by b.N, so beyond about
//     6 M frames successive ones may share a nanosecond.
//   - snapshot=new: a display at the tick rate: before each frame the
//     simulation is woken and runs and publishes exactly one tick, so every
//     frame acquires a new snapshot. The wake costs far more than the frame
//     (a whole refworld step), and stopping the timer around it would make
//     b.Loop run millions of steps, so the timer runs through the whole op
//     and the frame alone is timed with time.Now: ns/op is that frame time
//     (it includes one time.Now/time.Since pair, about 40 ns here), while
//     allocs/op and B/op count the wake too. The wake runs on the same core
//     just before the frame and leaves its caches cold, which the app's
//     simulation goroutine, on another core, mostly does not; this
//     overstates the frame's cost at 100k bodies.
func BenchmarkFrame(b *testing.B) {
	for _, size := range []struct {
		name string
		n    int
	}{{"1k", 1_000}, {"10k", 10_000}, {"100k", 100_000}} {
		n := size.n
		b.Run("bodies="+size.name+"/snapshot=none", func(b *testing.B) {
			a, clock := newHeadless(b, n)
			warmFrames(b, a, clock)
			view := a.Sim().Snapshots()
			step := a.Sim().Step()
			// The newest snapshot is tick K at tK; the last warm-up
			// frame was at tK. Render times (frame − delay) sweep
			// [t(K−1) + step/8, t(K−1) + 7·step/8]: frames start at
			// tK − step + delay + step/8, not before tK as delay ≥ step.
			tK := view.History(0).Time
			base := tK - step + a.run.Pipeline.Planner().Delay().Value() + step/8
			span := int64(step * 3 / 4)
			acquired, clamped, frames := view.Acquired(), a.stats.Clamped, a.stats.Frames
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				frameWork(a, base+time.Duration(span*int64(i)/int64(b.N)))
			}
			b.StopTimer()
			if view.Acquired() != acquired || a.stats.Clamped != clamped || a.stats.Frames-frames != uint64(b.N) {
				b.Fatalf("%d of %d frames acquired a snapshot, %d clamped, %d planned",
					view.Acquired()-acquired, b.N, a.stats.Clamped-clamped, a.stats.Frames-frames)
			}
		})
		b.Run("bodies="+size.name+"/snapshot=new", func(b *testing.B) {
			a, clock := newHeadless(b, n)
			next := warmFrames(b, a, clock)
			var err error
			var frameTime time.Duration
			clamped := a.stats.Clamped
			b.ReportAllocs()
			for b.Loop() {
				clock.Set(next)
				frame := next
				if next, err = a.Sim().Wake(); err != nil {
					b.Fatal(err)
				}
				t0 := time.Now()
				plan := frameWork(a, frame)
				frameTime += time.Since(t0)
				if !plan.Acquired || plan.NewTicks != 1 {
					b.Fatalf("frame at %v: acquired %v, %d new ticks; want one new tick", frame, plan.Acquired, plan.NewTicks)
				}
			}
			if a.stats.Clamped != clamped {
				b.Fatalf("%d frames clamped", a.stats.Clamped-clamped)
			}
			b.ReportMetric(float64(frameTime.Nanoseconds())/float64(b.N), "ns/op")
		})
	}
}
