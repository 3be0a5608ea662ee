package simthread

import (
	"fmt"
	"math/bits"
	"time"
)

// Overload says what the scheduler does with the time it could not pay for
// when a wake finds more ticks due than MaxSteps allows.
type Overload uint8

const (
	// Discard drops the whole ticks beyond MaxSteps: the simulation jumps
	// ahead and keeps real time, visibly but boundedly (the default; it is
	// what breaks the spiral of death).
	Discard Overload = iota
	// Keep carries the debt to the next wake: the simulation falls behind
	// real time while overloaded and catches up, MaxSteps at a time, when
	// the load stops. Use it only where overload is known to be brief.
	Keep
)

// String returns the policy's name as ParseOverload and the -overload flag
// spell it.
func (o Overload) String() string {
	switch o {
	case Discard:
		return "discard"
	case Keep:
		return "keep"
	}
	return fmt.Sprintf("Overload(%d)", uint8(o))
}

// ParseOverload parses "discard" or "keep".
func ParseOverload(s string) (Overload, error) {
	switch s {
	case "discard":
		return Discard, nil
	case "keep":
		return Keep, nil
	}
	return 0, fmt.Errorf("simthread: overload policy %q: want discard or keep", s)
}

// Defaults for Timing.
const (
	DefaultRate = 120
	// DefaultMaxDelta: a longer gap between wakes (a debugger, SIGSTOP, a
	// suspended laptop) is not replayed; 250 ms is Fiedler's figure and is
	// short enough that the catch-up is not felt.
	DefaultMaxDelta = 250 * time.Millisecond
	// DefaultMaxSteps bounds a wake to 8 steps: 67 ms of simulation at
	// 120 Hz, enough to absorb ordinary hitches without a spiral of death.
	// At high rates the default grows to cover DefaultCatchUp.
	DefaultMaxSteps = 8
	// DefaultCatchUp is the least simulated time a wake may catch up by
	// default: a wake 40 ms late (what a loaded machine gives at p99) at
	// 1000 Hz must not discard ticks, so the default MaxSteps there is 50.
	DefaultCatchUp = 50 * time.Millisecond
	// MaxRate bounds the tick rate; beyond 10 kHz sleeping per tick makes
	// no sense.
	MaxRate = 10000
	// MaxMaxSteps bounds MaxSteps.
	MaxMaxSteps = 1000
)

// Timing configures the fixed-step scheduler. Its zero value means the
// defaults.
type Timing struct {
	Rate     int           // ticks per second; 0 means DefaultRate
	MaxDelta time.Duration // longest gap counted between wakes; 0 means DefaultMaxDelta, or two steps where that is longer (below 8 Hz)
	MaxSteps int           // most steps one wake runs; 0 means DefaultMaxSteps, or DefaultCatchUp's worth at high rates
	Overload Overload      // what happens to debt beyond MaxSteps
}

// WithDefaults returns t with zero fields replaced by the defaults.
func (t Timing) WithDefaults() Timing {
	if t.Rate == 0 {
		t.Rate = DefaultRate
	}
	if t.MaxDelta == 0 {
		// Two steps at slow rates: a gap of one step and a little
		// lateness must not be cut, and every rate in [1, MaxRate] must
		// run with the default.
		t.MaxDelta = DefaultMaxDelta
		if t.Rate > 0 {
			t.MaxDelta = max(DefaultMaxDelta, 2*time.Second/time.Duration(t.Rate))
		}
	}
	if t.MaxSteps == 0 {
		t.MaxSteps = DefaultMaxSteps
		if t.Rate > 0 {
			t.MaxSteps = max(DefaultMaxSteps, int((int64(DefaultCatchUp)*int64(t.Rate)+int64(time.Second)-1)/int64(time.Second)))
		}
	}
	return t
}

// Validate reports the first field out of range, after defaults.
func (t Timing) Validate() error {
	t = t.WithDefaults()
	switch {
	case t.Rate < 1 || t.Rate > MaxRate:
		return fmt.Errorf("simthread: rate %d Hz out of range [1, %d]", t.Rate, MaxRate)
	case t.MaxSteps < 1 || t.MaxSteps > MaxMaxSteps:
		return fmt.Errorf("simthread: max steps %d out of range [1, %d]", t.MaxSteps, MaxMaxSteps)
	case t.MaxDelta < t.Step():
		return fmt.Errorf("simthread: max delta %v shorter than one step (%v)", t.MaxDelta, t.Step())
	case t.Overload != Discard && t.Overload != Keep:
		return fmt.Errorf("simthread: unknown overload policy %d", t.Overload)
	}
	return nil
}

