package interp

import (
	"fmt"
	"math"
	"time"

	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/simthread"
	"github.com/tickframe/tickframe/sync/waitfree"
)

// Delay tuning.
const (
	// DefaultPad is added to the largest publish delay seen: timers and
	// scheduling jitter by a few hundred microseconds more than the window
	// happened to show.
	DefaultPad = 500 * time.Microsecond
	// delayWindow is how long a publish delay counts towards the margin:
	// a spike holds the delay up for 8 s, then it glides down. Under
	// sustained load the spikes come more often than that, so the delay
	// settles at their level instead of falling and rising again (every
	// rise shows: the displayed time stands still while it rises).
	delayWindow  = 8 * time.Second
	delayBuckets = 8
	// riseRate and fallRate bound how fast the delay moves, as a fraction
	// of the time between frames. Rising by a whole frame holds the
	// displayed time still for that frame, never backwards, and reaches a
	// new peak in the fewest frames; falling at 1 % speeds the motion up
	// by 1 %, which nobody can see (docs/ARCHITECTURE.md has the runs
	// behind both).
	riseRate = 1.0
	fallRate = 0.01
	// maxFall caps the fall per frame: every nanosecond the delay falls
	// is a nanosecond of animation error in that frame, and 1 % of a slow
	// display's frame (0.33 ms at 30 Hz) would exceed the 0.25 ms the
	// verifier allows.
	maxFall = 100 * time.Microsecond
	// initialMargin is assumed before any publish has been seen.
	initialMargin = time.Millisecond
)

// Delay is the adaptive render delay: one step plus a margin covering the
// largest publish delay seen in the last delayWindow (8 s), plus a pad. It
// is never below one step and never above its limit (NewDelay). Its zero
// value is not usable; get one from NewDelay or NewFixedDelay.
type Delay struct {
	step, pad, max time.Duration
	fixed          bool

	peaks     [delayBuckets]time.Duration // max publish delay per window bucket
	bucket    int
	bucketEnd time.Duration

	value   time.Duration
	last    time.Duration
	started bool
}

// ParseMotion returns the motion mode named s (see
// renderer.MotionMode.String): what the -motion flags read.
func ParseMotion(s string) (renderer.MotionMode, error) {
	for _, m := range []renderer.MotionMode{renderer.MotionLerp, renderer.MotionHermite, renderer.MotionExtrapolate} {
		if s == m.String() {
			return m, nil
		}
	}
	return renderer.MotionLerp, fmt.Errorf("unknown motion mode %q (want lerp, hermite or extrapolate)", s)
}

// DelayLimit is the bound NewDelay(step, 0) puts on the adaptive delay: 8
// steps, at least 100 ms.
func DelayLimit(step time.Duration) time.Duration { return max(8*step, 100*time.Millisecond) }

// HistoryFor returns how many snapshots a planner's history must hold for
// render times up to limit behind the newest snapshot, when it acquires one
// every acquire (at most one a step, at most one a frame), and two more
// for the bracket. A shorter history clamps frames early, showing the
// oldest snapshot as is, whenever the delay rises past what it reaches:
// for the delay's whole window after a single long stall.
func HistoryFor(limit, acquire time.Duration) int {
	acquire = max(acquire, time.Microsecond)
	return int((limit+acquire-1)/acquire) + 2
}

// NewDelay returns an adaptive delay for a simulation step, bounded by
// limit (0 means DelayLimit(step)).
func NewDelay(step, limit time.Duration) *Delay {
	if limit <= 0 {
		limit = DelayLimit(step)
	}
	limit = max(limit, step)
	return &Delay{step: step, pad: DefaultPad, max: limit, value: min(step+DefaultPad+initialMargin, limit)}
}

// NewFixedDelay returns a delay that stays at d (at least one step).
func NewFixedDelay(step, d time.Duration) *Delay {
	return &Delay{step: step, max: max(d, step), value: max(d, step), fixed: true}
}

// Observe feeds the publish delay of a snapshot the renderer acquired at
// time now: the larger of its own (Published − Time) and its PeakDelay,
// which covers the snapshots published since that the renderer never saw.
func (d *Delay) Observe(now, publishDelay time.Duration) {
	if d.fixed {
		return
	}
	d.roll(now)
	d.peaks[d.bucket] = max(d.peaks[d.bucket], publishDelay)
}

