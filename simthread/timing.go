package simthread

import (
	"fmt"
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

// String returns the policy's name as the -overload flag spells it.
func (o Overload) String() string {
	switch o {
	case Discard:
		return "discard"
	case Keep:
		return "keep"
	}
	return fmt.Sprintf("Overload(%d)", uint8(o))
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