// Step returns the fixed step rounded to the nanosecond (the scheduler
// itself keeps the exact rational step, so ticks never drift).
func (t Timing) Step() time.Duration {
	t = t.WithDefaults()
	return time.Duration(int64(time.Second) / int64(t.Rate))
}

// wake is what one call to Advance decided.
type wake struct {
	Steps          int           // steps to run now, ticks First ... First+Steps-1
	First          uint64        // the first tick to run
	Clamped        time.Duration // time beyond MaxDelta not counted
	DiscardedTicks uint64        // whole ticks dropped by the Discard policy
	KeptDebt       bool          // MaxSteps was hit and the Keep policy kept the debt
}

// schedulerStats are running totals.
type schedulerStats struct {
	Tick           uint64        // ticks run so far
	Wakes          uint64        // calls to Advance while running
	Clamps         uint64        // wakes whose gap exceeded MaxDelta
	Clamped        time.Duration // total time not counted by clamping
	Discards       uint64        // wakes that discarded debt
	DiscardedTicks uint64        // total ticks discarded
	KeptDebtWakes  uint64        // wakes that hit MaxSteps and kept the debt
	Paused         time.Duration // total time spent paused
}

// scheduler is the pure fixed-step core: it turns elapsed time into whole
// fixed steps with an accumulator, clamps long gaps, caps the steps per
// wake, and pauses and resumes without catching up. It has no goroutine and
// no clock: the caller passes the time to every call, so a test can feed it
// any sequence of times.
//
// Tick k (k = 0 being the initial state) has a nominal time on the caller's
// timeline, TickTime(k): the start time plus k steps, shifted forward by any
// time that was clamped, discarded or spent paused. Tick k is due once the
// time reaches TickTime(k), so the accumulator, Now − TickTime(Tick), is
// always in [0, step) unless the Keep policy is holding debt.
//
// The step is kept as the exact rational 1/Rate seconds: TickTime is exact
// to the nanosecond (rounded up) and never drifts, even at rates such as
// 120 Hz whose step is not a whole number of nanoseconds.
type scheduler struct {
	timing Timing
	rate   uint64

	started    bool
	last       time.Duration // the time of the last Advance, Start or Resume
	tick       int64         // ticks run
	anchorTime time.Duration // TickTime(anchorTick) == anchorTime
	anchorTick int64         // may go negative when ticks are discarded
	paused     bool
	pausedAt   time.Duration

	stats schedulerStats
}

// newScheduler returns a scheduler for t (zero fields mean the defaults).
func newScheduler(t Timing) (*scheduler, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	t = t.WithDefaults()
	return &scheduler{timing: t, rate: uint64(t.Rate)}, nil
}

// Timing returns the scheduler's configuration with defaults filled in.
func (s *scheduler) Timing() Timing { return s.timing }

// Start sets tick 0's time to now. Calling Start again restarts from tick 0.
func (s *scheduler) Start(now time.Duration) {
	*s = scheduler{timing: s.timing, rate: s.rate, started: true, last: now, anchorTime: now}
}

// span returns the exact duration of n ticks, rounded up to the nanosecond.
func (s *scheduler) span(n uint64) time.Duration {
	// ceil(n * 1e9 / rate) in 128 bits. Div64 needs hi < rate, which holds
	// while the span fits in 64 bits (584 years), far beyond any run.
	hi, lo := bits.Mul64(n, uint64(time.Second))
	q, r := bits.Div64(hi, lo, s.rate)
	if r != 0 {
		q++
	}
	return time.Duration(q)
}

// ticksIn returns how many whole ticks fit in d ≥ 0: floor(d * rate / 1e9).
func (s *scheduler) ticksIn(d time.Duration) int64 {
	hi, lo := bits.Mul64(uint64(d), s.rate)
	q, _ := bits.Div64(hi, lo, uint64(time.Second))
	return int64(q)
}

