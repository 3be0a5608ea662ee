package verify

import (
	"fmt"
	"strings"
	"time"

	"github.com/tickframe/tickframe/simthread"
)

// evaluate runs a row's checks on its measurements and sets Pass. It is a
// pure function of the row, so the tests can
// feed it doctored rows.
//
// Every row checks:
//   - hash: the world's hash after the hashed tick, and at every
//     checkpoint before it, equals the reference's (the naive baseline is
//     expected to fail it);
//   - ticks: ticks run + ticks discarded = ⌊(t − clamped − paused) × rate⌋
//     exactly at the last wake t, and at most one tick is pending at the
//     end (not for the naive loop, which has no scheduler);
//   - steps: no wake ran more than MaxSteps steps;
//   - backwards: the displayed simulated time never went backwards.
//
// Then by pattern:
//   - steady, jitter, vrr, intervals, hitch: p99 position error ≤
//     PosErrLimit and p99 animation error ≤ AnimErrLimit. A hitch is the
//     render thread stalling while the simulation runs on, so the frame
//     after it must still show the right time: no relaxed bound.
//   - pause: the same bounds over the frames that have a truth, and two
//     checks of their own. The frames whose bracket still holds a snapshot
//     from before the pause lie across it and are not measured (see
//     Row.Transition); they must end within the render delay, a step, the
//     wake lateness and a frame after the show. And the time the Sim spent
//     paused must be the hidden time to within what noticing and resuming
//     cost: at most one step plus the wake lateness plus MaxSteps step
//     costs shorter, at most the wake lateness longer.
//   - overload: no error bound, since a simulation that cannot keep up
//     cannot show smooth motion. Instead the policy must be visible and
//     bounded: the time the simulation could not pay for counted as
//     discarded ticks or clamped time (more than zero) and the steps per
//     wake capped, with the hash and the tick accounting still exact.
func evaluate(row *Row) {
	row.Checks = row.Checks[:0]
	add := func(name string, ok bool, format string, args ...any) {
		row.Checks = append(row.Checks, Check{Name: name, OK: ok, Detail: fmt.Sprintf(format, args...)})
	}
	defer func() {
		row.Pass = true
		for _, c := range row.Checks {
			row.Pass = row.Pass && c.OK
		}
	}()
	if row.Err != "" {
		add("run", false, "%s", row.Err)
		return
	}

	switch {
	case !row.Hashed:
		add("hash", false, "the row never reached tick %d", row.HashTick)
	case row.FirstDiff != 0 && row.FirstDiff != row.HashTick:
		add("hash", false, "differs from the reference from tick %d on (after tick %d: %016x, reference %016x)",
			row.FirstDiff, row.HashTick, row.Hash, row.RefHash)
	default:
		add("hash", row.Hash == row.RefHash && row.FirstDiff == 0, "after tick %d: %016x, reference %016x (%d checkpoints compared)",
			row.HashTick, row.Hash, row.RefHash, row.Checkpoints)
	}

	step := simthread.Timing{Rate: row.Sim}.Step()
	if row.Mode != Naive {
		got := row.Ticks + row.DiscardedTicks
		want := ticksIn(row.LastWake-row.Clamped-row.Paused, row.Sim)
		// After the last wake at most the tick it left due can come due
		// before the end, unless the last wake's steps outlast a tick.
		pendingOK := row.Pending >= 0 && (row.Pending <= 1 || row.StepCost >= step)
		add("ticks", got == want && pendingOK,
			"ticks %d + discarded %d = %d; ⌊(last wake %v − clamped %v − paused %v) × %d Hz⌋ = %d; %d pending at the end",
			row.Ticks, row.DiscardedTicks, got, row.LastWake, row.Clamped, row.Paused, row.Sim, want, row.Pending)
		add("steps", row.MostStepsPerWake <= row.MaxSteps,
			"at most %d steps in one wake (cap %d)", row.MostStepsPerWake, row.MaxSteps)
	}

	add("backwards", row.Backwards == 0, "%d frames showed an earlier simulated time than the frame before", row.Backwards)

	switch row.Kind {
	case Overload:
		// Which policy drops the time depends on the rate: 8 steps of
		// 1.25 × 33 ms outlast MaxDelta (250 ms), so at 30 Hz the clamp
		// drops it before the step cap has to.
		add("dropped", row.DiscardedTicks > 0 || row.Clamped > 0, "%d ticks (%v) discarded, %v clamped",
			row.DiscardedTicks, row.Discarded, row.Clamped)
		return
	case Pause:
		if row.Mode != Naive {
			p, err := ParsePattern(row.Pattern)
			if err != nil {
				add("paused", false, "%v", err)
				break
			}
			lo := p.Hidden - step - maxLateness - time.Duration(row.MaxSteps)*row.StepCost
			hi := p.Hidden + maxLateness
			add("paused", row.Paused >= lo && row.Paused <= hi,
				"paused %v for %v hidden (want %v to %v)", row.Paused, p.Hidden, lo, hi)
			add("resume", row.TransitionBound > 0 && row.TransitionSpan <= row.TransitionBound,
				"%d frames in %v after the show before the bracket left the pause (at most %v)",
				row.Transition, row.TransitionSpan, row.TransitionBound)
		}
	}
	add("frames", row.PosSamples > 0, "%d frames measured, %d position samples", row.Frames, row.PosSamples)
	add("pos", row.PosErr.P99 <= PosErrLimit, "p99 position error %.4f ticks (limit %g)", row.PosErr.P99, PosErrLimit)
	add("anim", row.AnimErr.P99 <= AnimErrLimit, "p99 animation error %.3f ms (limit %g)", row.AnimErr.P99, AnimErrLimit)
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
