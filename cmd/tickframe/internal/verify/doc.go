// Package verify is the engine of `tickframe verify`: it runs the real
// simulation scheduler (simthread.Sim), the real render planner, adaptive
// render delay and interpolation (renderer/interp) and the real reference
// world (simthread/refworld) against a virtual clock and virtual displays,
// with no GL, no goroutine per row and no sleeping, and checks what the
// two-clock design promises.
//
// Each row of the matrix is a discrete-event simulation on one goroutine.
// The Sim is driven through Sim.Wake on a simthread.VirtualClock: it wakes
// at each deadline plus a random lateness of 0 to 2 ms, and each world step
// advances the clock by the step cost, so snapshots are published after
// their nominal tick time, as on a real machine. Display frames that fall
// inside a step are rendered before the step's result exists. Each frame is
// planned by an interp.Planner over the Sim's snapshots and measured by an
// interp.Meter that follows the reference body, whose true path is known.
//
// For every row that is not a baseline, verify guarantees that when it
// reports a pass:
//
//   - the world's hash at a fixed tick, and at about ten checkpoints per
//     simulated second before it, equals that of a reference world stepped
//     directly with the same scripted inputs, so the simulation is
//     deterministic whatever the display does;
//   - ticks run plus ticks discarded by the overload policy equal the
//     elapsed time, less the clamped and paused time, in whole steps;
//   - no wake ran more than MaxSteps steps;
//   - the displayed simulated time never went backwards;
//   - the p99 position error is at most PosErrLimit ticks and the p99
//     animation error at most AnimErrLimit ms, on every display pattern but
//     overload, whose lost time must be counted instead;
//   - after a hidden window, the Sim was paused for the hidden time and the
//     renderer was back on the resumed timeline within the render delay, a
//     step, the wake lateness and a frame.
//
// The statistics leave out the first second of each row, while the
// adaptive render delay converges. The notes under the table spell out each
// check and the bound of each display pattern.
//
// Two baselines run on a few displays for comparison and never fail a run:
// fixed step without interpolation, and the naive variable-step loop.
//
// Results depend only on the Options: the same options give the same
// rows, whatever the machine's speed or the number of workers.
package verify
