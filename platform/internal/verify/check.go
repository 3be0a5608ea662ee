package verify

import (
	"fmt"
	"strings"
	"time"

	"github.com/tickframe/tickframe/platform/internal/interp"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/simthread"
)

// MaxClamped is the share of a row's frames after the warm-up (paused
// ones aside) that may be clamped, late or early, on a row within its
// lateness budget: a frame clamped late shows the newest snapshot as is
// and stops the motion for a moment, so clamps may be as rare as the p99
// bounds allow errors, no more.
const MaxClamped = 0.01

// budget returns the largest wake lateness a row's timing covers: the
// render delay's limit less a step, the pad and the steps of one wake
// (the delay must cover the first tick's wait for its publish); less than
// MaxSteps steps, beyond which the Sim discards ticks; and less than
// MaxDelta less a step, beyond which it clamps time.
func budget(row *Row) time.Duration {
	step := simthread.Timing{Rate: row.Sim}.Step()
	steps := time.Duration(max(row.MaxSteps, 1))
	return min(row.DelayLimit-step-interp.DefaultPad-steps*row.StepCost,
		steps*step-1,
		simthread.DefaultMaxDelta-step)
}

// steadyKinds are the display patterns whose maximum errors are bounded,
// not only their p99, under a calm lateness: nothing but the display's own
// irregularity disturbs the planner there.
var steadyKinds = map[Kind]bool{Steady: true, Jitter: true, VRR: true, Intervals: true, Pause: true}

// evaluate runs a row's checks on its measurements and sets Pass. It is a
// pure function of the row, so the tests can feed it doctored rows.
//
// Every row checks:
//   - hash: the world's hash after the hashed tick, and at every
//     checkpoint before it, equals the reference's (the naive baseline is
//     expected to fail it);
//   - ticks: ticks run + ticks discarded = ⌊(t − clamped − paused) × rate⌋
//     exactly at the last wake t, and the ticks pending at the end are at
//     most those the missing wake's lateness and the last wake's steps
//     explain: 1 + ⌊(EndLate + EndSpan) / step⌋ (not for the naive loop,
//     which has no scheduler);
//   - steps: no wake ran more than MaxSteps steps;
//   - backwards: the displayed simulated time never went backwards;
//   - counted: every frame after the warm-up was measured or counted
//     (frames = measured + skipped + paused), and the planner's own late,
//     early and paused counts equal what its plans said.
//
// Then by pattern:
//   - overload: no error bound, since a simulation that cannot keep up
//     cannot show smooth motion. Instead the policy must be visible and
//     bounded: the time the simulation could not pay for counted as
//     discarded ticks or clamped time (more than zero), with the hash and
//     the tick accounting still exact.
//   - pause: the time the Sim spent paused must be the hidden time to
//     within what noticing and resuming cost: at most one step plus the
//     wake lateness plus MaxSteps step costs shorter, at most the
//     lateness longer. The frames after the show that the planner marks
//     Paused (their bracket still reaches back across the pause) must end
//     within the render delay, a step, the lateness and a frame after the
//     show, and no unpaused frame's bracket may reach back across it.
//
// A row whose wakes all came within its lateness budget (every calm row,
// and a stress row whose tail the delay's limit and the step cap cover)
// then checks the bounds:
//   - measured: at least MinMeasured of its frames (paused ones aside)
//     measured;
//   - clamps: at most MaxClamped of them clamped, late or early;
//   - pos, anim: p99 position error ≤ PosErrLimit (or PosErrMotion of
//     motion at rates above 120 Hz), p99 animation error ≤ AnimErrLimit;
//     frames whose bracket spans several ticks (coarse: a late wake ran
//     them at once and published the last, and lerp cuts the chord of a
//     curved path there) are counted, and beyond the budget they are part
//     of the loss;
//   - calm steady, jitter, vrr, intervals and pause displays: the maximum
//     errors within the same bounds (pos max, anim max), so that a rare
//     lie (a wrong pair once a second) cannot hide under the p99;
//   - calm rows with stalls (hitch): recovery: after each stall, every
//     frame but the first RecoveryFrames until the next stall within the
//     bounds and unclamped; settled: the maximum errors outside those
//     first frames within the bounds (also before the first stall).
//
// A row beyond its budget has no error bound: its loss (late and early
// clamps, skipped frames, discarded ticks, clamped time) must be counted,
// which the counted and ticks checks assert, and visible: errors beyond the
// bounds with no loss counted fail the loss check.
func evaluate(row *Row) {
	row.Checks = row.Checks[:0]
	c := &checker{row: row, step: simthread.Timing{Rate: row.Sim}.Step(),
		late: time.Duration(row.Lateness.Max * 1e6), extrapolate: row.Motion == renderer.MotionExtrapolate.String()}
	defer c.setPass()
	if row.Err != "" {
		c.add("run", false, "%s", row.Err)
		return
	}
	c.accounting()
	checkBounce(row, c.add)
	if c.extrapolate {
		c.add("delay", row.DelayMax == 0, "render delay at most %v after the warm-up (extrapolate adds none)", row.DelayMax)
	}
	if row.Kind == Overload {
		// Which policy drops the time depends on the rate: 8 steps of
		// 1.25 × 33 ms outlast MaxDelta (250 ms), so at 30 Hz the clamp
		// drops it before the step cap has to.
		c.add("dropped", row.DiscardedTicks > 0 || row.Clamped > 0, "%d ticks (%v) discarded, %v clamped",
			row.DiscardedTicks, row.Discarded, row.Clamped)
		return
	}
	if row.Kind == Pause && row.Mode != Naive {
		c.pause()
	}
	if !c.bounds() {
		return
	}
	c.motion()
	if row.LateKind == Calm {
		c.calm()
	}
}

