package sim

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"runtime/pprof"
	"runtime/trace"
	"sync/atomic"
	"time"

	"github.com/tickframe/tickframe/simthread"
	"github.com/tickframe/tickframe/sync/waitfree"
)

// defaultInputs is the input queue's capacity a Config with none gets:
// far more than a person can produce in one tick.
const defaultInputs = 256

// Checkpoint is the world's hash after a tick.
type Checkpoint struct {
	Tick uint64 // the tick just stepped
	Hash uint64 // Hasher.Hash of the world after it
}

// Sim runs a simthread.World at a fixed rate on its own goroutine and publishes a
// snapshot after every wake that ran steps. Create it with New, start it
// with Run or Start, and read its snapshots with Snapshots from one other
// goroutine (the render thread).
type Sim struct {
	cfg   simthread.Tuning
	clock Clock
	world simthread.World
	sched *scheduler
	dt    float64

	out  *waitfree.Producer[simthread.Snapshot]
	view *waitfree.Consumer[simthread.Snapshot]
	in   *waitfree.Queue[simthread.Input]

	pauseReq atomic.Bool
	signal   chan struct{} // wakes a paused loop; capacity 1

	started   bool
	deadline  time.Duration
	batch     []simthread.Input // this tick's inputs, reused
	replayAt  int
	log       []simthread.TickInput
	checks    []Checkpoint
	hasher    simthread.Hasher
	recHash   simthread.Hasher // the world, when recording a Hasher
	last      Checkpoint       // the last tick completed and its hash, when recording
	prev      Checkpoint       // the one before it
	panicked  bool
	stopped   bool
	tel       Telemetry
	done      chan struct{}
	runErr    error
	running   atomic.Bool
	traceStep string
	peaks     [peakWindow]time.Duration // the last publish delays, a ring
	peakAt    int
}

// peakWindow is how many publishes Snapshot.PeakDelay covers: 64 covers a
// display 64 times slower than the simulation (30 Hz at 1000 Hz, 2 Hz at
// 120 Hz) for a cost of 64 compares per publish.
const peakWindow = 64

// New returns a Sim that steps world on clock. The world is the Sim's from
// now on: touch it again only after Run has returned.
func New(cfg simthread.Tuning, world simthread.World, clock Clock) (*Sim, error) {
	if world == nil || clock == nil {
		return nil, errors.New("sim: New needs a world and a clock")
	}
	if cfg.History == 0 {
		cfg.History = simthread.DefaultHistory
	}
	if cfg.Inputs == 0 {
		cfg.Inputs = defaultInputs
	}
	if cfg.History < 2 || cfg.History > waitfree.MaxHistory {
		return nil, fmt.Errorf("sim: history %d out of range [2, %d]", cfg.History, waitfree.MaxHistory)
	}
	if cfg.Inputs < 1 || cfg.Inputs > waitfree.MaxQueue {
		return nil, fmt.Errorf("sim: input queue capacity %d out of range [1, %d]", cfg.Inputs, waitfree.MaxQueue)
	}
	sched, err := newScheduler(cfg.Timing)
	if err != nil {
		return nil, err
	}
	cfg.Timing = sched.Timing()
	var hasher simthread.Hasher
	if cfg.CheckpointEvery > 0 {
		h, ok := world.(simthread.Hasher)
		if !ok {
			return nil, errors.New("sim: checkpoints need a world that implements Hasher")
		}
		hasher = h
	}
	for i := range cfg.Replay {
		if cfg.Replay[i].Tick == 0 {
			return nil, fmt.Errorf("sim: replay log entry %d is at tick 0; inputs apply from tick 1", i)
		}
		if i > 0 && cfg.Replay[i].Tick < cfg.Replay[i-1].Tick {
			return nil, fmt.Errorf("sim: replay log entry %d (tick %d) before entry %d (tick %d)",
				i, cfg.Replay[i].Tick, i-1, cfg.Replay[i-1].Tick)
		}
	}
	out, view, err := waitfree.NewTripleBuffer(cfg.History, cfg.InitSnapshot)
	if err != nil {
		return nil, err
	}
	in, err := waitfree.NewQueue[simthread.Input](cfg.Inputs)
	if err != nil {
		return nil, err
	}
	s := &Sim{
		cfg:    cfg,
		clock:  clock,
		world:  world,
		sched:  sched,
		dt:     sched.stepSeconds(),
		out:    out,
		view:   view,
		in:     in,
		signal: make(chan struct{}, 1),
		batch:  make([]simthread.Input, 0, in.Cap()),
		hasher: hasher,
		done:   make(chan struct{}),
	}
	if h, ok := world.(simthread.Hasher); ok && cfg.Record {
		s.recHash = h
	}
	if cfg.StopAfter > 0 && cfg.CheckpointEvery > 0 {
		s.checks = make([]Checkpoint, 0, cfg.StopAfter/cfg.CheckpointEvery+1)
	}
	return s, nil
}

