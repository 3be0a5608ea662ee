package verify

import (
	"fmt"
	"hash/fnv"
	"math/bits"
	"math/rand/v2"
	"time"

	"github.com/tickframe/tickframe/renderer/interp"
	"github.com/tickframe/tickframe/simthread"
	"github.com/tickframe/tickframe/simthread/refworld"
	"github.com/tickframe/tickframe/sync/triplebuf"
)

// maxLateness is how late the virtual simulation wakes at most: a real one
// wakes up to a couple of milliseconds after its deadline when the OS is
// busy (RealClock's spin makes it punctual on an idle machine; the
// verifier assumes the worse case).
const maxLateness = 2 * time.Millisecond

// warmup is excluded from the statistics: the adaptive render delay starts
// from a guess and needs a moment to learn the publish delay.
const warmup = time.Second

// cell is one row to run: a simulation rate, a display pattern and a mode.
type cell struct {
	sim  int
	disp Pattern
	mode Mode
}

// world is the reference world as the Sim sees it in the verifier: its
// steps take virtual time, and the frames that fall inside a step are
// rendered before the step's result exists, as on a real machine where the
// render thread runs while the simulation computes.
type world struct {
	*refworld.World
	r    *rowRun
	cost time.Duration
}

func (w *world) Step(tick uint64, dt float64, inputs []simthread.Input) {
	end := w.r.clock.Now() + w.cost
	w.r.advance(end, false)
	w.r.clock.Set(end)
	if w.r.opts.tamper != nil {
		inputs = w.r.opts.tamper(tick, inputs)
	}
	w.World.Step(tick, dt, inputs)
}

// rowRun is the state of one row's discrete-event loop. Everything runs on
// one goroutine: the Sim is driven through Wake, and the clock moves only
// when the loop moves it.
type rowRun struct {
	opts  *Options
	c     cell
	row   *Row
	clock *simthread.VirtualClock
	sim   *simthread.Sim
	view  *triplebuf.Consumer[simthread.Snapshot]
	plan  *interp.Planner
	meter *interp.Meter
	step  time.Duration
	late  *rand.Rand
	disp  *frames
	end   time.Duration

	nextFrame       time.Duration
	hidden, showing bool          // a hide was processed; the show after it was processed
	resumed         time.Duration // the first frame after the resume transition
	warm            bool
	lastAdvance     time.Duration // the last wake that advanced the scheduler
	shown           bool          // a frame was shown
	lastSim         float64       // the last frame's displayed simulated time, seconds
}

// rngFor returns a random source for one purpose of one row, so that rows
// are reproducible whatever order the workers run them in, and the modes of
// one cell see the same display and the same wake-ups.
func rngFor(seed uint64, parts ...string) *rand.Rand {
	h := fnv.New64a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

// ticksIn returns floor(d × rate / 1 s) exactly, as the scheduler counts.
func ticksIn(d time.Duration, rate int) uint64 {
	if d <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(d), uint64(rate))
	q, _ := bits.Div64(hi, lo, uint64(time.Second))
	return q
}

// script returns the scripted inputs of a run that hashes its world at
// hashAt: a kick at a fifth of the way and a reset at half way, so that
// inputs are part of the hashed state.
func script(rate int, hashAt time.Duration) []simthread.TickInput {
	kick := max(ticksIn(hashAt/5, rate), 1)
	reset := max(ticksIn(hashAt/2, rate), kick+1)
	return []simthread.TickInput{
		{Tick: kick, Input: simthread.Input{Kind: refworld.Kick, X: 3}},
		{Tick: reset, Input: simthread.Input{Kind: refworld.Reset}},
	}
}

// checkpointEvery returns how often the world is hashed: about ten times a
// simulated second, on ticks that include the hashed tick h. Hashing only
// at h would miss a divergence before the scripted reset, which puts every
// swarm body back where it started.
func checkpointEvery(rate int, h uint64) uint64 {
	a, b := h, uint64(max(rate/10, 1))
	for b != 0 {
		a, b = b, a%b
	}
	return max(a, 1)
}