// roll moves the window to now, forgetting buckets older than the window.
func (d *Delay) roll(now time.Duration) {
	const width = delayWindow / delayBuckets
	if d.bucketEnd == 0 {
		d.bucketEnd = now + width
	}
	if now-d.bucketEnd >= delayWindow {
		// No frames for longer than the window (a hidden window, a
		// pause): that says nothing about publish delays, so keep what
		// the window knew instead of starting over from nothing.
		d.bucketEnd = now + width
		return
	}
	for now >= d.bucketEnd {
		d.bucket = (d.bucket + 1) % delayBuckets
		d.peaks[d.bucket] = 0
		d.bucketEnd += width
	}
}

// Target is the delay the current window calls for.
func (d *Delay) Target() time.Duration {
	if d.fixed {
		return d.value
	}
	var peak time.Duration
	for _, p := range d.peaks {
		peak = max(peak, p)
	}
	return min(max(d.step+peak+d.pad, d.step), d.max)
}

// Update moves the delay towards Target for a frame at time now and returns
// it. Successive frames' render times (now − delay) never go backwards.
func (d *Delay) Update(now time.Duration) time.Duration {
	if d.fixed {
		return d.value
	}
	d.roll(now)
	if !d.started {
		d.started = true
		d.last = now
		return d.value
	}
	dt := now - d.last
	d.last = now
	if dt <= 0 {
		return d.value
	}
	target := d.Target()
	switch {
	case target > d.value:
		d.value = min(target, d.value+time.Duration(riseRate*float64(dt)))
	case target < d.value:
		d.value = max(target, d.value-min(time.Duration(fallRate*float64(dt)), maxFall))
	}
	return d.value
}

// Value reports the current delay.
func (d *Delay) Value() time.Duration { return d.value }

// Planner turns frame times into Plans, reading snapshots from the
// simulation's triple buffer. It is the only owner of the render side of
// that buffer: everything else sees snapshots through the Plans it makes.
// It belongs to the render thread.
type Planner struct {
	view     *waitfree.Consumer[simthread.Snapshot]
	delay    *Delay
	newest   uint64
	frames   uint64
	late     uint64
	early    uint64
	paused   uint64
	pausing  bool          // a pause was requested and not yet resumed
	resuming bool          // resumed, waiting for the render time to catch up
	resumeAt time.Duration // when Resume was called
	lead     time.Duration // see SetLead
	hold     bool          // see SetHold
	// The last frame's render time (once rendered): the next frame's is
	// never earlier.
	lastFrame, lastRender time.Duration
	rendered              bool

	motion renderer.MotionMode // see SetMotion
	// Extrapolate mode: the basis's acquire sequence number (0: none yet),
	// the render time it took over at, and the last frame's render time
	// and displayed simulated time in ticks (once haveSim).
	reach     time.Duration // this frame's Plan.Reach
	basisSeq  uint64
	switchAt  time.Duration
	snapped   bool // the last switch came after a render stall: no blend
	lastR     time.Duration
	lastAhead time.Duration
	lastSim   float64
	haveSim   bool
}

// NewPlanner returns a planner reading view with the given delay policy.
func NewPlanner(view *waitfree.Consumer[simthread.Snapshot], delay *Delay) *Planner {
	return &Planner{view: view, delay: delay}
}

// Delay returns the planner's delay policy.
func (p *Planner) Delay() *Delay { return p.delay }

// SetLead tells the planner that frames are planned lead before the
// display time Frame is given (the frame's CPU and GPU work): the render
// time moves back by as much, so that the snapshots it needs have been
// published when the frame is planned. Change it slowly: every change
// shows as animation error in that frame.
func (p *Planner) SetLead(lead time.Duration) { p.lead = max(lead, 0) }

// SetMotion sets how the planned frames move bodies (see
// renderer.MotionMode): MotionLerp, the default, MotionHermite or
// MotionExtrapolate. Set it
// before the first frame: a change later starts the extrapolation afresh
// and shows as a jump.
func (p *Planner) SetMotion(m renderer.MotionMode) {
	p.motion = m
	p.basisSeq, p.haveSim = 0, false
}

