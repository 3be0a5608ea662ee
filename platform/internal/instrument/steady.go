package instrument

import (
	"time"

	"github.com/tickframe/tickframe/platform/internal/sim"
)

// warmup is how long after the first frame the steady state is taken to
// start: allocations, GC cycles, the tick rate and the scheduling latency
// are counted from then on.
const warmup = 2 * time.Second

// steadyState accounts for the steady state of a run: the runtime's
// counters and the simulation's ticks at the end of the warm-up and at
// the end of Run. It belongs to the render thread.
type steadyState struct {
	gc             *gcMetrics
	start, elapsed time.Duration // the first frame's time; Run's length
	at             time.Duration // when the warm-up ended; 0 before
	warm, end      gcReading     // the counters then, and at the end
	frames         uint64        // frames drawn by the end of the warm-up
	ticks          uint64        // ticks run by then
	paused         time.Duration // time paused by then
}

func newSteadyState() steadyState { return steadyState{gc: newGCMetrics()} }

// due reports whether the warm-up ends with a frame at time since the
// first frame.
func (s *steadyState) due(since time.Duration) bool { return s.at == 0 && since >= warmup }

// mark ends the warm-up at time at, frames drawn, with the simulation's
// telemetry tel and the scheduling governor's allocations so far.
func (s *steadyState) mark(at time.Duration, frames uint64, tel *sim.Stats, schedAllocs uint64) {
	s.at, s.warm, s.frames = at, s.gc.read(), frames
	s.warm.SchedAllocs = schedAllocs
	s.ticks, s.paused = tel.Ticks, tel.PausedTotal
}

// finish reads the counters at the end of Run; a run shorter than the
// warm-up has its steady state start and end there.
func (s *steadyState) finish(frames, schedAllocs uint64) {
	s.end = s.gc.read()
	s.end.SchedAllocs = schedAllocs
	if s.at == 0 {
		s.warm, s.frames = s.end, frames
	}
}

// tickRate is the simulation's tick rate after the warm-up: ticks per
// second of time not paused, from the end of the warm-up to the end of
// Run (over the whole run when less than a second of it came after the
// warm-up).
func (s *steadyState) tickRate(tel *sim.Stats) float64 {
	ticks, span := tel.Ticks, s.elapsed-tel.PausedTotal
	if steady := (s.start + s.elapsed - s.at) - (tel.PausedTotal - s.paused); s.at > 0 && steady >= time.Second {
		ticks, span = tel.Ticks-s.ticks, steady
	}
	if span <= 0 {
		return 0
	}
	return float64(ticks) / span.Seconds()
}