// reference steps a fresh world directly, tick by tick, with the scripted
// inputs, and returns its hashes at the checkpoints up to the hashed tick.
func reference(bodies int, seed uint64, rate int, hashAt time.Duration) ([]simthread.Checkpoint, error) {
	w, err := refworld.New(bodies, seed)
	if err != nil {
		return nil, err
	}
	in := script(rate, hashAt)
	h := ticksIn(hashAt, rate)
	every := checkpointEvery(rate, h)
	dt := 1 / float64(rate)
	var batch []simthread.Input
	var checks []simthread.Checkpoint
	for k := uint64(1); k <= h; k++ {
		batch = batch[:0]
		for len(in) > 0 && in[0].Tick == k {
			batch = append(batch, in[0].Input)
			in = in[1:]
		}
		w.Step(k, dt, batch)
		if k%every == 0 {
			checks = append(checks, simthread.Checkpoint{Tick: k, Hash: w.Hash()})
		}
	}
	return checks, nil
}

// compareHashes fills in the row's hash fields from the Sim's checkpoints
// and the reference's.
func compareHashes(row *Row, got, ref []simthread.Checkpoint) {
	if len(ref) > 0 {
		row.RefHash = ref[len(ref)-1].Hash
	}
	for i, r := range ref {
		if i >= len(got) {
			return // the row never reached the hashed tick
		}
		if got[i] != r && row.FirstDiff == 0 {
			row.FirstDiff = r.Tick
		}
		row.Checkpoints++
	}
	if row.Checkpoints == len(ref) && len(ref) > 0 {
		row.Hash, row.Hashed = got[len(ref)-1].Hash, true
	}
}

// runCell runs one row with the real Sim (interpolated or not) and
// returns its measurements; the checks are added by evaluate.
func runCell(opts *Options, c cell, ref []simthread.Checkpoint) Row {
	row := newRow(opts, c)
	if c.mode == Naive {
		if len(ref) > 0 {
			row.RefHash = ref[len(ref)-1].Hash
		}
		runNaive(opts, c, &row)
		return row
	}
	if err := runSim(opts, c, &row, ref); err != nil {
		row.Err = err.Error()
	}
	return row
}

// newRow fills in what a row is before it runs.
func newRow(opts *Options, c cell) Row {
	cost := opts.StepCost
	step := simthread.Timing{Rate: c.sim}.Step()
	if c.disp.Kind == Overload {
		cost = time.Duration(float64(step) * c.disp.Cost)
	}
	return Row{
		Sim:      c.sim,
		Display:  c.disp.Label(),
		Pattern:  c.disp.String(),
		Kind:     c.disp.Kind,
		Mode:     c.mode,
		Baseline: c.mode != Interpolated,
		Elapsed:  c.disp.rowLength(opts.Duration),
		StepCost: cost,
		HashTick: ticksIn(opts.hashAt(), c.sim),
	}
}

func runSim(opts *Options, c cell, row *Row, ref []simthread.Checkpoint) error {
	r := &rowRun{
		opts:  opts,
		c:     c,
		row:   row,
		clock: new(simthread.VirtualClock),
		end:   row.Elapsed,
		late:  rngFor(opts.Seed, "wake", fmt.Sprint(c.sim), c.disp.String()),
		disp:  newFrames(c.disp, rngFor(opts.Seed, "display", c.disp.String()), opts.Duration),
	}
	rw, err := refworld.New(opts.Bodies, opts.Seed)
	if err != nil {
		return err
	}
	cfg := simthread.Config{
		Timing:          simthread.Timing{Rate: c.sim},
		Replay:          script(c.sim, opts.hashAt()),
		CheckpointEvery: checkpointEvery(c.sim, row.HashTick),
	}
	r.sim, err = simthread.New(cfg, &world{World: rw, r: r, cost: row.StepCost}, r.clock)
	if err != nil {
		return err
	}
	r.step = r.sim.Step()
	r.view = r.sim.Snapshots()
	r.plan = interp.NewPlanner(r.view, interp.NewDelay(r.step, 0))
	r.meter = &interp.Meter{Rate: c.sim, Body: 0, Truth: refworld.RefPosition, Speed: refworld.RefSpeed}
	r.nextFrame = r.disp.next()

	if err := r.loop(); err != nil {
		return err
	}

	st := r.sim.Telemetry().Read()
	row.Ticks = st.Ticks
	row.DiscardedTicks = st.DiscardedTicks
	row.Discarded = st.Discarded
	row.Clamped = st.Clamped
	row.Paused = st.PausedTotal
	row.LastWake = r.lastAdvance
	row.Pending = int64(ticksIn(row.Elapsed-row.Clamped-row.Paused, c.sim)) - int64(row.Ticks+row.DiscardedTicks)
	row.MaxSteps = r.sim.Config().MaxSteps
	for i, n := range st.StepsPerWake {
		if n > 0 {
			row.MostStepsPerWake = i
		}
	}
	compareHashes(row, r.sim.Checkpoints(), ref)
	ps := r.plan.Stats()
	row.Late, row.Early = ps.Late, ps.Early
	row.Delay = r.plan.Delay().Value()
	row.measure(r.meter)
	return nil
}

