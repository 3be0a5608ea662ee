package verify

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"math/bits"
	"math/rand/v2"
	"time"

	"github.com/tickframe/tickframe/platform/internal/interp"
	"github.com/tickframe/tickframe/platform/internal/refworld"
	"github.com/tickframe/tickframe/platform/internal/sim"
	"github.com/tickframe/tickframe/platform/internal/stats"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/simthread"
	"github.com/tickframe/tickframe/sync/waitfree"
)

// warmup is the time excluded from the statistics: the pipeline's meter
// warm-up (interp.WarmMeter), the same as the app's.
func warmup() time.Duration { return interp.DefaultWarmup() }

// cell is one row to run: a simulation rate, a display pattern and a mode
// (with, for an interpolated row, its motion mode).
type cell struct {
	sim    int
	disp   Pattern
	mode   Mode
	driver Driver
	motion renderer.MotionMode
}

// newWorld returns the reference world of every row: refworld's, with the
// spinner (body refworld.SpinBody) and the bouncer (refworld.BounceBody)
// when it has room for them.
func newWorld(bodies int, seed uint64) (*refworld.World, error) {
	if hasBouncer(bodies) {
		return refworld.NewWithBouncer(bodies, seed)
	}
	if bodies > refworld.SpinBody {
		return refworld.NewWithSpinner(bodies, seed)
	}
	return refworld.New(bodies, seed)
}

// refBody returns what a row's meter follows: the reference body's
// position, and the spinner's orientation where the world has one.
func refBody(bodies int) *interp.Reference {
	ref := &interp.Reference{Body: 0, Truth: refworld.RefPosition, Speed: refworld.RefSpeed}
	if bodies > refworld.SpinBody {
		ref.SpinBody, ref.SpinTruth = refworld.SpinBody, refworld.SpinRotation
	}
	return ref
}

// newMeter returns the meter of a row without a pipeline (naive).
func newMeter(sim, bodies int) *interp.WarmMeter {
	return interp.NewWarmMeter(interp.NewMeter(sim, *refBody(bodies)), 0)
}

// kickBody is the swarm body whose extrapolation corrections are counted
// after the scripted kick: the first after the reference bodies.
const kickBody = refworld.BounceBody + 1

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

