package record_test

import (
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tickframe/tickframe/platform/internal/record"
	"github.com/tickframe/tickframe/platform/internal/refworld"
	"github.com/tickframe/tickframe/platform/internal/sim"
	"github.com/tickframe/tickframe/simthread"
)

// A wakePattern says when the Sim's k-th wake happens, given the deadline
// it asked for: how a display's refresh rate, vsync, hitches and load show
// up to the simulation goroutine.
type wakePattern func(k int, deadline time.Duration) time.Duration

func punctual(_ int, d time.Duration) time.Duration { return d }

// drive runs s on clock with Wake until its StopAfter tick, calling
// before at each wake's time first (to send live input).
func drive(t *testing.T, s *sim.Sim, clock *sim.VirtualClock, wake wakePattern, before func(now time.Duration)) {
	t.Helper()
	next, err := s.Wake()
	for k := 0; !s.Stopped(); k++ {
		if err != nil {
			t.Fatal(err)
		}
		if k > 1_000_000 {
			t.Fatal("the Sim never reached its StopAfter tick")
		}
		clock.Set(wake(k, next))
		if before != nil {
			before(clock.Now())
		}
		next, err = s.Wake()
	}
}

type event struct {
	at time.Duration
	in simthread.Input
}

// recordRun runs refworld as `tickframe -record` would, with a 60 Hz
// display sending inputs on some frames, and returns the recording.
func recordRun(t *testing.T, h record.Header, stop uint64) *record.Log {
	t.Helper()
	w, err := refworld.New(h.Bodies, h.Seed)
	if err != nil {
		t.Fatal(err)
	}
	clock := new(sim.VirtualClock)
	s, err := sim.New(simthread.Tuning{
		Timing:          simthread.Timing{Rate: h.Rate},
		Record:          true,
		CheckpointEvery: h.CheckpointEvery,
		StopAfter:       stop,
	}, w, clock)
	if err != nil {
		t.Fatal(err)
	}
	const frame = time.Second / 60
	var events []event
	for f := 1; f < 300; f++ {
		at := time.Duration(f) * frame
		switch {
		case f%7 == 0:
			events = append(events, event{at, simthread.Input{Kind: refworld.Kick, X: math.Sin(float64(f))}})
		case f == 100:
			events = append(events, event{at, simthread.Input{Kind: refworld.Reset}})
		case f == 150:
			events = append(events, event{at, simthread.Input{Kind: refworld.Spawn, Code: 5}})
		case f == 200:
			events = append(events, event{at, simthread.Input{Kind: refworld.Kick, X: math.NaN()}})
		}
	}
	drive(t, s, clock, punctual, func(now time.Duration) {
		for len(events) > 0 && events[0].at <= now {
			if !s.Send(events[0].in) {
				t.Fatal("Send refused")
			}
			events = events[1:]
		}
	})
	return &record.Log{
		Header:      h,
		Inputs:      s.InputLog(),
		Checkpoints: s.Checkpoints(),
		FinalTick:   w.Tick(),
		FinalHash:   w.Hash(),
	}
}

// replayRun replays l as `tickframe -replay` would, with the scheduler
// settings of timing and the wakes of wake, and returns what Verify needs.
func replayRun(t *testing.T, l *record.Log, timing simthread.Timing, wake wakePattern) ([]sim.Checkpoint, uint64, uint64, sim.Stats) {
	t.Helper()
	w, err := refworld.New(l.Bodies, l.Seed)
	if err != nil {
		t.Fatal(err)
	}
	cfg := l.ReplayConfig()
	cfg.MaxDelta, cfg.MaxSteps, cfg.Overload = timing.MaxDelta, timing.MaxSteps, timing.Overload
	clock := new(sim.VirtualClock)
	s, err := sim.New(cfg, w, clock)
	if err != nil {
		t.Fatal(err)
	}
	drive(t, s, clock, wake, nil)
	return s.Checkpoints(), w.Tick(), w.Hash(), s.Telemetry().Read()
}