// Config returns the Sim's configuration with defaults filled in.
func (s *Sim) Config() simthread.Tuning { return s.cfg }

// Step returns the fixed step, rounded to the nanosecond.
func (s *Sim) Step() time.Duration { return s.cfg.Timing.Step() }

// Clock returns the clock the Sim runs on, which the renderer shares.
func (s *Sim) Clock() Clock { return s.clock }

// Snapshots returns the render side of the snapshot buffer. One goroutine
// (the render thread) may use it, concurrently with the Sim.
func (s *Sim) Snapshots() *waitfree.Consumer[simthread.Snapshot] { return s.view }

// Overwritten reports how many snapshots were replaced before the render
// side acquired them. Any goroutine may call it.
func (s *Sim) Overwritten() uint64 { return s.out.Overwritten() }

// Send queues an input for the start of the next tick and reports whether
// there was room (and, when replaying, refuses it). One goroutine (the
// render thread) may call it, concurrently with the Sim. It never waits.
func (s *Sim) Send(in simthread.Input) bool {
	if s.cfg.Replay != nil {
		return false
	}
	return s.in.Push(in)
}

// InputsDropped reports how many inputs Send refused because the queue was
// full.
func (s *Sim) InputsDropped() uint64 { return s.in.Dropped() }

// Pause asks the simulation to stop at its next wake (within one tick).
// Time spent paused is never caught up. Any goroutine may call it; it never
// waits.
func (s *Sim) Pause() { s.pauseReq.Store(true) }

// Resume asks a paused simulation to go on from now. Any goroutine may call
// it; it never waits.
func (s *Sim) Resume() {
	s.pauseReq.Store(false)
	select {
	case s.signal <- struct{}{}:
	default:
	}
}

// Telemetry returns the live counters, readable from any goroutine.
func (s *Sim) Telemetry() *Telemetry { return &s.tel }

// AdvancedTo returns the time the Sim's scheduler last advanced to: the
// time of its last wake. Only the goroutine driving the Sim may call it,
// and only between wakes.
func (s *Sim) AdvancedTo() time.Duration { return s.sched.Now() }

// Start runs the Sim on a new goroutine until ctx is done; Wait waits for
// it. Start may be called once.
func (s *Sim) Start(ctx context.Context) {
	go func() { _ = s.Run(ctx) }()
}

// Done is closed when Run has returned.
func (s *Sim) Done() <-chan struct{} { return s.done }

// Wait waits for Run to return and returns its error.
func (s *Sim) Wait() error {
	<-s.done
	return s.runErr
}

// Run runs the simulation loop on the calling goroutine: it publishes the
// initial state, then sleeps until each tick is due, runs the due steps and
// publishes the result, until ctx is done (it then returns nil within one
// tick) or the StopAfter tick is published. It returns an error if the
// world panics. Run may be called once.
func (s *Sim) Run(ctx context.Context) (err error) {
	if !s.running.CompareAndSwap(false, true) {
		return errors.New("sim: Run called twice")
	}
	defer func() {
		s.runErr = err
		close(s.done)
	}()
	pprof.Do(ctx, pprof.Labels("loop", "sim"), func(ctx context.Context) {
		err = s.loop(ctx)
	})
	return err
}

func (s *Sim) loop(ctx context.Context) error {
	defer s.endPause()
	next, err := s.Wake()
	for err == nil && !s.stopped {
		if s.sched.Paused() {
			select {
			case <-ctx.Done():
				return nil
			case <-s.signal:
			}
		} else if s.clock.SleepUntil(ctx, next) != nil {
			return nil
		}
		next, err = s.Wake()
	}
	return err
}