// SetHold makes the planner a baseline without interpolation, as a
// textbook fixed-step loop draws: every frame but a paused one shows the
// newest snapshot as is (Prev and Next both, Alpha 1, no clamp), at a
// render time one step behind the frame. Plan.Delay is still the adaptive
// delay's, and pauses are marked as usual.
func (p *Planner) SetHold(on bool) { p.hold = on }

// Motion returns the planner's motion mode.
func (p *Planner) Motion() renderer.MotionMode { return p.motion }

// Depth reports how many snapshots the planner's history holds at most: a
// renderer mirroring them needs no more buffers than this.
func (p *Planner) Depth() int { return p.view.Cap() }

// Pause tells the planner that the simulation was asked to pause: frames
// are marked Paused from now on.
func (p *Planner) Pause() { p.pausing, p.resuming = true, false }

// Resume tells the planner that the simulation was asked to resume at time
// now: frames stay marked Paused until the render time reaches the first
// snapshot published after now (the simulation republishes its tick on
// the shifted timeline when it resumes).
func (p *Planner) Resume(now time.Duration) {
	if p.pausing {
		p.pausing, p.resuming, p.resumeAt = false, true, now
	}
}

// Plan acquires the newest snapshot and plans a frame displayed at
// frameTime. It does not allocate.
//
// In Extrapolate mode the render time is the frame time itself and the
// newest snapshot is the basis. The displayed simulated time never goes
// back: a frame whose prediction would show an earlier time than the
// frame before (the timeline jumped under discarded or clamped time)
// shows the earlier frame's time instead, and a pause freezes it; after
// the resume, frames stay Paused until the prediction has caught up with
// the frozen time.
func (p *Planner) Plan(frameTime time.Duration) renderer.Plan {
	var plan renderer.Plan
	plan.Motion = p.motion
	if p.view.Acquire() {
		plan.Acquired = true
		s := p.view.History(0)
		// PeakDelay covers the publishes this frame did not see.
		p.delay.Observe(frameTime, max(s.PeakDelay, s.Published-s.Time))
		if p.view.Len() > 1 {
			plan.NewTicks = s.Tick - p.newest
		}
		p.newest = s.Tick
	}
	// The adaptive delay keeps learning in Extrapolate mode too, but
	// adds nothing there.
	plan.Delay = p.delay.Update(frameTime) + p.lead
	if p.motion == renderer.MotionExtrapolate {
		plan.Delay = 0
	}
	plan.RenderTime = frameTime - plan.Delay
	// The delay rises by at most the time since the last frame, which
	// holds the render time still; the lead may rise in the same frame
	// (its just-in-time estimate, by up to its own step): together they
	// would move the render time back. It stands still instead, until
	// the frame time has caught up with the new delay and lead. (A frame
	// time earlier than the last one is the caller's to answer for.)
	if p.rendered && frameTime >= p.lastFrame && plan.RenderTime < p.lastRender {
		plan.RenderTime, plan.Delay = p.lastRender, frameTime-p.lastRender
	}
	p.lastFrame, p.lastRender, p.rendered = frameTime, plan.RenderTime, true
	n := p.view.Len()
	if n == 0 {
		return plan
	}
	plan.Ready = true
	p.frames++
	r := plan.RenderTime
	plan.NewestTime = p.view.History(0).Time
	caughtUp := true
	if p.motion == renderer.MotionExtrapolate {
		p.reach = max(MaxAhead*p.delay.step, p.delay.Value()+p.delay.step)
		plan.Reach = p.reach
		caughtUp = p.basis(&plan, n)
	} else {
		p.bracket(&plan, n)
	}
	if step := p.delay.step; step > 0 {
		plan.Span = float32(float64(int64(plan.Next.Tick-plan.Prev.Tick)) * step.Seconds())
	}

	if p.resuming && p.view.History(0).Published >= p.resumeAt && r >= p.firstAfterResume() && caughtUp {
		p.resuming = false
	}
	plan.Paused = p.pausing || p.resuming
	if p.motion == renderer.MotionExtrapolate {
		p.ahead(&plan)
	}
	if plan.Paused {
		p.paused++
		return plan
	}
	if p.hold {
		p.holdNewest(&plan, frameTime)
	}
	switch {
	case plan.Late:
		p.late++
	case plan.Early:
		p.early++
	}
	return plan
}