// TickTime returns tick k's nominal time. It is exact for the ticks of the
// current run of the timeline, that is since the last clamp, discard or
// resume; those shift the times of the ticks that follow them.
func (s *scheduler) TickTime(k uint64) time.Duration {
	d := int64(k) - s.anchorTick
	if d >= 0 {
		return s.anchorTime + s.span(uint64(d))
	}
	return s.anchorTime - s.span(uint64(-d))
}

// Tick reports how many ticks have run.
func (s *scheduler) Tick() uint64 { return uint64(s.tick) }

// Now reports the time of the last Advance, Start or Resume.
func (s *scheduler) Now() time.Duration { return s.last }

// Accumulator reports the time owed to the simulation after the last
// Advance: the time since the last tick's nominal time. It is in [0, step)
// except while the Keep policy holds debt.
func (s *scheduler) Accumulator() time.Duration { return s.last - s.TickTime(uint64(s.tick)) }

// Alpha reports Accumulator / step, the textbook interpolation factor for a
// renderer that shares the scheduler. tickframe's renderer runs on another
// thread and derives its alpha from snapshot timestamps instead.
func (s *scheduler) Alpha() float64 {
	return s.Accumulator().Seconds() * float64(s.rate)
}

// NextDeadline reports when the next tick is due: TickTime(Tick()+1).
func (s *scheduler) NextDeadline() time.Duration { return s.TickTime(uint64(s.tick) + 1) }

// Paused reports whether the scheduler is paused.
func (s *scheduler) Paused() bool { return s.paused }

// Stats returns the running totals.
func (s *scheduler) Stats() schedulerStats {
	st := s.stats
	st.Tick = uint64(s.tick)
	return st
}

// Advance accounts for the time since the previous call and returns how many
// steps to run now. While paused it returns no steps and counts nothing.
func (s *scheduler) Advance(now time.Duration) wake {
	if !s.started {
		s.Start(now)
	}
	w := wake{First: uint64(s.tick) + 1}
	if s.paused {
		return w
	}
	s.stats.Wakes++
	delta := now - s.last
	if delta < 0 {
		// A monotonic clock never does this; a caller's bug must not
		// rewind the simulation.
		return w
	}
	s.last = now
	if delta > s.timing.MaxDelta {
		w.Clamped = delta - s.timing.MaxDelta
		s.anchorTime += w.Clamped
		s.stats.Clamps++
		s.stats.Clamped += w.Clamped
	}
	// Every tick k with TickTime(k) <= now is due.
	due := s.anchorTick + s.ticksIn(now-s.anchorTime) - s.tick
	if due < 0 {
		due = 0
	}
	if due > int64(s.timing.MaxSteps) {
		switch s.timing.Overload {
		case Discard:
			// Drop the whole ticks we cannot pay for. The ticks that
			// remain keep their phase: the next one is due when the
			// dropped one after it would have been.
			d := due - int64(s.timing.MaxSteps)
			s.anchorTick -= d
			w.DiscardedTicks = uint64(d)
			s.stats.Discards++
			s.stats.DiscardedTicks += uint64(d)
		case Keep:
			w.KeptDebt = true
			s.stats.KeptDebtWakes++
		}
		due = int64(s.timing.MaxSteps)
	}
	w.Steps = int(due)
	s.tick += due
	return w
}

// Pause stops the flow of time at now. The time since the last Advance is
// still owed and is run by the first Advance after Resume.
func (s *scheduler) Pause(now time.Duration) {
	if s.paused {
		return
	}
	if !s.started {
		s.Start(now)
	}
	s.paused = true
	s.pausedAt = max(now, s.last)
}

// Resume restarts the flow of time at now, so that nothing of the pause is
// caught up: the tick times after it shift by the time spent paused.
func (s *scheduler) Resume(now time.Duration) {
	if !s.paused {
		return
	}
	s.paused = false
	d := max(now-s.pausedAt, 0)
	s.anchorTime += d
	s.last += d
	s.stats.Paused += d
}

// DiscardedTime returns the simulated time that n discarded ticks stand for.
func (s *scheduler) DiscardedTime(n uint64) time.Duration { return s.span(n) }

// stepSeconds is the exact step in seconds as the world sees it.
func (s *scheduler) stepSeconds() float64 { return 1 / float64(s.rate) }