// checker adds a row's checks, in the order the row lists them.
type checker struct {
	row         *Row
	step        time.Duration // the simulation's
	late        time.Duration // the latest wake
	extrapolate bool
}

func (c *checker) add(name string, ok bool, format string, args ...any) {
	c.row.Checks = append(c.row.Checks, Check{Name: name, OK: ok, Detail: fmt.Sprintf(format, args...)})
}

// setPass sets Pass: every check passed.
func (c *checker) setPass() {
	c.row.Pass = true
	for _, ch := range c.row.Checks {
		c.row.Pass = c.row.Pass && ch.OK
	}
}

// accounting checks what every row checks: hash, ticks and steps (not
// for the naive loop), backwards and counted.
func (c *checker) accounting() {
	row := c.row
	switch {
	case !row.Hashed:
		c.add("hash", false, "the row never reached tick %d", row.HashTick)
	case row.FirstDiff != 0 && row.FirstDiff != row.HashTick:
		c.add("hash", false, "differs from the reference from tick %d on (after tick %d: %016x, reference %016x)",
			row.FirstDiff, row.HashTick, row.Hash, row.RefHash)
	default:
		c.add("hash", row.Hash == row.RefHash && row.FirstDiff == 0, "after tick %d: %016x, reference %016x (%d checkpoints compared)",
			row.HashTick, row.Hash, row.RefHash, row.Checkpoints)
	}
	if row.Mode != Naive {
		got := row.Ticks + row.DiscardedTicks
		want := ticksIn(row.LastWake-row.Clamped-row.Paused, row.Sim)
		// After the last wake, the ticks due before the wake that did
		// not come: the one its deadline stood for and those its
		// lateness and the last wake's steps let pass.
		most := 1 + int64((row.EndLate+row.EndSpan)/c.step)
		c.add("ticks", got == want && row.Pending >= 0 && row.Pending <= most,
			"ticks %d + discarded %d = %d; ⌊(last wake %v − clamped %v − paused %v) × %d Hz⌋ = %d; %d pending at the end (at most %d)",
			row.Ticks, row.DiscardedTicks, got, row.LastWake, row.Clamped, row.Paused, row.Sim, want, row.Pending, most)
		c.add("steps", row.MostStepsPerWake <= row.MaxSteps,
			"at most %d steps in one wake (cap %d)", row.MostStepsPerWake, row.MaxSteps)
	}
	c.add("backwards", row.Backwards == 0, "%d frames showed an earlier simulated time than the frame before", row.Backwards)
	seen := row.PosSamples + row.Skipped + row.PausedFrames
	c.add("counted", row.Counted && uint64(row.Frames) == seen,
		"%d frames = %d measured + %d skipped + %d paused; %s", row.Frames, row.PosSamples, row.Skipped, row.PausedFrames, row.CountDetail)
}