// loop is the discrete-event loop: the simulation wakes at each deadline
// plus a random lateness, and every display event before a wake (or
// inside one of its steps) is handled first.
func (r *rowRun) loop() error {
	next, err := r.sim.Wake() // time 0: publishes tick 0
	for err == nil {
		wasPaused := r.sim.Telemetry().Paused()
		if wasPaused {
			// A paused Sim sleeps until the app resumes it; it then
			// wakes as soon as it is scheduled.
			if !r.showing {
				show := r.disp.show
				if !r.hidden || show > r.end {
					break
				}
				r.advance(show, true)
			}
			next = 0
		}
		// A Sim whose deadline has passed (its steps overran, or it was
		// just resumed) does not sleep and wakes at once; one that
		// sleeps wakes late.
		at := r.clock.Now()
		if next > at {
			at = next + time.Duration(r.late.Int64N(int64(maxLateness)+1))
		}
		if at > r.end {
			break
		}
		r.advance(at, false)
		r.clock.Set(at)
		if !wasPaused {
			r.lastAdvance = at
		}
		next, err = r.sim.Wake()
	}
	if err != nil {
		return err
	}
	r.advance(r.end, true)
	return nil
}

// advance handles every display event before t (at t too if inclusive), in
// time order, and never beyond the row's end.
func (r *rowRun) advance(t time.Duration, inclusive bool) {
	t = min(t, r.end)
	for {
		ev, at := r.peek()
		if at > t || (at == t && !inclusive) {
			return
		}
		r.clock.Set(at)
		switch ev {
		case evHide:
			r.hidden = true
			r.sim.Pause()
		case evShow:
			r.showing = true
			r.sim.Resume()
		case evFrame:
			r.nextFrame = r.disp.next()
			r.frame(at)
		}
	}
}

type event int

const (
	evFrame event = iota
	evHide
	evShow
)

// peek returns the next display event: a hide or show of the window comes
// before a frame at the same time.
func (r *rowRun) peek() (event, time.Duration) {
	d := r.disp
	switch {
	case d.hide < d.show && !r.hidden && d.hide <= r.nextFrame:
		return evHide, d.hide
	case d.hide < d.show && r.hidden && !r.showing && d.show <= r.nextFrame:
		return evShow, d.show
	}
	return evFrame, r.nextFrame
}

// frame plans and measures one frame displayed at f.
func (r *rowRun) frame(f time.Duration) {
	plan := r.plan.Frame(f)
	switch r.c.mode {
	case Interpolated:
		if r.opts.breakInterpolation != nil {
			r.opts.breakInterpolation(&plan)
		}
	case NoInterp:
		if plan.Ready {
			// Fixed step without interpolation: the newest snapshot as
			// is, shown one step behind the frame as a textbook loop
			// would (interp's TestMeter measures the same way).
			newest := r.view.History(0)
			plan.Prev, plan.Next, plan.Alpha, plan.Clamp = newest, newest, 1, interp.NoClamp
			plan.PrevSeq = plan.NextSeq
			plan.SimTick = float64(newest.Tick)
			plan.RenderTime = f - r.step
		}
	}
	r.observe(f, plan, r.view)
}

