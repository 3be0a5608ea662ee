package interp_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tickframe/tickframe/platform/internal/interp"
)

// TestDisplayedTimeNeverRunsBackwards is a property test: whatever the
// publish delays (spikes raise the adaptive delay by up to a frame at a
// time) and however the lead moves (a just-in-time lead rises by up to
// 250 µs a frame and falls by 50 µs, as platform/app's does), successive
// frames' render times and displayed simulated times never go back. The
// two rises landing on one frame moved the render time back by the
// lead's rise.
func TestDisplayedTimeNeverRunsBackwards(t *testing.T) {
	const leadRise, leadFall = 250 * time.Microsecond, 50 * time.Microsecond
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 24))
		rate := []int{30, 60, 120, 240}[rng.IntN(4)]
		hz := []float64{60, 144, 240, 360}[rng.IntN(4)]
		step := time.Second / time.Duration(rate)
		period := time.Duration(1e9 / hz)
		p, c := newView(t, min(interp.HistoryFor(interp.DelayLimit(step), min(step, period)), 64))
		pl := interp.NewPlanner(c, interp.NewDelay(step, 0))
		tickTime := func(k uint64) time.Duration { return time.Duration(k) * step }
		var tick uint64
		var pubDelay time.Duration
		pub := func(k uint64, d time.Duration) {
			s := p.Slot()
			s.Tick, s.Time, s.Published, s.PeakDelay = k, tickTime(k), tickTime(k)+d, d
			p.Publish()
		}
		pub(0, 0)
		var lead, lastR time.Duration
		lastSim := -1.0
		f := time.Duration(0)
		for i := 0; i < int(hz)*20; i++ {
			f += period
			if rng.IntN(50) == 0 {
				f += time.Duration(rng.IntN(3)) * period // a missed vblank or two
			}
			if rng.IntN(200) == 0 {
				pubDelay = time.Duration(rng.Int64N(int64(3 * step))) // a spike
			} else if rng.IntN(20) == 0 {
				pubDelay = time.Duration(rng.Int64N(int64(time.Millisecond)))
			}
			for tickTime(tick+1)+pubDelay <= f {
				tick++
				pub(tick, pubDelay)
			}
			// The lead rises by up to its step on the frames the spikes
			// come (when the delay rises too), and falls slowly.
			switch r := rng.IntN(8); {
			case r < 3:
				lead = min(lead+time.Duration(rng.Int64N(int64(leadRise)+1)), period)
			case r < 5:
				lead = max(lead-leadFall, 0)
			}
			pl.SetLead(lead)
			plan := pl.Plan(f)
			if plan.RenderTime != f-plan.Delay {
				t.Fatalf("seed %d frame %d: render time %v is not the frame time %v minus the delay %v", seed, i, plan.RenderTime, f, plan.Delay)
			}
			if i > 0 && plan.RenderTime < lastR {
				t.Fatalf("seed %d (%d Hz ticks, %v Hz frames) frame %d: render time went back by %v (delay %v, lead %v)",
					seed, rate, hz, i, lastR-plan.RenderTime, pl.Delay().Value(), lead)
			}
			lastR = plan.RenderTime
			if plan.Ready {
				if plan.SimTick < lastSim {
					t.Fatalf("seed %d frame %d: displayed tick went back from %v to %v", seed, i, lastSim, plan.SimTick)
				}
				lastSim = plan.SimTick
			}
		}
	}
}