// TestReplayAnyTiming records a run, writes and reads it back, and replays
// it under wakes as different as displays make them: the same states at
// every checkpoint and at the end.
func TestReplayAnyTiming(t *testing.T) {
	h := record.Header{World: "refworld", Build: record.CurrentBuild(), Seed: 42, Bodies: 48, Rate: 120, CheckpointEvery: 30}
	path := filepath.Join(t.TempDir(), "run.rec")
	writeFile(t, path, recordRun(t, h, 600))
	l, err := record.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Inputs) < 40 || len(l.Checkpoints) != 20 {
		t.Fatalf("recorded %d inputs and %d checkpoints, want dozens and 20", len(l.Inputs), len(l.Checkpoints))
	}

	frame := func(hz int) wakePattern {
		// The next vsync at or after the deadline.
		p := time.Second / time.Duration(hz)
		return func(_ int, d time.Duration) time.Duration { return (d + p - 1) / p * p }
	}
	stalls := func(k int, d time.Duration) time.Duration {
		if k%40 == 39 {
			return d + 400*time.Millisecond // beyond MaxDelta and MaxSteps
		}
		return d
	}
	for _, tc := range []struct {
		name   string
		timing simthread.Timing
		wake   wakePattern
		check  func(sim.Stats) bool
	}{
		{"punctual", simthread.Timing{}, punctual, nil},
		{"60 Hz vsync", simthread.Timing{}, frame(60), nil},
		{"144 Hz vsync", simthread.Timing{}, frame(144), nil},
		{"vsync off, jittered", simthread.Timing{}, func(k int, d time.Duration) time.Duration {
			return d + time.Duration(k*7919%23)*time.Millisecond
		}, nil},
		{"stalls discarded", simthread.Timing{}, stalls, func(s sim.Stats) bool {
			return s.Clamps > 0 && s.DiscardedTicks > 0
		}},
		{"stalls kept", simthread.Timing{MaxSteps: 4, Overload: simthread.Keep}, stalls, func(s sim.Stats) bool {
			return s.Clamps > 0 && s.KeptDebtWakes > 0
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checks, tick, hash, stats := replayRun(t, l, tc.timing, tc.wake)
			if err := l.Verify(checks, tick, hash); err != nil {
				t.Fatal(err)
			}
			if tc.check != nil && !tc.check(stats) {
				t.Fatalf("the wakes did not exercise what they should: %+v", stats)
			}
		})
	}
}

// TestReplayDivergence: a changed input or seed is caught at the first
// checkpoint after it.
func TestReplayDivergence(t *testing.T) {
	h := record.Header{World: "refworld", Seed: 7, Bodies: 16, Rate: 120, CheckpointEvery: 30}
	recorded := recordRun(t, h, 300)
	for _, tc := range []struct {
		name   string
		modify func(*record.Log) (changedAt uint64)
	}{
		{"input changed", func(l *record.Log) uint64 {
			for i := len(l.Inputs) / 2; ; i++ {
				if in := &l.Inputs[i]; in.Kind == refworld.Kick && !math.IsNaN(in.X) {
					in.X += 0.001
					return in.Tick
				}
			}
		}},
		{"seed changed", func(l *record.Log) uint64 { l.Seed++; return 0 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := *recorded
			l.Inputs = append([]simthread.TickInput(nil), recorded.Inputs...)
			at := tc.modify(&l)
			// The first checkpoint at or after the change (the state at
			// tick 0 is never checked).
			want := max(1, (at+h.CheckpointEvery-1)/h.CheckpointEvery) * h.CheckpointEvery
			checks, tick, hash, _ := replayRun(t, &l, simthread.Timing{}, punctual)
			err := recorded.Verify(checks, tick, hash)
			if err == nil || !strings.HasPrefix(err.Error(), "record: replay diverged at tick "+strconv.FormatUint(want, 10)+": ") {
				t.Fatalf("Verify: %v, want a divergence at tick %d", err, want)
			}
		})
	}
}
