package sim

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tickframe/tickframe/simthread"
)

const ms = time.Millisecond

type advance struct {
	interval  time.Duration // time since the previous call
	steps     int
	acc       time.Duration // accumulator afterwards
	alpha     float64       // checked when not NaN
	discarded uint64
	clamped   time.Duration
}

func TestSchedulerTable(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name   string
		timing simthread.Timing
		seq    []advance
	}{
		{
			// 28.7: step 10 ms, frames of 16, 17 and 8 ms: 4 steps, 1 ms left.
			name:   "textbook 10ms step, 16 17 8",
			timing: simthread.Timing{Rate: 100},
			seq: []advance{
				{interval: 16 * ms, steps: 1, acc: 6 * ms, alpha: 0.6},
				{interval: 17 * ms, steps: 2, acc: 3 * ms, alpha: 0.3},
				{interval: 8 * ms, steps: 1, acc: 1 * ms, alpha: 0.1},
			},
		},
		{
			// h = 20 ms, 6 ms in the accumulator, a 29 ms interval: 1 step,
			// 15 ms left, alpha 0.75.
			name:   "textbook 20ms step, 6 then 29",
			timing: simthread.Timing{Rate: 50},
			seq: []advance{
				{interval: 6 * ms, steps: 0, acc: 6 * ms, alpha: 0.3},
				{interval: 29 * ms, steps: 1, acc: 15 * ms, alpha: 0.75},
			},
		},
		{
			// Exercises 1 and 2: 55 ms from zero, then 12 ms more.
			name:   "textbook 20ms step, 55 then 12",
			timing: simthread.Timing{Rate: 50},
			seq: []advance{
				{interval: 55 * ms, steps: 2, acc: 15 * ms, alpha: 0.75},
				{interval: 12 * ms, steps: 1, acc: 7 * ms, alpha: 0.35},
			},
		},
		{
			name:   "exact multiples",
			timing: simthread.Timing{Rate: 100},
			seq: []advance{
				{interval: 10 * ms, steps: 1, acc: 0, alpha: 0},
				{interval: 30 * ms, steps: 3, acc: 0, alpha: 0},
				{interval: 9 * ms, steps: 0, acc: 9 * ms, alpha: nan},
				{interval: 1 * ms, steps: 1, acc: 0, alpha: nan},
			},
		},
		{
			// A 1 s hitch: 750 ms are clamped away, 25 ticks are due, 8 run
			// and the other 17 are discarded, keeping the phase.
			name:   "clamp then discard",
			timing: simthread.Timing{Rate: 100},
			seq: []advance{
				{interval: 3 * ms, steps: 0, acc: 3 * ms, alpha: nan},
				{interval: time.Second, steps: 8, acc: 3 * ms, discarded: 17, clamped: 750 * ms, alpha: nan},
				{interval: 7 * ms, steps: 1, acc: 0, alpha: nan},
			},
		},
		{
			// Overload without a clamp: 200 ms late, 20 due, 8 run.
			name:   "cap discards",
			timing: simthread.Timing{Rate: 100},
			seq: []advance{
				{interval: 205 * ms, steps: 8, acc: 5 * ms, discarded: 12, alpha: 0.5},
				{interval: 5 * ms, steps: 1, acc: 0, alpha: nan},
			},
		},
		{
			// The same with Keep: the debt stays and is paid 8 at a time.
			name:   "cap keeps",
			timing: simthread.Timing{Rate: 100, Overload: simthread.Keep},
			seq: []advance{
				{interval: 205 * ms, steps: 8, acc: 125 * ms, alpha: 12.5},
				{interval: 0, steps: 8, acc: 45 * ms, alpha: nan},
				{interval: 0, steps: 4, acc: 5 * ms, alpha: nan},
			},
		},
		{
			name:   "max steps 1",
			timing: simthread.Timing{Rate: 100, MaxSteps: 1},
			seq: []advance{
				{interval: 25 * ms, steps: 1, acc: 5 * ms, discarded: 1, alpha: nan},
			},
		},
		{
			name:   "backwards time is ignored",
			timing: simthread.Timing{Rate: 100},
			seq: []advance{
				{interval: 15 * ms, steps: 1, acc: 5 * ms, alpha: nan},
				{interval: -10 * ms, steps: 0, acc: 5 * ms, alpha: nan},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := newScheduler(tt.timing)
			if err != nil {
				t.Fatal(err)
			}
			now := time.Duration(0)
			s.Start(now)
			for i, a := range tt.seq {
				now += a.interval
				w := s.Advance(now)
				if w.Steps != a.steps || w.DiscardedTicks != a.discarded || w.Clamped != a.clamped {
					t.Fatalf("advance %d (+%v): steps %d discarded %d clamped %v, want %d %d %v",
						i, a.interval, w.Steps, w.DiscardedTicks, w.Clamped, a.steps, a.discarded, a.clamped)
				}
				if got := s.Accumulator(); got != a.acc {
					t.Fatalf("advance %d: accumulator %v, want %v", i, got, a.acc)
				}
				if !math.IsNaN(a.alpha) && math.Abs(s.Alpha()-a.alpha) > 1e-9 {
					t.Fatalf("advance %d: alpha %v, want %v", i, s.Alpha(), a.alpha)
				}
				if a.interval < 0 {
					now -= a.interval // the scheduler ignored it; so do we
				}
			}
		})
	}
}

