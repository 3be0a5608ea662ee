package renderer_test

import (
	"math"
	"time"

	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/simthread"
)

// timeline stands in for the runtime's planner in the renderer's tests: it
// steps a test world at a fixed rate on simulated time, publishes tick k
// at its tick time k·step as sequence number k+1, and plans frames from
// what is published by the frame time, on a calm machine's timeline (no
// publish jitter, pause or stall). In MotionLerp and MotionHermite a frame
// brackets its render time, the frame time minus a fixed delay of a step
// and 2 ms; in
// MotionExtrapolate it predicts from the newest snapshot, switching basis
// as each arrives, its corrections weighted as the planner weighs them.
// The tests check what the renderer draws against the CPU reference for
// whatever plan it is given, so the plans need only be a planner's kind.
type timeline struct {
	world  *renderer.TestWorld
	step   time.Duration
	delay  time.Duration
	motion renderer.MotionMode
	depth  int                   // the snapshot history the renderer mirrors
	snaps  []*simthread.Snapshot // snaps[k] is tick k's; old ones are dropped
	// MotionExtrapolate: the basis's sequence number (0: none yet), the
	// frame time before the last switch, the last frame's time.
	basis            uint64
	switchAt, lastAt time.Duration
}

// keepTicks is how many snapshots behind the newest a timeline keeps: more
// than any delay its tests plan with.
const keepTicks = 64

// newTimeline returns a timeline of world at rate ticks a second, tick 0
// published, planning frames in motion.
func newTimeline(world *renderer.TestWorld, rate int, motion renderer.MotionMode) *timeline {
	step := time.Second / time.Duration(rate)
	tl := &timeline{world: world, step: step, delay: step + 2*time.Millisecond, motion: motion, depth: simthread.DefaultHistory}
	tl.publish()
	return tl
}

// publish snapshots the world as the next tick.
func (tl *timeline) publish() {
	k := len(tl.snaps)
	if k > 0 {
		tl.world.Step(uint64(k), tl.step.Seconds(), nil)
	}
	at := time.Duration(k) * tl.step
	s := &simthread.Snapshot{Tick: uint64(k), Time: at, Published: at}
	tl.world.Snapshot(s)
	tl.snaps = append(tl.snaps, s)
	if k >= keepTicks {
		tl.snaps[k-keepTicks] = nil
	}
}

// snap returns tick k's snapshot and its sequence number.
func (tl *timeline) snap(k int) (*simthread.Snapshot, uint64) { return tl.snaps[k], uint64(k + 1) }

// plan publishes every tick due by frame and plans the frame displayed
// then.
func (tl *timeline) plan(frame time.Duration) renderer.Plan {
	for time.Duration(len(tl.snaps))*tl.step <= frame {
		tl.publish()
	}
	newest := len(tl.snaps) - 1
	plan := renderer.Plan{Ready: true, Motion: tl.motion, Span: float32(tl.step.Seconds()), NewestTime: time.Duration(newest) * tl.step}
	if tl.motion == renderer.MotionExtrapolate {
		plan.Next, plan.NextSeq = tl.snap(newest)
		plan.Prev, plan.PrevSeq = plan.Next, plan.NextSeq
		plan.Alpha, plan.RenderTime, plan.Reach = 1, frame, 2*tl.step
		plan.Ahead = float32((frame - plan.Next.Time).Seconds())
		if tl.basis != plan.NextSeq {
			if tl.basis != 0 {
				plan.Switched = true
				plan.Prev, plan.PrevSeq = tl.snap(int(tl.basis - 1))
				plan.PrevAhead = float32((frame - plan.Prev.Time).Seconds())
				plan.Carry = blend(tl.lastAt - tl.switchAt)
				tl.switchAt = tl.lastAt
			} else {
				tl.switchAt = frame
			}
			tl.basis = plan.NextSeq
		}
		plan.Blend = blend(frame - tl.switchAt)
		tl.lastAt = frame
		return plan
	}
	plan.Delay = tl.delay
	plan.RenderTime = frame - tl.delay
	k := int(plan.RenderTime / tl.step)
	switch {
	case plan.RenderTime < 0:
		plan.Prev, plan.PrevSeq = tl.snap(0)
		plan.Next, plan.NextSeq = plan.Prev, plan.PrevSeq
		plan.Early = true
	case k >= newest:
		plan.Prev, plan.PrevSeq = tl.snap(newest)
		plan.Next, plan.NextSeq = plan.Prev, plan.PrevSeq
		plan.Alpha, plan.Late = 1, true
	default:
		plan.Prev, plan.PrevSeq = tl.snap(k)
		plan.Next, plan.NextSeq = tl.snap(k + 1)
		plan.Alpha = float32(float64(plan.RenderTime-plan.Prev.Time) / float64(tl.step))
	}
	return plan
}

// blend is the part of a correction left d after the frame it was last
// shown in: exp(−d/τ) with τ a third of the planner's 50 ms correction
// time.
func blend(d time.Duration) float32 {
	return float32(math.Exp(-max(d, 0).Seconds() / (0.05 / 3)))
}