// holdNewest makes plan show the newest snapshot as is, one step behind
// frameTime (SetHold).
func (p *Planner) holdNewest(plan *renderer.Plan, frameTime time.Duration) {
	newest := p.view.History(0)
	seq := p.view.Acquired()
	plan.Prev, plan.Next, plan.PrevSeq, plan.NextSeq = newest, newest, seq, seq
	plan.Alpha, plan.Late, plan.Early, plan.Span = 1, false, false, 0
	plan.SimTick = float64(newest.Tick)
	plan.RenderTime = frameTime - p.delay.step
}

// bracket picks the plan's pair in Lerp and Hermite modes: the two
// snapshots held whose tick times bracket the render time, or the newest
// (late) or oldest (early) as is.
func (p *Planner) bracket(plan *renderer.Plan, n int) {
	r := plan.RenderTime
	prev, next := 0, 0 // history indices
	switch {
	case n == 1:
		t0 := p.view.History(0).Time
		plan.Alpha = 1
		plan.Late, plan.Early = r > t0, r < t0
	case r >= p.view.History(0).Time:
		prev, next, plan.Alpha = 1, 0, 1
		if r > p.view.History(0).Time {
			plan.Late = true
		}
	case r < p.view.History(n-1).Time:
		prev, next, plan.Alpha, plan.Early = n-1, n-2, 0, true
	default:
		// Newest first: the first snapshot at or before r opens the bracket.
		i := 1
		for p.view.History(i).Time > r {
			i++
		}
		a, _ := Alpha(r, p.view.History(i).Time, p.view.History(i-1).Time)
		prev, next, plan.Alpha = i, i-1, float32(a)
	}
	seq := p.view.Acquired()
	plan.Prev, plan.Next = p.view.History(prev), p.view.History(next)
	plan.PrevSeq, plan.NextSeq = seq-uint64(prev), seq-uint64(next)
	ta, tb := plan.Prev.Tick, plan.Next.Tick
	plan.SimTick = float64(ta) + float64(plan.Alpha)*(float64(tb)-float64(ta))
}

// basis picks the plan's snapshots in Extrapolate mode: Next is the
// newest, the basis; when it is new this frame, Prev is the old basis,
// else Next too. The old basis is the last frame's newest snapshot, which
// the history always holds, as the planner acquires at most one snapshot
// a frame (a renderer that skips plans blends from the planner's old
// basis all the same). After a gap of more than CorrectionTime since the
// last frame (the render thread stalled), there is no recent frame to be
// continuous with: the switch snaps, dropping the offsets (Carry 0) and
// showing none until the next switch (Blend 0). So it does, with nothing
// to correct (Prev is Next), when the timeline jumped between the two
// bases (a pause, discarded or clamped time). It sets the correction's
// weights and reports whether the prediction from Next, undisturbed, has
// caught up with the last frame's displayed time (which ends a resume).
func (p *Planner) basis(plan *renderer.Plan, n int) (caughtUp bool) {
	seq := p.view.Acquired()
	next := p.view.History(0)
	plan.Next, plan.NextSeq = next, seq
	plan.Prev, plan.PrevSeq = next, seq
	plan.Alpha = 1
	r := plan.RenderTime
	if seq != p.basisSeq {
		plan.Switched = true
		if p.basisSeq != 0 {
			if age := seq - p.basisSeq; age < uint64(n) { // always 1
				plan.Prev, plan.PrevSeq = p.view.History(int(age)), p.basisSeq
			}
		}
		// Across a jump of the timeline (a pause, discarded or clamped
		// time) the old basis predicts nothing about the new: snap, with
		// nothing to correct.
		old := plan.Prev
		jumped := false
		if gap := (next.Time - old.Time) - time.Duration(int64(next.Tick-old.Tick))*p.delay.step; gap > time.Microsecond || gap < -time.Microsecond {
			plan.Prev, plan.PrevSeq, jumped = next, seq, true
		}
		// The offsets left, unless this switch snaps or the last one did
		// (its offsets were never shown).
		was := p.snapped
		p.snapped = jumped || (p.haveSim && r-p.lastR > CorrectionTime)
		// The blend runs in display time from the last frame shown: the
		// offsets as that frame showed them carry over, and this frame
		// shows the new ones as decayed by the frame interval.
		from := r
		if p.haveSim {
			from = p.lastR
		}
		if p.basisSeq != 0 && !p.snapped && !was {
			plan.Carry = decay(from - p.switchAt)
		}
		p.basisSeq, p.switchAt = seq, from
	}
	if !p.snapped {
		plan.Blend = decay(r - p.switchAt)
	}
	if !p.haveSim || p.delay.step <= 0 {
		return true
	}
	a := min(max(r-next.Time, 0), p.reach)
	return float64(next.Tick)+float64(a)/float64(p.delay.step) >= p.lastSim-1e-9
}