// pause checks a pause row: the time paused against the time hidden, and
// the frames held after the show.
func (c *checker) pause() {
	row := c.row
	p, err := ParsePattern(row.Pattern)
	if err != nil {
		c.add("paused", false, "%v", err)
		return
	}
	lo := p.Hidden - c.step - c.late - time.Duration(row.MaxSteps)*row.StepCost
	hi := p.Hidden + c.late
	c.add("paused", row.Paused >= lo && row.Paused <= hi,
		"paused %v for %v hidden (want %v to %v)", row.Paused, p.Hidden, lo, hi)
	c.add("resume", row.TransitionBound > 0 && row.TransitionSpan <= row.TransitionBound && row.Crossed == 0,
		"%d frames held the pause for %v after the show (at most %v); %d unpaused frames reached back across it",
		row.Transition, row.TransitionSpan, row.TransitionBound, row.Crossed)
}

// bounds checks the error bounds of a row within its lateness budget and
// reports true; beyond it, it checks that the loss was counted and
// reports false: no other bound holds there.
func (c *checker) bounds() bool {
	row := c.row
	posLimit := posLimit(row.Sim)
	row.LateBudget = budget(row)
	row.Within = row.Mode == Naive || c.late <= row.LateBudget
	frames := uint64(row.Frames) - row.PausedFrames
	lost := row.Late + row.Early + row.Skipped + row.DiscardedTicks + row.Coarse + row.Rising
	if !row.Within {
		// (Extrapolate's position error is its prediction's, which grows
		// with the lateness: shown, not a loss to count.)
		over := (row.PosErr.P99 > posLimit && !c.extrapolate) || row.AnimErr.P99 > AnimErrLimit
		c.add("loss", !over || lost > 0 || row.Clamped > 0,
			"wakes up to %v late, beyond the %v budget: %d late and %d early of %d frames, %d coarse, %d skipped, %d ticks discarded, %v clamped",
			c.late.Round(time.Microsecond), row.LateBudget.Round(time.Microsecond), row.Late, row.Early, frames, row.Coarse, row.Skipped, row.DiscardedTicks, row.Clamped)
		return false
	}
	c.add("measured", frames > 0 && float64(row.PosSamples) >= MinMeasured*float64(frames),
		"%d of %d frames measured (at least %g%%)", row.PosSamples, frames, 100*MinMeasured)
	if row.Mode != Naive {
		c.add("clamps", float64(row.Late+row.Early) <= MaxClamped*float64(frames),
			"%d late and %d early of %d frames (at most %g%%)", row.Late, row.Early, frames, 100*MaxClamped)
	}
	if row.LateKind == Calm || row.Mode == Naive {
		c.add("pos", row.PosErr.P99 <= posLimit, "p99 position error %.4f ticks (limit %.3g)", row.PosErr.P99, posLimit)
		c.add("anim", row.AnimErr.P99 <= AnimErrLimit, "p99 animation error %.3f ms (limit %g)", row.AnimErr.P99, AnimErrLimit)
		return true
	}
	// Under stress, the frames the lateness itself shaped are counted
	// (clamped above, coarse and rising here) and bounded in number; the
	// bounds hold on all the others.
	c.add("adapt", float64(row.Rising) <= MaxClamped*float64(frames) && float64(row.Steady) >= MinSteady*float64(frames),
		"%d frames of %d held while the delay rose (at most %g%%); %d steady (at least %g%%), %d of them coarse (across ticks a late wake ran at once)",
		row.Rising, frames, 100*MaxClamped, row.Steady, 100*MinSteady, row.Coarse)
	if !c.extrapolate {
		// Extrapolate predicts as far as the lateness makes it: its
		// error under stress is shown, not bounded.
		c.add("pos", row.PosSteady.P99 <= posLimit, "p99 position error %.4f ticks on the steady frames, beyond the chord on coarse ones (limit %.3g; all frames %.4f)",
			row.PosSteady.P99, posLimit, row.PosErr.P99)
	}
	c.add("anim", row.AnimSteady.P99 <= AnimErrLimit, "p99 animation error %.3f ms on the steady frames (limit %g; all frames %.3f)",
		row.AnimSteady.P99, AnimErrLimit, row.AnimErr.P99)
	return true
}