// Wake does what Run does each time it wakes, at the clock's current time:
// it applies a pause or resume request, runs the due steps (inputs at the
// start of the first), publishes the result, and returns when the next tick
// is due. The first call starts the timeline and publishes tick 0. Wake is
// for drivers that own the timeline, such as the verifier and tests; never
// call it while Run is running.
func (s *Sim) Wake() (next time.Duration, err error) {
	now := s.clock.Now()
	if !s.started {
		s.started = true
		s.sched.Start(now)
		if s.recHash != nil {
			s.last = Checkpoint{Tick: 0, Hash: s.recHash.Hash()}
			s.prev = s.last
		}
		if err := s.publishTick(0, 0); err != nil {
			return 0, err
		}
		s.deadline = s.sched.NextDeadline()
		return s.deadline, nil
	}
	if s.stopped {
		return s.deadline, nil
	}
	if !s.sched.Paused() {
		s.tel.Lateness.Record(int64(now - s.deadline))
	}
	switch pause := s.pauseReq.Load(); {
	case pause && !s.sched.Paused():
		// Run what is due up to now, then freeze.
		if err := s.run(now); err != nil {
			return 0, err
		}
		s.sched.Pause(s.clock.Now())
		s.tel.paused.Store(true)
		return s.deadline, nil
	case !pause && s.sched.Paused():
		before := s.sched.Stats().Paused
		s.sched.Resume(now)
		s.tel.pausedNs.Add(int64(s.sched.Stats().Paused - before))
		s.tel.paused.Store(false)
		// Publish the current tick again, stamped on the shifted
		// timeline, so the renderer has a snapshot on this side of the
		// pause at once and holds the pose instead of planning frames
		// against the old timeline.
		if err := s.publishTick(s.sched.Tick(), s.sched.Tick()); err != nil {
			return 0, err
		}
		s.deadline = s.sched.NextDeadline()
		return s.deadline, nil
	case s.sched.Paused():
		return s.deadline, nil
	}
	if err := s.run(now); err != nil {
		return 0, err
	}
	return s.deadline, nil
}

// endPause counts a pause still running when the loop ends, so that the
// telemetry's paused time covers the whole run.
func (s *Sim) endPause() {
	if !s.sched.Paused() {
		return
	}
	before := s.sched.Stats().Paused
	s.sched.Resume(s.clock.Now())
	s.tel.pausedNs.Add(int64(s.sched.Stats().Paused - before))
	s.tel.paused.Store(false)
}

// run advances the scheduler to now, runs the due steps and publishes.
func (s *Sim) run(now time.Duration) (err error) {
	w := s.sched.Advance(now)
	s.tel.wakes.Add(1)
	s.tel.stepsPerWake[min(w.Steps, stepsPerWakeBuckets-1)].Add(1)
	if w.Clamped > 0 {
		s.tel.clamps.Add(1)
		s.tel.clampedNs.Add(int64(w.Clamped))
	}
	if w.DiscardedTicks > 0 {
		s.tel.discards.Add(1)
		s.tel.discardedTicks.Add(w.DiscardedTicks)
		s.tel.discardedNs.Add(int64(s.sched.DiscardedTime(w.DiscardedTicks)))
	}
	if w.KeptDebt {
		s.tel.keptDebtWakes.Add(1)
	}
	steps := w.Steps
	if stop := s.cfg.StopAfter; stop > 0 && w.First+uint64(steps) > stop+1 {
		steps = int(stop + 1 - w.First)
	}
	tick := w.First
	defer func() {
		if r := recover(); r != nil {
			err = s.panicAt(tick, r)
		}
	}()
	for i := 0; i < steps; i++ {
		tick = w.First + uint64(i)
		s.batch = s.batch[:0]
		if i == 0 && s.cfg.Replay == nil {
			for {
				in, ok := s.in.Pop()
				if !ok {
					break
				}
				s.batch = append(s.batch, in)
			}
		}
		for s.replayAt < len(s.cfg.Replay) && s.cfg.Replay[s.replayAt].Tick <= tick {
			if s.cfg.Replay[s.replayAt].Tick == tick {
				s.batch = append(s.batch, s.cfg.Replay[s.replayAt].Input)
			}
			s.replayAt++
		}
		if s.cfg.Record {
			for _, in := range s.batch {
				s.log = append(s.log, simthread.TickInput{Tick: tick, Input: in})
			}
		}
		s.tel.inputs.Add(uint64(len(s.batch)))
		t0 := s.clock.Now()
		if trace.IsEnabled() {
			r := trace.StartRegion(context.Background(), "sim.step")
			s.world.Step(tick, s.dt, s.batch)
			r.End()
		} else {
			s.world.Step(tick, s.dt, s.batch)
		}
		s.tel.StepTime.Record(int64(s.clock.Now() - t0))
		s.tel.ticks.Store(tick)
		var hash uint64
		if s.recHash != nil {
			hash = s.recHash.Hash()
			s.prev, s.last = s.last, Checkpoint{Tick: tick, Hash: hash}
		}
		if s.hasher != nil && tick%s.cfg.CheckpointEvery == 0 {
			if s.recHash == nil {
				hash = s.hasher.Hash()
			}
			s.checks = append(s.checks, Checkpoint{Tick: tick, Hash: hash})
		}
	}
	if steps > 0 {
		if err := s.publishTick(tick, w.First); err != nil {
			return err
		}
	}
	if stop := s.cfg.StopAfter; stop > 0 && tick >= stop && steps > 0 {
		s.stopped = true
	}
	s.deadline = s.sched.NextDeadline()
	return nil
}

