package sim_test

import (
	"context"
	"errors"

	"strings"
	"testing"
	"time"

	"github.com/tickframe/tickframe/platform/internal/sim"
	"github.com/tickframe/tickframe/simthread"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// probe is a world that remembers which ticks it ran and with what inputs,
// and can make each step take virtual time.
type probe struct {
	clock    *sim.VirtualClock
	cost     time.Duration
	ticks    []uint64
	inputs   map[uint64][]simthread.Input
	panicAt  uint64
	costTill uint64 // steps cost time only up to this tick (0: always)
	snapshot func(*simthread.Snapshot)
}

func (p *probe) Step(tick uint64, dt float64, in []simthread.Input) {
	if tick == p.panicAt {
		panic("boom")
	}
	p.ticks = append(p.ticks, tick)
	if len(in) > 0 {
		if p.inputs == nil {
			p.inputs = map[uint64][]simthread.Input{}
		}
		p.inputs[tick] = append([]simthread.Input(nil), in...)
	}
	if p.cost > 0 && (p.costTill == 0 || tick <= p.costTill) {
		p.clock.Advance(p.cost)
	}
}

func (p *probe) Snapshot(dst *simthread.Snapshot) {
	if p.snapshot != nil {
		p.snapshot(dst)
	}
}

// driver runs a Sim on its goroutine against a virtual clock and moves time
// only while the Sim is asleep, so every run is deterministic.
type driver struct {
	t      *testing.T
	clock  *sim.VirtualClock
	sim    *sim.Sim
	cancel context.CancelFunc
}

func start(t *testing.T, cfg simthread.Tuning, w simthread.World, clock *sim.VirtualClock) *driver {
	t.Helper()
	s, err := sim.New(cfg, w, clock)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.Start(ctx)
	d := &driver{t: t, clock: clock, sim: s, cancel: cancel}
	t.Cleanup(func() {
		cancel()
		if err := s.Wait(); err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	return d
}

// deadline waits until the Sim sleeps and returns its deadline.
func (d *driver) deadline() time.Duration {
	d.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	dl, err := d.clock.WaitSleepers(ctx, 1)
	if err != nil {
		d.t.Fatalf("the Sim never went to sleep: %v", err)
	}
	return dl[0]
}

// deadlineOrDone is deadline, or false once the Sim has finished. (A
// loop that waited 1 ms for the end after each wake and then for the
// next sleep waited 10 s for a Sim that had finished just after: make
// test failed on it once.)
func (d *driver) deadlineOrDone() (time.Duration, bool) {
	d.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	go func() {
		select {
		case <-d.sim.Done():
			cancel()
		case <-ctx.Done():
		}
	}()
	dl, err := d.clock.WaitSleepers(ctx, 1)
	if err != nil {
		select {
		case <-d.sim.Done():
			return 0, false
		default:
		}
		d.t.Fatalf("the Sim never went to sleep: %v", err)
	}
	return dl[0], true
}

// wake lets the Sim sleep, wakes it late after its deadline, and waits
// until it has finished that wake.
func (d *driver) wake(late time.Duration) {
	d.t.Helper()
	d.clock.Set(d.deadline() + late)
	d.deadline()
}

func TestRunPublishesEachTickOnTime(t *testing.T) {
	clock := new(sim.VirtualClock)
	w := newSwarm(16, 1)
	d := start(t, simthread.Tuning{Timing: simthread.Timing{Rate: 100}}, w, clock)
	view := d.sim.Snapshots()
	d.deadline()
	if !view.Acquire() || view.History(0).Tick != 0 || len(view.History(0).Bodies) != 16 {
		t.Fatal("no initial snapshot of tick 0")
	}
	for k := uint64(1); k <= 50; k++ {
		d.wake(time.Millisecond)
		if !view.Acquire() {
			t.Fatalf("tick %d: nothing published", k)
		}
		s := view.History(0)
		if s.Tick != k || s.Time != time.Duration(k)*10*ms {
			t.Fatalf("tick %d: got tick %d at %v, want %v", k, s.Tick, s.Time, time.Duration(k)*10*ms)
		}
		if s.Published != s.Time+time.Millisecond {
			t.Fatalf("tick %d: published at %v, want 1ms after %v", k, s.Published, s.Time)
		}
		if view.Acquire() {
			t.Fatalf("tick %d: published twice", k)
		}
	}
	st := d.sim.Telemetry().Read()
	if st.Ticks != 50 || st.StepsPerWake[1] != 50 || st.Lateness.Max != int64(time.Millisecond) {
		t.Fatalf("telemetry %+v", st)
	}
	if p := st.Lateness.P50; p < int64(970*time.Microsecond) || p > int64(1030*time.Microsecond) {
		t.Fatalf("lateness p50 %v, want about 1ms", time.Duration(p))
	}
}

func TestStopWithinOneTickAndNoLeak(t *testing.T) {
	clock := new(sim.VirtualClock)
	s, _ := sim.New(simthread.Tuning{}, &probe{}, clock)
	ctx, cancel := context.WithCancel(context.Background())
	s.Start(ctx)
	if _, err := clock.WaitSleepers(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	cancel() // no time passes: the sleeping loop must notice at once
	select {
	case <-s.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
	if err := s.Wait(); err != nil {
		t.Fatal(err)
	}
	if err := s.Run(context.Background()); err == nil {
		t.Fatal("a second Run was allowed")
	}
}

func TestInputsAppliedAtOneTickAndReplayed(t *testing.T) {
	const stop = 60
	kicks := []simthread.Input{{Kind: kick, X: 2}, {Kind: kick, X: -1}, {Kind: reset}}

	clock := new(sim.VirtualClock)
	w := newSwarm(64, 9)
	d := start(t, simthread.Tuning{Timing: simthread.Timing{Rate: 100}, Record: true, StopAfter: stop, CheckpointEvery: 20}, w, clock)
	for k := 1; k <= stop; k++ {
		if k == 10 || k == 33 {
			// Sent while the Sim sleeps before tick k: applied at tick k.
			for _, in := range kicks[:2] {
				if !d.sim.Send(in) {
					t.Fatal("Send refused")
				}
			}
		}
		if k == 41 {
			d.sim.Send(kicks[2])
		}
		d.clock.Set(d.deadline() + 3*ms)
		if k < stop {
			d.deadline()
		}
	}
	if err := d.sim.Wait(); err != nil {
		t.Fatal(err)
	}
	log := d.sim.InputLog()
	want := []simthread.TickInput{{Tick: 10, Input: kicks[0]}, {Tick: 10, Input: kicks[1]}, {Tick: 33, Input: kicks[0]}, {Tick: 33, Input: kicks[1]}, {Tick: 41, Input: kicks[2]}}
	if len(log) != len(want) {
		t.Fatalf("log %v, want %v", log, want)
	}
	for i := range want {
		if log[i] != want[i] {
			t.Fatalf("log[%d] = %v, want %v", i, log[i], want[i])
		}
	}
	if w.Tick() != stop {
		t.Fatalf("world at tick %d, want StopAfter %d", w.Tick(), stop)
	}
	checks := d.sim.Checkpoints()
	if len(checks) != 3 || checks[2].Tick != 60 || checks[2].Hash != w.Hash() {
		t.Fatalf("checkpoints %v, final hash %x", checks, w.Hash())
	}

	// Replay the log on a fresh world with different wake timing: ticks
	// land in different wakes, the result is the same.
	clock2 := new(sim.VirtualClock)
	w2 := newSwarm(64, 9)
	d2 := start(t, simthread.Tuning{Timing: simthread.Timing{Rate: 100}, Replay: log, StopAfter: stop, CheckpointEvery: 20}, w2, clock2)
	if d2.sim.Send(kicks[0]) {
		t.Fatal("a replaying Sim accepted live input")
	}
	for i := 0; ; i++ {
		dl, ok := d2.deadlineOrDone()
		if !ok {
			break
		}
		d2.clock.Set(dl + time.Duration(i%4)*7*ms)
	}
	if err := d2.sim.Wait(); err != nil {
		t.Fatal(err)
	}
	if w2.Hash() != w.Hash() {
		t.Fatalf("replay hash %x, recorded %x", w2.Hash(), w.Hash())
	}
	for i, c := range d2.sim.Checkpoints() {
		if c != checks[i] {
			t.Fatalf("replay checkpoint %v, recorded %v", c, checks[i])
		}
	}
}

func TestPauseResumeDoesNotCatchUp(t *testing.T) {
	clock := new(sim.VirtualClock)
	p := &probe{}
	d := start(t, simthread.Tuning{Timing: simthread.Timing{Rate: 100}}, p, clock)
	d.wake(0)
	d.wake(0) // ticks 1, 2 at 10 and 20 ms
	d.sim.Pause()
	clock.Set(d.deadline() + 4*ms) // the wake at 34 ms runs tick 3, then pauses
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for !d.sim.Telemetry().Paused() {
		if ctx.Err() != nil {
			t.Fatal("never paused")
		}
		time.Sleep(time.Millisecond)
	}
	clock.Set(10 * time.Second)
	view := d.sim.Snapshots()
	for view.Acquire() {
	}
	d.sim.Resume()
	// Resumed at 10 s with 4 ms owed: next tick at 10.006 s.
	if got := d.deadline(); got != 10*time.Second+6*ms {
		t.Fatalf("next deadline after resume %v, want 10.006s", got)
	}
	// The current tick is published again on the shifted timeline.
	if !view.Acquire() || view.History(0).Tick != 3 || view.History(0).Time != 10*time.Second-4*ms {
		t.Fatalf("after resume: %+v, want tick 3 again at 9.996s", view.History(0))
	}
	d.wake(0)
	st := d.sim.Telemetry().Read()
	if len(p.ticks) != 4 || st.DiscardedTicks != 0 || st.Clamps != 0 || st.PausedTotal != 10*time.Second-34*ms {
		t.Fatalf("ticks %v, stats %+v", p.ticks, st)
	}
}

func TestOverloadDiscardsCountsAndRecovers(t *testing.T) {
	clock := new(sim.VirtualClock)
	// Every 10 ms step takes 15 ms until tick 200: the Sim never sleeps
	// while overloaded. Then the load stops.
	p := &probe{clock: clock, cost: 15 * ms, costTill: 200}
	d := start(t, simthread.Tuning{Timing: simthread.Timing{Rate: 100, MaxSteps: 4}}, p, clock)
	clock.Set(d.deadline())
	overEnd := d.deadline() // it sleeps again once the load is gone
	st := d.sim.Telemetry().Read()
	if st.Discards == 0 || st.DiscardedTicks == 0 || st.Discarded != time.Duration(st.DiscardedTicks)*10*ms {
		t.Fatalf("overload discarded nothing: %+v", st)
	}
	for n := 5; n < len(st.StepsPerWake); n++ {
		if st.StepsPerWake[n] != 0 {
			t.Fatalf("%d wakes ran %d steps, beyond MaxSteps 4", st.StepsPerWake[n], n)
		}
	}
	// Time is conserved: run + discarded ticks cover the elapsed time.
	elapsed := clock.Now()
	if got := time.Duration(st.Ticks+st.DiscardedTicks) * 10 * ms; elapsed-got >= 10*ms || got > elapsed {
		t.Fatalf("ticks %d + discarded %d = %v, elapsed %v", st.Ticks, st.DiscardedTicks, got, elapsed)
	}
	// Back at the exact rate at once: each wake on time runs one step.
	if overEnd-clock.Now() > 10*ms {
		t.Fatalf("first deadline after the load %v, now %v", overEnd, clock.Now())
	}
	ticks := st.Ticks
	for i := 0; i < 100; i++ {
		d.wake(0)
	}
	st = d.sim.Telemetry().Read()
	if st.Ticks != ticks+100 {
		t.Fatalf("100 on-time wakes after the load ran %d ticks", st.Ticks-ticks)
	}
}

func TestWorldPanicIsAnError(t *testing.T) {
	clock := new(sim.VirtualClock)
	s, _ := sim.New(simthread.Tuning{Timing: simthread.Timing{Rate: 100}}, &probe{panicAt: 3}, clock)
	s.Start(context.Background())
	// Step the clock from deadline to deadline until the simulation ends.
	// Waiting for its next sleep ends with it too: a panicking simulation
	// never sleeps again, and under Wine on a loaded machine its end came
	// after any fixed wait (the test hung for 10 minutes).
	ended, stop := context.WithCancel(context.Background())
	go func() { <-s.Done(); stop() }()
	for {
		dl, err := clock.WaitSleepers(ended, 1)
		if err != nil {
			break // the simulation ended
		}
		clock.Set(dl[0])
	}
	err := s.Wait()
	var pe *simthread.PanicError
	if !errors.As(err, &pe) || err.Error() != "simthread: world panicked at tick 3: boom" || pe.Tick != 3 ||
		!strings.Contains(string(pe.Stack), "probe") {
		t.Fatalf("Run returned %v", err)
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	clock := new(sim.VirtualClock)
	w := &probe{}
	for _, c := range []simthread.Tuning{
		{History: 1},
		{History: 1000},
		{Inputs: -1},
		{Timing: simthread.Timing{Rate: -5}},
		{CheckpointEvery: 10}, // probe has no Hash
		{Replay: []simthread.TickInput{{Tick: 5}, {Tick: 4}}},
	} {
		if _, err := sim.New(c, w, clock); err == nil {
			t.Errorf("New(%+v) accepted", c)
		}
	}
	if _, err := sim.New(simthread.Tuning{}, nil, clock); err == nil {
		t.Error("New accepted a nil world")
	}
}

// TestTickDoesNotAllocate drives the Sim by hand (as the verifier does) and
// checks that a wake that steps a 1000-body world, publishes and is
// acquired allocates nothing.
func TestTickDoesNotAllocate(t *testing.T) {
	clock := new(sim.VirtualClock)
	w := newSwarm(1000, 1)
	s, err := sim.New(simthread.Tuning{}, w, clock)
	if err != nil {
		t.Fatal(err)
	}
	view := s.Snapshots()
	next, _ := s.Wake()
	// Warm up until every snapshot slot has its Bodies slice.
	for i := 0; i < 10; i++ {
		clock.Set(next)
		next, _ = s.Wake()
		view.Acquire()
	}
	s.Send(simthread.Input{Kind: kick, X: 0.1})
	if a := testing.AllocsPerRun(200, func() {
		clock.Set(next)
		next, err = s.Wake()
		view.Acquire()
	}); a != 0 || err != nil {
		t.Fatalf("a tick allocates %.1f times (err %v)", a, err)
	}
	if s.Telemetry().Ticks() < 200 {
		t.Fatal("ticks did not run")
	}
}

// TestPauseRunningAtStopIsCounted: a pause still in progress when the Sim
// stops counts in the paused time.
func TestPauseRunningAtStopIsCounted(t *testing.T) {
	clock := new(sim.VirtualClock)
	s, _ := sim.New(simthread.Tuning{Timing: simthread.Timing{Rate: 100}}, &probe{}, clock)
	ctx, cancel := context.WithCancel(context.Background())
	s.Start(ctx)
	dl, _ := clock.WaitSleepers(context.Background(), 1)
	s.Pause()
	clock.Set(dl[0]) // the wake at 10 ms notices the pause
	for !s.Telemetry().Paused() {
		time.Sleep(time.Millisecond)
	}
	clock.Set(3 * time.Second)
	cancel()
	if err := s.Wait(); err != nil {
		t.Fatal(err)
	}
	if got := s.Telemetry().Read().PausedTotal; got != 3*time.Second-10*ms {
		t.Fatalf("paused %v, want 2.99s", got)
	}
}

// TestRealClockSleepDoesNotAllocate: once a timer exists for each
// sleeper, sleeping on the real clock allocates nothing.
func TestRealClockSleepDoesNotAllocate(t *testing.T) {
	c := sim.NewRealClock(0)
	ctx := context.Background()
	c.SleepUntil(ctx, c.Now()+time.Microsecond)
	if a := testing.AllocsPerRun(50, func() { c.SleepUntil(ctx, c.Now()+20*time.Microsecond) }); a != 0 {
		t.Fatalf("SleepUntil allocates %.1f times", a)
	}
}

// A panic in the world's Snapshot is an error too, on every publish: the
// first one (tick 0), one after steps, and the republish on resume.
func TestSnapshotPanicIsAnError(t *testing.T) {
	for _, tc := range []struct {
		name  string
		after int // publishes that succeed before the one that panics
		pause bool
	}{
		{"first publish", 0, false},
		{"after steps", 3, false},
		{"republish on resume", 2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := new(sim.VirtualClock)
			n := 0
			p := &probe{clock: clock, snapshot: func(*simthread.Snapshot) {
				if n == tc.after {
					panic("snap")
				}
				n++
			}}
			s, err := sim.New(simthread.Tuning{Timing: simthread.Timing{Rate: 100}}, p, clock)
			if err != nil {
				t.Fatal(err)
			}
			var werr error
			resumed := false
			for i := 0; i < 10 && werr == nil; i++ {
				if tc.pause && n == tc.after && !resumed {
					// Nothing is due at this instant: the pausing wake
					// publishes nothing; the resuming wake republishes.
					s.Pause()
					if _, werr = s.Wake(); werr != nil {
						break
					}
					s.Resume()
					resumed = true
					_, werr = s.Wake()
					break
				}
				var next time.Duration
				if next, werr = s.Wake(); werr == nil && !(tc.pause && n == tc.after) {
					clock.Set(next)
				}
			}
			if tc.pause && !resumed {
				t.Fatal("never reached the resume")
			}
			var pe *simthread.PanicError
			if !errors.As(werr, &pe) || pe.Value != "snap" {
				t.Fatalf("Wake returned %v, want a *PanicError with value snap", werr)
			}
		})
	}
}