func TestSchedulerPauseResumeDoesNotCatchUp(t *testing.T) {
	s, _ := newScheduler(simthread.Timing{Rate: 100})
	s.Start(0)
	if w := s.Advance(25 * ms); w.Steps != 2 {
		t.Fatalf("steps %d, want 2", w.Steps)
	}
	s.Pause(27 * ms)
	if w := s.Advance(500 * ms); w.Steps != 0 {
		t.Fatalf("paused Advance ran %d steps", w.Steps)
	}
	s.Resume(time.Second)
	// 7 ms were owed at the pause (27 − 20): the next tick is due 3 ms
	// after resuming, and the 973 ms paused are never run.
	if got := s.NextDeadline(); got != time.Second+3*ms {
		t.Fatalf("next deadline %v, want 1.003s", got)
	}
	if w := s.Advance(time.Second + 2*ms); w.Steps != 0 {
		t.Fatalf("steps %d, want 0", w.Steps)
	}
	if w := s.Advance(time.Second + 3*ms); w.Steps != 1 {
		t.Fatalf("steps %d, want 1", w.Steps)
	}
	st := s.Stats()
	if st.Paused != 973*ms || st.Tick != 3 || st.DiscardedTicks != 0 || st.Clamps != 0 {
		t.Fatalf("stats %+v", st)
	}
}

// TestSchedulerNoDrift runs an hour at 120 Hz, whose step is not a whole
// number of nanoseconds, waking exactly at each deadline.
func TestSchedulerNoDrift(t *testing.T) {
	s, _ := newScheduler(simthread.Timing{Rate: 120})
	s.Start(0)
	const n = 120 * 3600
	for i := 0; i < n; i++ {
		if w := s.Advance(s.NextDeadline()); w.Steps != 1 {
			t.Fatalf("wake %d at its deadline ran %d steps", i, w.Steps)
		}
	}
	if s.Tick() != n || s.TickTime(n) != time.Hour {
		t.Fatalf("after an hour: tick %d at %v", s.Tick(), s.TickTime(n))
	}
	if got := s.TickTime(1); got != 8333334 {
		t.Fatalf("TickTime(1) = %d ns, want 8333334 (rounded up)", got)
	}
}

