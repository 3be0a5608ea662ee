package simthread

import "fmt"

// DefaultHistory is the snapshot history a Tuning with none keeps: the 8
// newest, which brackets render times up to 6 steps behind the newest
// snapshot. That is less than the adaptive render delay can reach (8
// steps, at least 100 ms), so the app's frame pipeline sizes its own (14
// at 120 Hz) and uses this only as a floor.
const DefaultHistory = 8

// Tuning is how the simulation goroutine runs a world: its timing, its
// history and input queue, its first snapshot and its recording (an
// app sets it through app.Settings.Sim and the flags). Its zero value
// means the defaults.
type Tuning struct {
	Timing
	// History is how many snapshots the render side keeps (at least 2);
	// 0 means DefaultHistory, or the history the app's frame pipeline
	// sizes for its render delay.
	History int
	// Inputs is the input queue's capacity; 0 means 256, far more than a
	// person can produce in one tick.
	Inputs int
	// InitSnapshot, if set, is called on every snapshot slot once, to
	// pre-size it so that publishing never allocates.
	InitSnapshot func(*Snapshot)
	// Record keeps every applied input with its tick (TickInput). With
	// a world that implements Hasher it also hashes the world after every
	// tick, so that a run the world's panic ends still has its last
	// complete tick and that tick's hash. That is one Hash call a tick
	// while recording: keep Hash cheap (refworld's FNV over 4096 bodies,
	// 460 KB, takes about 1 ms on a busy 2-core machine: an eighth of a
	// 120 Hz tick).
	Record bool
	// Replay, if not nil (an empty, non-nil log included), is the input log
	// to apply instead of live input: each entry at the start of its tick,
	// ticks from 1 and non-decreasing. Live input is refused then.
	Replay []TickInput
	// CheckpointEvery records the world's hash every that many ticks
	// (the world must implement Hasher); 0 records none.
	CheckpointEvery uint64
	// StopAfter ends the run once that tick has run and been published;
	// 0 runs until the run is cancelled.
	StopAfter uint64
}

// PanicError is the error a run ends with when the world panics: the
// simulation stops, and the render thread can report it and flush its
// files. Find it with errors.As.
type PanicError struct {
	Tick  uint64 // the tick being stepped or published
	Value any    // what the world panicked with
	Stack []byte // the simulation goroutine's stack at the panic
}

// Error is one line; the stack is in Stack.
func (e *PanicError) Error() string {
	return fmt.Sprintf("simthread: world panicked at tick %d: %v", e.Tick, e.Value)
}