// publishTick writes the world's snapshot for tick into the back slot,
// stamps it and hands it over; first is the first tick the wake ran. A
// panic in the world's Snapshot becomes a *PanicError, whichever wake
// publishes (the first, a resume, a step).
//
// The publish delay that matters to a renderer is Published − TickTime(first),
// not Published − Time: the ticks a wake runs before the last are never
// published on their own, so a render time just past the previous snapshot
// waits for this publish as long as that first tick did.
func (s *Sim) publishTick(tick, first uint64) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = s.panicAt(tick, r)
		}
	}()
	var r *trace.Region
	if trace.IsEnabled() {
		r = trace.StartRegion(context.Background(), "sim.publish")
	}
	snap := s.out.Slot()
	s.world.Snapshot(snap)
	snap.Tick = tick
	snap.Time = s.sched.TickTime(tick)
	snap.Published = s.clock.Now()
	delay := snap.Published - s.sched.TickTime(first)
	s.peaks[s.peakAt] = delay
	s.peakAt = (s.peakAt + 1) % peakWindow
	snap.PeakDelay = 0
	for _, d := range s.peaks {
		snap.PeakDelay = max(snap.PeakDelay, d)
	}
	s.out.Publish()
	s.tel.PublishDelay.Record(int64(delay))
	if r != nil {
		r.End()
	}
	return nil
}

// panicAt makes the world's panic at tick a *PanicError, and ends the
// input log and the checkpoints at the tick before it: the last whose
// state is known whole, where Final stands. Called in the deferred
// recover, so the stack is the panic's.
func (s *Sim) panicAt(tick uint64, r any) error {
	s.panicked = true
	end := uint64(0)
	if tick > 0 {
		end = tick - 1
	}
	if s.last.Tick > end {
		s.last = s.prev // a panic in Snapshot, after the tick's step
	}
	i := len(s.log)
	for i > 0 && s.log[i-1].Tick > end {
		i--
	}
	s.log = s.log[:i]
	j := len(s.checks)
	for j > 0 && s.checks[j-1].Tick > end {
		j--
	}
	s.checks = s.checks[:j]
	return &simthread.PanicError{Tick: tick, Value: r, Stack: debug.Stack()}
}

// InputLog returns every input applied so far with its tick, when
// simthread.Tuning.Record is set; after the world panicked at tick T (a
// *simthread.PanicError), those up to tick T−1 only. Call it only after Run
// has returned (or between Wake calls).
func (s *Sim) InputLog() []simthread.TickInput { return s.log }

// Checkpoints returns the world hashes recorded every CheckpointEvery ticks;
// after the world panicked at tick T, those up to tick T−1 only. Call it
// only after Run has returned (or between Wake calls).
func (s *Sim) Checkpoints() []Checkpoint { return s.checks }

// Stopped reports whether the StopAfter tick has been published. Call it
// only after Run has returned (or between Wake calls).
func (s *Sim) Stopped() bool { return s.stopped }

// Final returns the last tick the world completed and its hash, for a
// recording: the tick Run stopped at after a clean stop, or T−1 after the
// world panicked at tick T (in Step, whose half-stepped state is never
// hashed, or in Snapshot), 0 and the initial state's hash when nothing
// ran. ok is false unless simthread.Tuning.Record is set and the world implements
// Hasher. Call it only after Run has returned (or between Wake calls).
func (s *Sim) Final() (c Checkpoint, panicked, ok bool) {
	return s.last, s.panicked, s.recHash != nil && s.started
}