// TestSchedulerInvariants feeds random intervals, hitches and pauses and
// checks that time is conserved: every nanosecond is run as a tick, kept in
// the accumulator, clamped, discarded or paused, and nothing else.
func TestSchedulerInvariants(t *testing.T) {
	for _, policy := range []simthread.Overload{simthread.Discard, simthread.Keep} {
		for _, rate := range []int{30, 60, 64, 120, 144, 1000} {
			rng := rand.New(rand.NewPCG(uint64(rate), uint64(policy)))
			s, _ := newScheduler(simthread.Timing{Rate: rate, Overload: policy})
			s.Start(0)
			step := s.Timing().Step()
			now := time.Duration(0)
			for i := 0; i < 20000; i++ {
				switch r := rng.IntN(100); {
				case r < 2:
					now += time.Duration(rng.Int64N(int64(2 * time.Second))) // hitch
				case r < 3:
					s.Pause(now)
					now += time.Duration(rng.Int64N(int64(time.Second)))
					s.Resume(now)
				default:
					now += time.Duration(rng.Int64N(int64(3 * step)))
				}
				w := s.Advance(now)
				if w.Steps < 0 || w.Steps > s.Timing().MaxSteps {
					t.Fatalf("rate %d: %d steps", rate, w.Steps)
				}
				st := s.Stats()
				acc := s.Accumulator()
				if acc < 0 || (policy == simthread.Discard && acc >= step+1) {
					t.Fatalf("rate %d %v: accumulator %v outside [0, %v)", rate, policy, acc, step)
				}
				// Counted time: ticks run plus ticks discarded span exactly the
				// time that was neither clamped nor paused, less the accumulator.
				counted := now - st.Clamped - st.Paused
				ticks := st.Tick + st.DiscardedTicks
				if got := s.DiscardedTime(ticks) + acc; got-counted > 1 || counted-got > 1 {
					t.Fatalf("rate %d %v step %d: ticks %d span %v + acc %v = %v, want %v",
						rate, policy, i, ticks, s.DiscardedTime(ticks), acc, got, counted)
				}
			}
		}
	}
}

func TestTimingValidate(t *testing.T) {
	bad := []simthread.Timing{
		{Rate: -1},
		{Rate: simthread.MaxRate + 1},
		{MaxSteps: -3},
		{MaxSteps: simthread.MaxMaxSteps + 1},
		{Rate: 10, MaxDelta: 50 * ms},
		{Overload: 7},
	}
	for _, tm := range bad {
		if err := tm.Validate(); err == nil {
			t.Errorf("%+v: no error", tm)
		}
		if _, err := newScheduler(tm); err == nil {
			t.Errorf("NewScheduler(%+v): no error", tm)
		}
	}
	if err := (simthread.Timing{}).Validate(); err != nil {
		t.Errorf("zero Timing: %v", err)
	}
	for o, want := range map[simthread.Overload]string{simthread.Discard: "discard", simthread.Keep: "keep", 7: "Overload(7)"} {
		if got := o.String(); got != want {
			t.Errorf("Overload(%d).String() = %q, want %q", o, got, want)
		}
	}
}

// TestAccumulatorTextbook is the accumulator on the textbook numbers: a
// 20 ms step, 6 ms already in the accumulator, and a frame that took
// 29 ms. 35 ms are owed: one step runs, 15 ms are left over, and a
// renderer sharing the scheduler would draw 0.75 of the way from the
// previous state to the current one.
func TestAccumulatorTextbook(t *testing.T) {
	s, err := newScheduler(simthread.Timing{Rate: 50}) // 20 ms
	if err != nil {
		t.Fatal(err)
	}
	s.Start(0)
	if w := s.Advance(26 * ms); w.Steps != 1 || s.Accumulator() != 6*ms {
		t.Fatalf("at 26 ms: ran %d steps, %v in the accumulator; want 1, 6ms", w.Steps, s.Accumulator())
	}
	w := s.Advance(26*ms + 29*ms)
	if w.Steps != 1 || w.First != 2 || s.Accumulator() != 15*ms || math.Abs(s.Alpha()-0.75) > 1e-12 || s.NextDeadline() != 60*ms {
		t.Fatalf("29 ms later: ran %d steps (first tick %d), %v left, alpha %v, next at %v; want 1 (2), 15ms, 0.75, 60ms",
			w.Steps, w.First, s.Accumulator(), s.Alpha(), s.NextDeadline())
	}
}