func (c *checker) spin() {
	row := c.row
	c.add("spin", row.Spins > 0 && row.WrongWay == 0, "%d of %d frames turned the spinner the wrong way (p99 orientation error %.3g°)",
		row.WrongWay, row.Spins, row.RotErr.P99)
}

// motion checks the motion modes' own guarantees: hermite's spinner, and
// extrapolate's kick.
func (c *checker) motion() {
	row := c.row
	if row.RotSamples > 0 && row.Motion == renderer.MotionHermite.String() {
		c.spin()
	}
	if row.Kicked {
		c.add("kick", row.KickCorrections > 0,
			"%d corrections of the kicked body beyond %g tick from the kick on (counted, not bounded), the largest %.3f ticks",
			row.KickCorrections, CorrectionLimit, row.KickMax)
	}
}

// calm checks what only a calm lateness bounds: extrapolate's spinner and
// corrections, the maximum errors of steady displays, the recovery from
// stalls.
func (c *checker) calm() {
	row := c.row
	posLimit := posLimit(row.Sim)
	if c.extrapolate {
		// Under stress the held frames (late) and the corrections after
		// them, which can be half a turn of the spinner, are the loss.
		if row.RotSamples > 0 {
			c.spin()
		}
		if row.Sim <= MotionHz {
			c.add("correction", row.Corrections > 0 && row.Correction.P99 <= CorrectionLimit,
				"p99 correction %.4f ticks over %d switches of basis (limit %g)", row.Correction.P99, row.Corrections, CorrectionLimit)
		}
	}
	// A panel's steady and jittery costs never outrun the policy's
	// prediction once its window has seen them; heavy-tailed ones do.
	if steadyKinds[row.Kind] || row.Kind == Panel && !strings.HasSuffix(row.Pattern, ":"+PanelHeavy) {
		c.add("pos max", row.PosErr.Max <= posLimit, "largest position error %.4f ticks (limit %.3g)", row.PosErr.Max, posLimit)
		c.add("anim max", row.AnimErr.Max <= AnimErrLimit, "largest animation error %.3f ms (limit %g)", row.AnimErr.Max, AnimErrLimit)
	}
	if row.Stalls > 0 {
		c.add("recovery", row.Recovery <= RecoveryFrames,
			"%d stalls; the last frame out of bounds after one was its frame %d (at most %d)", row.Stalls, row.Recovery, RecoveryFrames)
		c.add("settled", row.SettledPos <= posLimit && row.SettledAnim <= AnimErrLimit,
			"largest errors but in the first %d frames after a stall: %.4f ticks, %.3f ms (limits %.3g, %g)",
			RecoveryFrames, row.SettledPos, row.SettledAnim, posLimit, AnimErrLimit)
	}
}

// failedNames lists the names of the row's failed checks.
func failedNames(row *Row) string {
	var names []string
	for _, c := range row.Checks {
		if !c.OK {
			names = append(names, c.Name)
		}
	}
	return strings.Join(names, ",")
}