// ahead sets how far past Next (and, at a switch, Prev) the frame
// predicts, its clamp and its displayed simulated time, in Extrapolate
// mode.
func (p *Planner) ahead(plan *renderer.Plan) {
	step := p.delay.step
	if step <= 0 {
		plan.SimTick = float64(plan.Next.Tick)
		return
	}
	r := plan.RenderTime
	a, raised := p.aheadOf(plan.Next, r, plan.Paused)
	plan.Ahead, plan.PrevAhead = float32(a.Seconds()), float32(a.Seconds())
	if plan.Prev != plan.Next {
		b, _ := p.aheadOf(plan.Prev, r, true)
		if !plan.Paused {
			// The old basis as the last frame showed it, moved on to
			// this frame's time: past the reach when the frames are
			// further apart than that (the bound holds the newest
			// snapshot, not the one the last frame predicted from).
			b = max(min(r-plan.Prev.Time, p.lastAhead+(r-p.lastR)), 0)
		}
		plan.PrevAhead = float32(b.Seconds())
	}
	switch raw := r - plan.Next.Time; {
	case raised:
	case raw > p.reach:
		plan.Late = true // held: the next snapshot is overdue
	case raw < 0:
		plan.Early = true // the frame shows a later time than its own
	}
	plan.SimTick = float64(plan.Next.Tick) + float64(a)/float64(step)
	if raised && math.Abs(plan.SimTick-p.lastSim) < 1e-6 {
		plan.SimTick = p.lastSim // the nanosecond's rounding of a
	}
	p.lastR, p.lastAhead, p.lastSim, p.haveSim = r, a, plan.SimTick, true
}

// aheadOf returns how far past s a frame at render time r predicts: r −
// s.Time within [0, reach], or, when that would show an earlier
// simulated time than the last frame did or freeze is set (a pause), what
// shows the last frame's time (raised; negative when s is later than that
// time, within the reach; past the reach when the reach shrank under a
// held pose).
func (p *Planner) aheadOf(s *simthread.Snapshot, r time.Duration, freeze bool) (a time.Duration, raised bool) {
	step := p.delay.step
	bound := p.reach
	a = min(max(r-s.Time, 0), bound)
	if !p.haveSim {
		return a, false
	}
	// The last frame's time, as seen from s.
	last := time.Duration(math.Ceil((p.lastSim - float64(s.Tick)) * float64(step)))
	if freeze || float64(s.Tick)+float64(a)/float64(step) < p.lastSim {
		// Frozen on a snapshot published after the pause request, the
		// prediction runs back from it; held at a reach that shrank
		// since (the delay falls), it stays where it was.
		return max(last, -bound), true
	}
	return a, false
}

// firstAfterResume returns the tick time of the oldest snapshot held that
// was published after the resume.
func (p *Planner) firstAfterResume() time.Duration {
	t := p.view.History(0).Time
	for i := 1; i < p.view.Len(); i++ {
		s := p.view.History(i)
		if s.Published < p.resumeAt {
			break
		}
		t = s.Time
	}
	return t
}

// PlannerStats counts the planned frames, the clamped ones and the paused
// ones.
type PlannerStats struct {
	Frames      uint64 // frames planned with at least one snapshot held
	Late, Early uint64 // frames clamped for each reason (paused ones aside); see renderer.Plan's Late and Early
	Paused      uint64 // frames marked Paused
}

// Stats returns the counts since the planner was made.
func (p *Planner) Stats() PlannerStats {
	return PlannerStats{Frames: p.frames, Late: p.late, Early: p.early, Paused: p.paused}
}
