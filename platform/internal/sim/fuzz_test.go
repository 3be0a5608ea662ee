package sim

import (
	"testing"
	"time"

	"github.com/tickframe/tickframe/simthread"
)

// FuzzTiming feeds arbitrary configurations and wake times to the
// scheduler: a configuration is either refused with an error or yields a
// scheduler that never runs more than MaxSteps steps per wake, keeps its
// accumulator in range, and conserves time.
func FuzzTiming(f *testing.F) {
	f.Add(120, 8, int64(250*time.Millisecond), uint8(0), int64(3*time.Millisecond), int64(40*time.Millisecond))
	f.Add(0, 0, int64(0), uint8(1), int64(time.Second), int64(time.Hour))
	f.Add(-1, -1, int64(-1), uint8(7), int64(-5), int64(1))
	f.Add(10000, 1000, int64(time.Minute), uint8(1), int64(1), int64(1<<62))
	f.Fuzz(func(t *testing.T, rate, maxSteps int, maxDelta int64, overload uint8, dt1, dt2 int64) {
		tm := simthread.Timing{Rate: rate, MaxSteps: maxSteps, MaxDelta: time.Duration(maxDelta), Overload: simthread.Overload(overload)}
		s, err := newScheduler(tm)
		if (err == nil) != (tm.Validate() == nil) {
			t.Fatalf("NewScheduler and Validate disagree on %+v: %v", tm, err)
		}
		if err != nil {
			return
		}
		tm = s.Timing()
		if tm.Rate < 1 || tm.Rate > simthread.MaxRate || tm.MaxSteps < 1 || tm.MaxDelta < tm.Step() {
			t.Fatalf("accepted %+v", tm)
		}
		// Bound the wake times so that a run stays within a century.
		clampDt := func(d int64) time.Duration {
			if d < 0 {
				d = -d
			}
			return time.Duration(d % int64(100*time.Hour))
		}
		now := time.Duration(0)
		s.Start(now)
		for i, dt := range []time.Duration{clampDt(dt1), clampDt(dt2), clampDt(dt1) / 3, tm.Step(), 0} {
			now += dt
			w := s.Advance(now)
			if w.Steps < 0 || w.Steps > tm.MaxSteps {
				t.Fatalf("wake %d ran %d steps with MaxSteps %d", i, w.Steps, tm.MaxSteps)
			}
			acc := s.Accumulator()
			if acc < 0 || (tm.Overload == simthread.Discard && acc > tm.Step()) {
				t.Fatalf("wake %d: accumulator %v (step %v)", i, acc, tm.Step())
			}
			st := s.Stats()
			counted := now - st.Clamped - st.Paused
			if got := s.DiscardedTime(st.Tick+st.DiscardedTicks) + acc; got-counted > 1 || counted-got > 1 {
				t.Fatalf("wake %d: time not conserved: %v accounted, %v elapsed", i, got, counted)
			}
		}
	})
}
