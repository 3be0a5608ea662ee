package sim

import (
	"math/bits"
	"time"

	"github.com/tickframe/tickframe/simthread"
)

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
	timing simthread.Timing
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
func newScheduler(t simthread.Timing) (*scheduler, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	t = t.WithDefaults()
	return &scheduler{timing: t, rate: uint64(t.Rate)}, nil
}

// Timing returns the scheduler's configuration with defaults filled in.
func (s *scheduler) Timing() simthread.Timing { return s.timing }

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
		case simthread.Discard:
			// Drop the whole ticks we cannot pay for. The ticks that
			// remain keep their phase: the next one is due when the
			// dropped one after it would have been.
			d := due - int64(s.timing.MaxSteps)
			s.anchorTick -= d
			w.DiscardedTicks = uint64(d)
			s.stats.Discards++
			s.stats.DiscardedTicks += uint64(d)
		case simthread.Keep:
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
