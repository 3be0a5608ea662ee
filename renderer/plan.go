package renderer

import (
	"time"

	"github.com/tickframe/tickframe/simthread"
)

// Plan is what to draw in one frame: the two snapshots whose tick times
// bracket the render time, and how far between them. It is the only view of
// the snapshot history the renderer, the meter and the statistics get.
type Plan struct {
	// Prev and Next are the bracketing snapshots, Next the newer (the same
	// snapshot when only one is held or the render time lies outside the
	// history). Valid only when Ready, and only until the planner's next
	// plan: they belong to the snapshot history, which rotates.
	Prev, Next *simthread.Snapshot
	// PrevSeq and NextSeq are Prev's and Next's acquire sequence numbers:
	// the n-th snapshot the planner acquired has sequence number n (from
	// 1). A renderer that mirrors snapshots in GPU buffers tags them with
	// these, and uploads whichever the frame needs and it does not hold.
	PrevSeq, NextSeq uint64
	// Alpha interpolates from Prev (0) to Next (1); 1 in Extrapolate
	// mode.
	Alpha float32
	// Motion is the planner's motion mode, which the renderer and the
	// meter follow (see MotionMode).
	Motion MotionMode
	// Span is the simulated time from Prev to Next in seconds, (Next.Tick
	// − Prev.Tick) steps: Hermite scales the velocities by it. It is not
	// Next.Time − Prev.Time, which also counts the time of a pause or of
	// discarded ticks between them, when the bodies did not move.
	Span float32
	// Ahead is, in Extrapolate mode, how far past Next the frame predicts,
	// in seconds: from 0 up to Reach (negative only in a pause, frozen on
	// a snapshot that came after the pause request). PrevAhead
	// is, at a switch, how far past Prev (the old basis) the last frame
	// predicted, moved on by the time since: what the old basis would
	// show now.
	Ahead, PrevAhead float32
	// Reach is, in Extrapolate mode, how far past Next a frame may
	// predict before it holds (the planner's MaxAhead).
	Reach time.Duration
	// Switched reports, in Extrapolate mode, that Next became the basis
	// this frame. Prev is then the old basis (the last frame's Next), and
	// the renderer folds the correction, what Prev predicts minus what
	// Next does, into each body's offset, with the offset left over
	// weighted by Carry. Without a switch, Prev is Next. A switch after a
	// render stall longer than the correction time (50 ms) snaps: nothing recent to be
	// continuous with, the offsets are dropped (Carry 0) and none is
	// shown until the next switch (Blend 0). So does a switch across a
	// jump of the timeline (a pause, discarded or clamped time), with
	// Prev = Next: the old basis says nothing about the new.
	Switched bool
	// Carry is, at a switch, the part of the offsets the last frame showed
	// (0 at the first basis); Blend is the part of the offsets the frame
	// shows, decaying with time constant a third of the correction time from the last
	// frame before the switch, so that a switch frame shows a correction
	// as decayed by the time since that frame (0 after a snap). See
	// Correction.
	Carry, Blend float32
	// Late and Early say why Alpha was clamped, if it was. Late: the
	// render time is past the newest snapshot (the simulation has not
	// published the next one yet; in Extrapolate mode, the prediction
	// reached Reach and holds), and the newest is shown as is. Early: the
	// render time is before the oldest snapshot held (the delay is longer
	// than the history covers), and the oldest is shown as is. The
	// renderer draws the plan either way; the meter and the statistics
	// count them.
	Late, Early bool
	// RenderTime is the frame time minus Delay, which is the adaptive
	// delay plus the planner's lead; in Extrapolate mode the
	// delay is 0 and the render time is the frame time.
	RenderTime, Delay time.Duration
	// SimTick is the displayed simulation time in ticks:
	// Prev.Tick + Alpha·(Next.Tick − Prev.Tick), or in Extrapolate mode
	// Next.Tick + Ahead in ticks.
	SimTick float64
	// NewestTime is the tick time of the newest snapshot held.
	NewestTime time.Duration
	// NewTicks is how many ticks the newest snapshot advanced since the
	// last frame (the "ticks per frame" that beats at 0/2 in naive loops).
	NewTicks uint64
	// Acquired reports that a snapshot arrived since the last frame.
	Acquired bool
	// Paused marks a frame of a pause: from the pause request until the
	// render time has passed the first snapshot published after the
	// resume. Such a frame shows the frozen pose; it has no motion to
	// measure, so meters count it instead.
	Paused bool
	// Ready is false until the first snapshot arrives.
	Ready bool
}
