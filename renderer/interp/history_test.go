package interp_test

import (
	"testing"
	"time"

	"github.com/tickframe/tickframe/renderer/interp"
	"github.com/tickframe/tickframe/simthread"
	"github.com/tickframe/tickframe/sync/waitfree"
)

// One stall of 90 ms in a 120 Hz simulation shown at 144 Hz raises the
// adaptive delay towards its limit for the delay's window. With the
// history HistoryFor gives, the frames after the stall still find a pair
// that brackets their render time; with the old fixed 8 snapshots, they
// showed the oldest snapshot as is (early clamps) for seconds. The stall
// itself costs the frames it covers (late clamps), counted.
func TestHistoryCoversTheDelayAfterAStall(t *testing.T) {
	const rate = 120
	step := simthread.Timing{Rate: rate}.Step()
	history := interp.HistoryFor(interp.DelayLimit(step), step)
	for _, c := range []struct {
		history  int
		maxEarly uint64 // early clamps allowed after the stall
	}{{history, 5}, {simthread.DefaultHistory, 0}} {
		sim, view, err := waitfree.NewTripleBuffer[simthread.Snapshot](c.history, nil)
		if err != nil {
			t.Fatal(err)
		}
		planner := interp.NewPlanner(view, interp.NewDelay(step, 0))
		const frame = time.Second / 144
		stallAt, stall := 2*time.Second, 90*time.Millisecond
		var tick uint64
		var now time.Duration
		for now = 0; now < 6*time.Second; now += frame {
			// Publish every tick due by now; during the stall none, then
			// the ticks it held back, late, in one wake.
			if now < stallAt || now >= stallAt+stall {
				wake := now
				for step*time.Duration(tick) <= now {
					s := sim.Slot()
					s.Tick, s.Time = tick, time.Duration(tick)*step
					s.Published = wake + 200*time.Microsecond
					s.PeakDelay = s.Published - s.Time
					if first := stallAt; s.Time >= first-step && s.Time < first+stall {
						// Measured from the first tick the late wake ran.
						s.PeakDelay = stallAt + stall - first + 200*time.Microsecond
					}
					sim.Publish()
					tick++
				}
			}
			planner.Plan(now)
		}
		st := planner.Stats()
		t.Logf("history %d: %d frames, late clamps %d, early clamps %d, delay now %v (limit %v)",
			c.history, st.Frames, st.Late, st.Early, planner.Delay().Value(), interp.DelayLimit(step))
		// The few frames as the delay jumps past the snapshots skipped in
		// the stall's burst (one acquire a frame) are early; no more.
		if c.maxEarly != 0 && st.Early > c.maxEarly {
			t.Errorf("history %d (HistoryFor): %d frames clamped early after one stall, want ≤ %d", c.history, st.Early, c.maxEarly)
		}
		if c.maxEarly == 0 && st.Early < 100 {
			t.Errorf("history %d: only %d early clamps; the test no longer shows what a short history does", c.history, st.Early)
		}
	}
}
