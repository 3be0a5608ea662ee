package sim

import (
	"sync/atomic"
	"time"

	"github.com/tickframe/tickframe/platform/internal/stats"
)

// stepsPerWakeBuckets is the size of the steps-per-wake histogram: wakes
// that ran 0, 1, ... 15 steps, and 16 or more in the last bucket.
const stepsPerWakeBuckets = 17

// Telemetry is the simulation's live counters. The simulation goroutine
// writes them; any goroutine may read them at any time, without locks.
type Telemetry struct {
	ticks          atomic.Uint64
	wakes          atomic.Uint64
	stepsPerWake   [stepsPerWakeBuckets]atomic.Uint64
	discards       atomic.Uint64
	discardedTicks atomic.Uint64
	discardedNs    atomic.Int64
	clamps         atomic.Uint64
	clampedNs      atomic.Int64
	keptDebtWakes  atomic.Uint64
	pausedNs       atomic.Int64
	paused         atomic.Bool
	inputs         atomic.Uint64

	// Lateness is how late each wake came after its deadline (ns).
	Lateness stats.Histogram
	// StepTime is how long each World.Step took (ns).
	StepTime stats.Histogram
	// PublishDelay is each snapshot's publish time minus the tick time of
	// the first tick its wake ran (ns): the wake's lateness plus the time
	// its steps took (see Snapshot.PeakDelay).
	PublishDelay stats.Histogram
}

// Stats is a reading of Telemetry. StepsPerWake counts the wakes by the
// steps they ran, bucketed as stepsPerWakeBuckets says.
type Stats struct {
	Ticks          uint64 // ticks run
	Wakes          uint64 // wakes that were not paused
	StepsPerWake   [stepsPerWakeBuckets]uint64
	Discards       uint64        // wakes that discarded debt
	DiscardedTicks uint64        // ticks discarded
	Discarded      time.Duration // the simulated time those ticks stood for
	Clamps         uint64        // wakes whose gap was clamped to MaxDelta
	Clamped        time.Duration // time not counted by clamping
	KeptDebtWakes  uint64        // wakes that hit MaxSteps and kept the debt
	Paused         bool          // paused now
	PausedTotal    time.Duration // time spent paused, never caught up
	Inputs         uint64        // inputs applied
	Lateness       stats.Summary // ns; see Telemetry.Lateness
	StepTime       stats.Summary // ns; see Telemetry.StepTime
	PublishDelay   stats.Summary // ns; see Telemetry.PublishDelay
}

// Read returns the current counters. It does not allocate.
func (t *Telemetry) Read() Stats {
	s := Stats{
		Ticks:          t.ticks.Load(),
		Wakes:          t.wakes.Load(),
		Discards:       t.discards.Load(),
		DiscardedTicks: t.discardedTicks.Load(),
		Discarded:      time.Duration(t.discardedNs.Load()),
		Clamps:         t.clamps.Load(),
		Clamped:        time.Duration(t.clampedNs.Load()),
		KeptDebtWakes:  t.keptDebtWakes.Load(),
		Paused:         t.paused.Load(),
		PausedTotal:    time.Duration(t.pausedNs.Load()),
		Inputs:         t.inputs.Load(),
		Lateness:       t.Lateness.Summary(),
		StepTime:       t.StepTime.Summary(),
		PublishDelay:   t.PublishDelay.Summary(),
	}
	for i := range s.StepsPerWake {
		s.StepsPerWake[i] = t.stepsPerWake[i].Load()
	}
	return s
}

// Ticks reports the ticks run so far; cheaper than Read.
func (t *Telemetry) Ticks() uint64 { return t.ticks.Load() }

// Paused reports whether the simulation is paused.
func (t *Telemetry) Paused() bool { return t.paused.Load() }