// rowRun is the state of one row's discrete-event loop. The clock moves
// only when the loop moves it, and one goroutine at a time does anything:
// the loop's, or, for a row driven by Sim.Run, the Sim's while the loop
// waits for it to sleep again.
type rowRun struct {
	// pos and anim are the errors of the steady frames: neither clamped,
	// nor coarse, nor rising (see Row.Coarse, Row.Rising).
	pos, anim stats.Histogram
	lastDelay time.Duration
	opts      *Options
	c         cell
	row       *Row
	clock     *sim.VirtualClock
	pipe      *interp.Pipeline
	sim       *sim.Sim // pipe's
	view      *waitfree.Consumer[simthread.Snapshot]
	plan      *interp.Planner // pipe's
	meter     *interp.WarmMeter
	edit      planEdit
	step      time.Duration
	late      *wakes
	disp      *frames
	end       time.Duration

	nextFrame       time.Duration
	nextStalled     bool          // the render thread stalls before the next frame
	stalled         bool          // it stalled before this one
	hidden, showing bool          // a hide was processed; the show after it was processed
	resumed         bool          // a frame after the show was past the pause
	lastAdvance     time.Duration // the last wake that advanced the scheduler
	shown           bool          // a frame was shown
	lastSim         float64       // the last frame's displayed simulated time, seconds
	lateSeen        uint64        // late-clamped plans over the whole row, pauses aside
	earlySeen       uint64        // early-clamped plans over the whole row, pauses aside
	pausedSeen      uint64        // plans marked Paused over the whole row
	sinceStall      int           // frames since the last render stall; -1 before the first

	kick     renderer.Correction // kickBody's correction (extrapolate)
	kickTick uint64              // the scripted kick's tick
	bounce   bounceCheck         // the bouncer's (see bounce.go)
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
func reference(bodies int, seed uint64, rate int, hashAt time.Duration) ([]sim.Checkpoint, error) {
	w, err := newWorld(bodies, seed)
	if err != nil {
		return nil, err
	}
	in := script(rate, hashAt)
	h := ticksIn(hashAt, rate)
	every := checkpointEvery(rate, h)
	dt := 1 / float64(rate)
	var batch []simthread.Input
	var checks []sim.Checkpoint
	for k := uint64(1); k <= h; k++ {
		batch = batch[:0]
		for len(in) > 0 && in[0].Tick == k {
			batch = append(batch, in[0].Input)
			in = in[1:]
		}
		w.Step(k, dt, batch)
		if k%every == 0 {
			checks = append(checks, sim.Checkpoint{Tick: k, Hash: w.Hash()})
		}
	}
	return checks, nil
}

// compareHashes fills in the row's hash fields from the Sim's checkpoints
// and the reference's.
func compareHashes(row *Row, got, ref []sim.Checkpoint) {
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
func runCell(opts *Options, c cell, ref []sim.Checkpoint) Row {
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
	motion := ""
	if c.mode == Interpolated {
		motion = c.motion.String()
	}
	return Row{
		Motion:   motion,
		Driver:   c.driver,
		History:  pipelineConfig(opts, c).History(),
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

// pipelineConfig returns the pipeline a row runs, as the app builds it
// (sim.New, interp.NewPipeline): the adaptive delay, the row's motion mode (lerp
// for the baselines), the hold without interpolation for NoInterp, the
// history for the display's fastest frames, and the reference body's
// meter. The simulation's replay and checkpoints are the row's.
func pipelineConfig(opts *Options, c cell) interp.PipelineConfig {
	cfg := interp.PipelineConfig{
		Sim:           simthread.Tuning{Timing: simthread.Timing{Rate: c.sim}},
		Hold:          c.mode == NoInterp,
		FrameInterval: c.disp.shortestInterval(),
		Reference:     refBody(opts.Bodies),
	}
	if c.mode == Interpolated {
		cfg.Motion = c.motion
	}
	return cfg
}

// historyFor returns the snapshot history a row keeps at a simulation
// rate on a display (PipelineConfig.History).
func historyFor(sim int, p Pattern) int {
	return pipelineConfig(&Options{}, cell{sim: sim, disp: p}).History()
}

func runSim(opts *Options, c cell, row *Row, ref []sim.Checkpoint) error {
	r := &rowRun{
		opts:       opts,
		c:          c,
		row:        row,
		clock:      new(sim.VirtualClock),
		end:        row.Elapsed,
		late:       newWakes(c.disp.Late, rngFor(opts.Seed, "wake", fmt.Sprint(c.sim), c.disp.String())),
		disp:       newDisplay(opts, c.disp),
		sinceStall: -1,
	}
	// The broken renderers lie about the bracket and its alpha, which
	// extrapolate does not use.
	if c.mode == Interpolated && c.motion != renderer.MotionExtrapolate && opts.breakInterpolation != nil {
		r.edit = opts.breakInterpolation()
	}
	rw, err := newWorld(opts.Bodies, opts.Seed)
	if err != nil {
		return err
	}
	pc := pipelineConfig(opts, c)
	pc.Sim.Replay = script(c.sim, opts.hashAt())
	pc.Sim.CheckpointEvery = checkpointEvery(c.sim, row.HashTick)
	s, err := sim.New(pc.SimConfig(), &world{World: rw, r: r, cost: row.StepCost}, r.clock)
	if err != nil {
		return err
	}
	if r.pipe, err = interp.NewPipeline(pc, s); err != nil {
		return err
	}
	r.sim, r.plan = r.pipe.Sim(), r.pipe.Planner()
	r.step = r.sim.Step()
	r.view = r.sim.Snapshots()
	r.meter = r.pipe.Meter()
	r.kickTick = pc.Sim.Replay[0].Tick
	r.nextFrame = r.disp.next()
	r.nextStalled = r.disp.stalled

	if c.driver == ByRun {
		err = r.runLoop()
	} else {
		err = r.loop()
	}
	if err != nil {
		return err
	}
	r.results(ref)
	return nil
}

// results fills in the row's figures once its loop has ended: the
// simulation's accounting, the hashes, the planner's counts against the
// plans', the delay and the meter's errors.
func (r *rowRun) results(ref []sim.Checkpoint) {
	row, c := r.row, r.c
	row.Elapsed = r.end

	st := r.sim.Telemetry().Read()
	row.Ticks = st.Ticks
	row.DiscardedTicks = st.DiscardedTicks
	row.Discarded = st.Discarded
	row.Clamped = st.Clamped
	row.Paused = st.PausedTotal
	row.LastWake = r.lastAdvance
	row.Pending = int64(ticksIn(row.Elapsed-row.Clamped-row.Paused, c.sim)) - int64(row.Ticks+row.DiscardedTicks)
	row.LateKind = c.disp.Late.norm().Kind
	row.MaxSteps = r.sim.Config().MaxSteps
	for i, n := range st.StepsPerWake {
		if n > 0 {
			row.MostStepsPerWake = i
		}
	}
	ms := func(s stats.Summary) Stat {
		return Stat{float64(s.P50) / 1e6, float64(s.P99) / 1e6, float64(s.Max) / 1e6}
	}
	row.Lateness = ms(st.Lateness)
	row.PublishDelay = ms(st.PublishDelay)
	compareHashes(row, r.sim.Checkpoints(), ref)
	ps := r.plan.Stats()
	row.Counted = ps.Late == r.lateSeen && ps.Early == r.earlySeen && ps.Paused == r.pausedSeen
	row.CountDetail = fmt.Sprintf("planner counted %d late, %d early, %d paused; the plans said %d, %d, %d",
		ps.Late, ps.Early, ps.Paused, r.lateSeen, r.earlySeen, r.pausedSeen)
	row.Kicked = c.mode == Interpolated && c.motion == renderer.MotionExtrapolate && r.opts.Bodies > kickBody && row.Ticks >= r.kickTick
	row.Delay = r.plan.Delay().Value()
	row.DelayLimit = interp.DelayLimit(r.step)
	row.measure(r.meter.Meter)
	row.Bounce = r.bounce.result()
	row.PosSteady = Stat{float64(r.pos.Quantile(0.5)) / 1e6, float64(r.pos.Quantile(0.99)) / 1e6, float64(r.pos.Max()) / 1e6}
	row.AnimSteady = Stat{float64(r.anim.Quantile(0.5)) / 1e6, float64(r.anim.Quantile(0.99)) / 1e6, float64(r.anim.Max()) / 1e6}
}

// newDisplay returns a row's frames. The display's phase draws from the
// display pattern alone, so that its frames are the same under every
// lateness but for the ones a render stall misses.
func newDisplay(opts *Options, p Pattern) *frames {
	return newFrames(p, rngFor(opts.Seed, "display", p.displayString()),
		rngFor(opts.Seed, "stall", p.String()), opts.Duration)
}

// maxStretch bounds how much longer than its length a row runs when its
// simulation lost time (discarded or clamped ticks under stress) and has
// not reached the hashed tick at the end: 4 covers a simulation running at
// a quarter of real time, far below what any row's lateness makes.
const maxStretch = 4

// wakeAt returns when a Sim whose next tick is due at next wakes, and
// whether that is past the row's end. A Sim whose deadline has passed (its
// steps overran, or it was just resumed) does not sleep and wakes at once,
// even past the end, as Sim.Run would: the row ends at the first wake the
// Sim sleeps for, up to MaxDelta past the end for a Sim that never sleeps
// (overload). One that sleeps wakes late by the row's lateness. A row
// whose Sim has not reached the hashed tick at its end runs on, a hash
// margin at a time, up to maxStretch times its length. Past the end, the
// row keeps what bounds the ticks left pending: the lateness of the wake
// that did not come and how long the last one's steps ran.
func (r *rowRun) wakeAt(next, lastWake time.Duration) (time.Duration, bool) {
	now := r.clock.Now()
	at, late := now, time.Duration(0)
	if next > now {
		late = r.late.next()
		at = next + late
		for at > r.end && r.sim.Telemetry().Ticks() < r.row.HashTick && r.end < maxStretch*r.row.Elapsed {
			r.end = min(r.end+hashMargin, maxStretch*r.row.Elapsed)
		}
		if at <= r.end {
			return at, false
		}
	} else if at <= r.end+simthread.DefaultMaxDelta {
		return at, false
	}
	r.row.EndLate, r.row.EndSpan = late, now-lastWake
	return at, true
}

// loop is the discrete-event loop: the simulation wakes at each deadline
// plus a random lateness, and every display event before a wake (or
// inside one of its steps) is handled first.
func (r *rowRun) loop() error {
	next, err := r.sim.Wake() // time 0: publishes tick 0
	var last time.Duration    // the last wake
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
		at, past := r.wakeAt(next, last)
		if past {
			break
		}
		r.advance(at, false)
		r.clock.Set(at)
		if !wasPaused {
			r.lastAdvance = at
		}
		last = at
		next, err = r.sim.Wake()
	}
	if err != nil {
		return err
	}
	r.finish()
	return nil
}

// runLoop is loop for a Sim that runs on its own goroutine through
// Sim.Run, as in the app: the Sim sleeps on the virtual clock until its
// deadline, the loop waits until it does (VirtualClock.WaitSleepers), then
// handles the display events up to the deadline plus the lateness and
// moves the clock there, which wakes the Sim. Only one of the two does
// anything at a time, so the row is exactly the row loop gives. The Sim
// cannot be paused here: a paused Sim waits on Resume, not on the clock.
func (r *rowRun) runLoop() error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Wake the loop if the Sim stops on its own (a panicking world).
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		select {
		case <-r.sim.Done():
			cancel()
		case <-ctx.Done():
		}
	}()
	r.sim.Start(ctx)
	for {
		dl, err := r.clock.WaitSleepers(ctx, 1)
		if err != nil {
			break // the Sim stopped
		}
		// The Sim sleeps, so its scheduler may be read: the last wake
		// may be one the Sim made at once, without sleeping.
		r.lastAdvance = r.sim.AdvancedTo()
		at, past := r.wakeAt(dl[0], r.lastAdvance)
		if past {
			break
		}
		r.advance(at, false)
		r.clock.Set(at)
	}
	cancel()
	<-stopped
	if err := r.sim.Wait(); err != nil {
		return err
	}
	r.finish()
	return nil
}

// finish ends the row: at its end, or after the last wake's steps if they
// ran past it, with the display's frames up to then.
func (r *rowRun) finish() {
	r.end = max(r.end, r.clock.Now())
	r.advance(r.end, true)
}

// advance handles every display event before t (at t too if inclusive), in
// time order, and never beyond the row's end. Frames leave the clock
// alone: a Sim sleeping on it through Sim.Run must wake when the loop says,
// not at the frame that happens to pass its deadline. Nothing a frame does
// reads the clock; a hide or show moves it to its time, for the paused
// Sim's wake at the show.
func (r *rowRun) advance(t time.Duration, inclusive bool) {
	t = min(t, r.end)
	for {
		ev, at := r.peek()
		if at > t || (at == t && !inclusive) {
			return
		}
		switch ev {
		case evHide:
			// What the app does when its window is hidden.
			r.clock.Set(at)
			r.hidden = true
			r.pipe.Pause()
		case evShow:
			r.clock.Set(at)
			r.showing = true
			r.pipe.Resume(at)
		case evFrame:
			r.stalled = r.nextStalled
			r.nextFrame = r.disp.next()
			r.nextStalled = r.disp.stalled
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

// frame plans and measures one frame displayed at f. A Panel row's frame
// starts at f: it is planned for its predicted scan-out (or, broken, the
// fixed grid's vblank) and measured at its real one.
func (r *rowRun) frame(f time.Duration) {
	shown := f
	if r.c.disp.Kind == Panel {
		pf := r.disp.panel.cur
		r.plan.SetLead(r.c.disp.panelPlanLead())
		f, shown = pf.planned, pf.shown
		if r.opts.gridAlpha {
			f = pf.grid
		}
	}
	plan := r.plan.Plan(f)
	if plan.Ready {
		switch {
		case plan.Paused:
			r.pausedSeen++
		case plan.Late:
			r.lateSeen++
		case plan.Early:
			r.earlySeen++
		}
	}
	if r.edit != nil {
		r.edit(f, &plan, held{r.view}) // a deliberately broken renderer
	}
	r.observe(shown, plan)
}

// chord returns, in ticks of the reference body's motion, the error an
// exact lerp of its true positions at the plan's two ticks makes at the
// plan's render time: the chord a lerp across several ticks cannot avoid.
func (r *rowRun) chord(plan *renderer.Plan) float64 {
	rate := float64(r.c.sim)
	ta, tb := float64(plan.Prev.Tick)/rate, float64(plan.Next.Tick)/rate
	want := ta + (plan.RenderTime - plan.Prev.Time).Seconds()
	a, b := refworld.RefPosition(ta), refworld.RefPosition(tb)
	t := float64(plan.Alpha)
	lerp := a.Add(b.Sub(a).Mul(t))
	return lerp.Sub(refworld.RefPosition(want)).Len() / (refworld.RefSpeed / rate)
}

// observe checks and measures one frame. The statistics start over at the
// end of the warm-up; the backwards check covers every frame.
func (r *rowRun) observe(f time.Duration, plan renderer.Plan) {
	if !plan.Ready {
		return
	}
	r.countKick(&plan)
	if hasBouncer(r.opts.Bodies) {
		r.bounce.follow(&plan)
	}
	// The meter's definition of going backwards, applied here because
	// the meter does not compare across a pause.
	sim := plan.SimTick / float64(r.c.sim)
	if r.shown && sim < r.lastSim-1e-9 {
		r.row.Backwards++
	}
	r.shown, r.lastSim = true, sim

	r.resume(f, &plan)
	if warm := r.meter.Measure(f, &plan); !warm {
		return
	}
	r.row.Frames++
	if hasBouncer(r.opts.Bodies) && !plan.Paused {
		r.bounce.frame(&plan, r.c.sim)
	}
	switch {
	case plan.Paused:
		r.row.PausedFrames++
		return
	case plan.Late:
		r.row.Late++
	case plan.Early:
		r.row.Early++
	}
	r.row.DelayMax = max(r.row.DelayMax, plan.Delay)
	r.measure(&plan)
}

// resume follows the frames after a pause's show: those the planner
// holds paused, how long they last against their bound, and any unpaused
// frame whose bracket reaches back across the pause.
func (r *rowRun) resume(f time.Duration, plan *renderer.Plan) {
	if r.showing && !r.resumed {
		if plan.Paused {
			// The planner holds the frozen pose until the render time
			// has passed the first snapshot after the resume.
			r.row.Transition++
		} else {
			r.resumed = true
			r.row.TransitionSpan = f - r.disp.show
			r.row.TransitionBound = plan.Delay + r.step + r.late.max + r.disp.period()
			if plan.Motion == renderer.MotionExtrapolate {
				// The frozen time lies up to the reach past the basis:
				// the prediction from the resumed simulation must catch
				// up with it.
				r.row.TransitionBound = plan.Reach + r.late.max + r.disp.period()
			}
		}
	}
	if r.showing && !plan.Paused && plan.Prev.Published < r.disp.show {
		// The planner must never let an unpaused frame's bracket reach
		// back across the pause.
		r.row.Crossed++
	}
}

// measure counts and measures a frame after the warm-up that is not
// paused: its steady errors, the frames coarse or held while the delay
// rose, the recovery after a render stall and the settled errors.
func (r *rowRun) measure(plan *renderer.Plan) {
	// Recovery from the render thread's stalls: how many frames after one
	// the errors take to come back within the bounds for good.
	if r.stalled {
		r.row.Stalls++
		r.sinceStall = 0
	} else if r.sinceStall >= 0 {
		r.sinceStall++
	}
	pos, anim := r.meter.LastPos, math.Abs(r.meter.LastAnim)
	rising := r.lastDelay > 0 && plan.Delay > r.lastDelay
	r.lastDelay = plan.Delay
	// Coarse: the bracket spans ticks a late wake ran at once (only the
	// last was published): lerp cuts the chord of the curve between them.
	// (Only lerp cuts chords: hermite follows the curve, and extrapolate
	// has no bracket, its Prev being the old basis.)
	coarse := plan.Next.Tick-plan.Prev.Tick > 1 && !(plan.Late || plan.Early) && plan.Motion == renderer.MotionLerp
	if coarse && !math.IsNaN(pos) {
		r.row.Coarse++
		// What is beyond the chord itself is the planner's: the error of
		// an exact lerp of the two ticks' true positions is not.
		pos = max(pos-r.chord(plan), 0)
	}
	switch {
	case math.IsNaN(pos):
	case rising:
		// The delay rose to cover a wake later than any before: the
		// displayed time stood still for the frame. Counted.
		r.row.Rising++
	case !(plan.Late || plan.Early):
		r.row.Steady++
		r.pos.Record(int64(pos * 1e6))
		if !math.IsNaN(anim) {
			r.anim.Record(int64(anim * 1e6))
		}
	}
	if r.sinceStall >= 0 && ((plan.Late || plan.Early) || pos > posLimit(r.c.sim) || anim > AnimErrLimit) {
		r.row.Recovery = max(r.row.Recovery, r.sinceStall+1)
	}
	if r.sinceStall < 0 || r.sinceStall >= RecoveryFrames {
		// Settled: no stall, or long enough after one.
		if !math.IsNaN(pos) {
			r.row.SettledPos = max(r.row.SettledPos, pos)
		}
		if !math.IsNaN(anim) {
			r.row.SettledAnim = max(r.row.SettledAnim, anim)
		}
	}
}

// runNaive runs the naive variable-step loop on the same display: no
// scheduler, one step per frame. A real loop cannot know when the frame
// it is computing will be shown: it steps by the interval it just measured
// (the previous frame's) and its result is displayed at the next refresh.
// So the frame displayed at f_n shows the world at f_{n−1}, which is exact
// on a steady display and wrong by the change of interval otherwise.
func runNaive(opts *Options, c cell, row *Row) {
	rw, err := newWorld(opts.Bodies, opts.Seed)
	if err != nil {
		row.Err = err.Error()
		return
	}
	prod, view, err := waitfree.NewTripleBuffer[simthread.Snapshot](2, nil)
	if err != nil {
		row.Err = err.Error()
		return
	}
	disp := newDisplay(opts, c.disp)
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

	r := &rowRun{opts: opts, c: c, row: row, disp: disp, sinceStall: -1, meter: newMeter(c.sim, opts.Bodies)}
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
		plan := renderer.Plan{Prev: view.History(0), Next: view.History(0), Acquired: true, Alpha: 1,
			RenderTime: f - delay, Delay: delay, SimTick: rw.Time() * float64(c.sim), Ready: true}
		r.observe(f, plan)
		prevStart, start = start, f
	}
	row.Ticks = tick
	row.Delay = delay
	row.Counted, row.CountDetail = true, "no planner"
	row.measure(r.meter.Meter)
	row.PosSteady = Stat{float64(r.pos.Quantile(0.5)) / 1e6, float64(r.pos.Quantile(0.99)) / 1e6, float64(r.pos.Max()) / 1e6}
	row.AnimSteady = Stat{float64(r.anim.Quantile(0.5)) / 1e6, float64(r.anim.Quantile(0.99)) / 1e6, float64(r.anim.Max()) / 1e6}
}

// countKick follows kickBody's extrapolation correction through every plan
// and measures the correction at the switch of basis across the scripted
// kick (the old basis before the kick's tick, the new one at or after it):
// the kick changed the body's velocity without warning, so the new basis
// disagrees with the prediction from the old one. The correction is
// blended in like any other, and counted when it exceeds CorrectionLimit
// (in ticks of the reference body's motion).
func (r *rowRun) countKick(plan *renderer.Plan) {
	if r.opts.Bodies <= kickBody || plan.Motion != renderer.MotionExtrapolate {
		return
	}
	d, ok := r.kick.Follow(plan, kickBody)
	if !ok || plan.Prev == plan.Next || plan.Prev.Tick >= r.kickTick || plan.Next.Tick < r.kickTick {
		return
	}
	c := float64(d.Len()) / (refworld.RefSpeed / float64(r.c.sim))
	r.row.KickMax = max(r.row.KickMax, c)
	if c > CorrectionLimit {
		r.row.KickCorrections++
	}
}