// observe checks and measures one frame. The error statistics start over
// at the end of the warm-up; the backwards check covers every frame.
func (r *rowRun) observe(f time.Duration, plan interp.Plan, view *triplebuf.Consumer[simthread.Snapshot]) {
	if !plan.Ready {
		return
	}
	if !r.warm && f >= warmup {
		r.warm = true
		r.meter.PosErr.Reset()
		r.meter.AnimErr.Reset()
		r.meter.Skipped = 0
	}
	// The meter's definition of going backwards, applied here because
	// the meter does not see the frames of a resume transition.
	sim := plan.SimTick / float64(r.c.sim)
	if r.shown && sim < r.lastSim-1e-9 {
		r.row.Backwards++
	}
	r.shown, r.lastSim = true, sim

	if r.showing && r.resumed == 0 {
		if plan.Prev.Published < r.disp.show {
			// A resume transition: the frame's bracket still holds a
			// snapshot from before the pause, so the render time lies
			// across the pause and has no truth. The meter skips such
			// frames only once it holds a snapshot from after the
			// resume, so until then the frame is kept from it.
			r.row.Transition++
			return
		}
		r.resumed = f
		r.row.TransitionSpan = f - r.disp.show
		r.row.TransitionBound = plan.Delay + r.step + maxLateness + r.disp.period()
	}
	r.meter.Frame(f, &plan)
	if r.warm {
		r.row.Frames++
	}
}

// runNaive runs the naive variable-step loop on the same display: no
// scheduler, one step per frame. A real loop cannot know when the frame
// it is computing will be shown: it steps by the interval it just measured
// (the previous frame's) and its result is displayed at the next refresh.
// So the frame displayed at f_n shows the world at f_{n−1}, which is exact
// on a steady display and wrong by the change of interval otherwise.
func runNaive(opts *Options, c cell, row *Row) {
	rw, err := refworld.New(opts.Bodies, opts.Seed)
	if err != nil {
		row.Err = err.Error()
		return
	}
	prod, view, err := triplebuf.New[simthread.Snapshot](2, nil)
	if err != nil {
		row.Err = err.Error()
		return
	}
	disp := newFrames(c.disp, rngFor(opts.Seed, "display", c.disp.String()), opts.Duration)
	var times []time.Duration
	for f := disp.next(); f <= row.Elapsed; f = disp.next() {
		times = append(times, f)
	}
	if len(times) < 2 {
		row.Err = "no frames"
		return
	}
	// The constant render delay the naive loop has on average: one frame.
	delay := (times[len(times)-1] - times[0]) / time.Duration(len(times)-1)

	r := &rowRun{opts: opts, c: c, row: row,
		meter: &interp.Meter{Rate: c.sim, Body: 0, Truth: refworld.RefPosition, Speed: refworld.RefSpeed}}
	in := script(c.sim, opts.hashAt())
	hashAt := opts.hashAt().Seconds()
	var batch []simthread.Input
	var tick uint64
	var start, prevStart time.Duration // when this frame's and the previous frame's work began
	for _, f := range times {
		if dt := start - prevStart; dt > 0 {
			// Inputs go in at the first step that starts at or after
			// the time their tick stood for.
			batch = batch[:0]
			for len(in) > 0 && rw.Time() >= float64(in[0].Tick-1)/float64(c.sim) {
				batch = append(batch, in[0].Input)
				in = in[1:]
			}
			tick++
			rw.Step(tick, dt.Seconds(), batch)
			if !row.Hashed && rw.Time() >= hashAt {
				row.Hash, row.Hashed, row.HashTick, row.Checkpoints = rw.Hash(), true, tick, 1
			}
		}
		// One segment of the timeline anchored at 0: the naive loop has
		// no ticks, so the displayed simulated time goes in SimTick.
		s := prod.Slot()
		rw.Snapshot(s)
		s.Tick, s.Time, s.Published = 0, 0, f
		prod.Publish()
		view.Acquire()
		plan := interp.Plan{Prev: view.History(0), Next: view.History(0), Acquired: true, Alpha: 1,
			RenderTime: f - delay, Delay: delay, SimTick: rw.Time() * float64(c.sim), Ready: true}
		r.observe(f, plan, view)
		prevStart, start = start, f
	}
	row.Ticks = tick
	row.Delay = delay
	row.measure(r.meter)
}
