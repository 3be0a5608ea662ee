package record_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/tickframe/tickframe/platform/internal/record"
	"github.com/tickframe/tickframe/platform/internal/refworld"
	"github.com/tickframe/tickframe/platform/internal/sim"
	"github.com/tickframe/tickframe/simthread"
)

// crasher is the reference world that panics at tick panicAt: in Step
// after stepping (its state half-changed: the tick counted, the bodies
// moved) or in Snapshot after the tick's step.
type crasher struct {
	*refworld.World
	panicAt uint64
	inSnap  bool
}

func (c *crasher) Step(tick uint64, dt float64, in []simthread.Input) {
	c.World.Step(tick, dt, in)
	if !c.inSnap && tick == c.panicAt {
		panic("boom")
	}
}

func (c *crasher) Snapshot(dst *simthread.Snapshot) {
	if c.inSnap && c.World.Tick() == c.panicAt {
		panic("snap")
	}
	c.World.Snapshot(dst)
}

// runTo wakes s every 7 ms of virtual time (so that wakes run one or more
// steps) sending in at the start of each tick listed, until the Sim stops
// or fails.
func runTo(t *testing.T, s *sim.Sim, clock *sim.VirtualClock, inputs map[uint64]simthread.Input) error {
	t.Helper()
	sent := map[uint64]bool{}
	for range 10000 {
		next := s.Telemetry().Ticks() + 1
		if in, ok := inputs[next]; ok && !sent[next] {
			sent[next] = s.Send(in)
		}
		if _, err := s.Wake(); err != nil || s.Stopped() {
			return err
		}
		clock.Advance(7 * time.Millisecond)
	}
	t.Fatal("the Sim never stopped")
	return nil
}

// A world that panics at tick T leaves a recording of ticks up to T−1:
// inputs at T dropped, the hash the world had after T−1 (not the
// half-stepped state's), checkpoints up to T−1; the recording validates and
// a replay on a fresh world reaches T−1 with the same hash.
func TestFinalIsTheTickBeforeAPanic(t *testing.T) {
	const rate, every = 100, 10
	for _, tc := range []struct {
		name    string
		panicAt uint64
		inSnap  bool
		input   bool // an input at the panicking tick
	}{
		{"step, input at the panic", 23, false, true},
		{"step, no input at the panic", 23, false, false},
		{"step at a checkpoint", 20, false, true},
		{"step after a checkpoint", 21, false, true},
		{"step at tick 1", 1, false, true},
		{"snapshot, input at the panic", 23, true, true},
		{"snapshot at a checkpoint", 30, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inputs := map[uint64]simthread.Input{5: {Kind: refworld.Kick, X: 3}, tc.panicAt - 1: {Kind: refworld.Kick, X: -1}}
			if tc.input {
				inputs[tc.panicAt] = simthread.Input{Kind: refworld.Kick, X: 7}
			}
			delete(inputs, 0)
			w, _ := refworld.New(16, 3)
			clock := new(sim.VirtualClock)
			s, err := sim.New(simthread.Tuning{Timing: simthread.Timing{Rate: rate}, Record: true, CheckpointEvery: every},
				&crasher{World: w, panicAt: tc.panicAt, inSnap: tc.inSnap}, clock)
			if err != nil {
				t.Fatal(err)
			}
			err = runTo(t, s, clock, inputs)
			var pe *simthread.PanicError
			if !errors.As(err, &pe) || pe.Tick != tc.panicAt {
				t.Fatalf("err = %v, want a panic at tick %d", err, tc.panicAt)
			}
			final, panicked, ok := s.Final()
			if !ok || !panicked || final.Tick != tc.panicAt-1 {
				t.Fatalf("Final() = %+v, %v, %v; want tick %d after a panic", final, panicked, ok, tc.panicAt-1)
			}
			// The truth: a fresh world stepped to T−1 with the same inputs.
			truth, _ := refworld.New(16, 3)
			for tick := uint64(1); tick < tc.panicAt; tick++ {
				var in []simthread.Input
				if x, ok := inputs[tick]; ok {
					in = append(in, x)
				}
				truth.Step(tick, 1.0/rate, in)
			}
			if final.Hash != truth.Hash() {
				t.Fatalf("final hash %016x, the world after tick %d has %016x", final.Hash, final.Tick, truth.Hash())
			}
			for _, in := range s.InputLog() {
				if in.Tick > final.Tick {
					t.Fatalf("input log holds %v, after the final tick %d", in, final.Tick)
				}
			}
			if n := len(s.Checkpoints()); uint64(n) != final.Tick/every {
				t.Fatalf("%d checkpoints, want %d", n, final.Tick/every)
			}
			l := &record.Log{
				Header:      record.Header{World: "refworld", Rate: rate, CheckpointEvery: every},
				Inputs:      s.InputLog(),
				Checkpoints: s.Checkpoints(),
				FinalTick:   final.Tick, FinalHash: final.Hash,
			}
			if err := l.Validate(); err != nil {
				t.Fatal(err)
			}
			if final.Tick == 0 {
				if fresh, _ := refworld.New(16, 3); fresh.Hash() != l.FinalHash {
					t.Fatal("an empty recording's hash is not the initial state's")
				}
				return
			}
			fresh, _ := refworld.New(16, 3)
			rclock := new(sim.VirtualClock)
			r, err := sim.New(l.ReplayConfig(), fresh, rclock)
			if err != nil {
				t.Fatal(err)
			}
			if err := runTo(t, r, rclock, nil); err != nil {
				t.Fatal(err)
			}
			if err := l.Verify(r.Checkpoints(), fresh.Tick(), fresh.Hash()); err != nil {
				t.Fatal(fmt.Errorf("replay: %w", err))
			}
		})
	}
}

// Without a panic, Final is the tick the Sim stopped at; without Record,
// it is not known.
func TestFinalAfterACleanStop(t *testing.T) {
	w, _ := refworld.New(8, 1)
	clock := new(sim.VirtualClock)
	s, _ := sim.New(simthread.Tuning{Timing: simthread.Timing{Rate: 100}, Record: true, StopAfter: 12}, w, clock)
	if err := runTo(t, s, clock, nil); err != nil {
		t.Fatal(err)
	}
	if final, panicked, ok := s.Final(); !ok || panicked || final.Tick != 12 || final.Hash != w.Hash() {
		t.Fatalf("Final() = %+v, %v, %v; want tick 12, hash %016x", final, panicked, ok, w.Hash())
	}
	w2, _ := refworld.New(8, 1)
	s2, _ := sim.New(simthread.Tuning{Timing: simthread.Timing{Rate: 100}, StopAfter: 3}, w2, new(sim.VirtualClock))
	if _, _, ok := s2.Final(); ok {
		t.Fatal("Final known without Record")
	}
}
