// Package verify is the engine of `tickframe verify`: it runs the real
// simulation scheduler (sim.Sim), the real render planner, adaptive
// render delay and interpolation (package interp) and the real reference
// world (platform/internal/refworld) against a virtual clock and virtual displays,
// with no GL and no sleeping, and checks what the two-clock design
// promises.
//
// Each row of the matrix is a simulation rate, a display pattern and a
// lateness pattern, run as a discrete-event simulation. The Sim wakes at
// each deadline plus a random lateness: calm, up to 2 ms; under stress, a
// lognormal with a median of 15 ms and a p99 of 40 ms (heavy: 100 ms), as
// measured with every core busy, while the render thread stalls for 10 to
// 20 ms about once a second and misses the frames in between. Each world
// step advances the clock by the step cost, so snapshots are published
// after their nominal tick time, as on a real machine, and display frames
// that fall inside a step are rendered before the step's result exists.
// Each frame is planned by an interp.Planner over the Sim's snapshots and
// measured by an interp.Meter that follows the reference body, whose true
// path is known, and refworld's spinner, whose true orientation is.
// Every interpolated row runs in each motion mode (renderer.MotionMode): lerp,
// the baseline of the other two; hermite, with the bodies' velocities; and
// extrapolate, which renders at the frame time itself and blends its
// corrections in. Most rows drive the Sim through Sim.Wake on the row's own
// goroutine; a few run it on a goroutine of its own through Sim.Run, as
// the app does, sleeping on a sim.VirtualClock that the row moves
// only once the Sim sleeps (VirtualClock.WaitSleepers), and must match the
// Wake-driven row exactly.
//
// For every row that is not a baseline, verify guarantees that when it
// reports a pass:
//
//   - the world's hash at a fixed tick, and at about ten checkpoints per
//     simulated second before it, equals that of a reference world stepped
//     directly with the same scripted inputs, so the simulation is
//     deterministic whatever the display and the lateness do;
//   - ticks run plus ticks discarded by the overload policy equal the
//     elapsed time, less the clamped and paused time, in whole steps;
//   - no wake ran more than MaxSteps steps;
//   - the displayed simulated time never went backwards;
//   - every frame was measured or counted (skipped for want of a truth,
//     or paused), and the planner's own late, early and paused counts
//     equal what its plans said;
//   - where every wake came within the row's lateness budget (what its
//     render delay's limit, max(8 steps, 100 ms), its step cap and
//     MaxDelta cover): at least MinMeasured of the frames were measured,
//     at most MaxClamped clamped, and the p99 position error is at most
//     PosErrLimit ticks and the p99 animation error at most AnimErrLimit
//     ms; on calm steady, jitter, vrr, intervals and pause displays the
//     maximum errors too; and after each stall of the render thread
//     (calm hitch displays) the errors are back within the bounds once
//     RecoveryFrames frames have passed;
//   - beyond that budget, and under overload, the lost time and frames
//     are counted (late and early clamps, skipped frames, discarded ticks,
//     clamped time), not bounded;
//   - after a hidden window, the Sim was paused for the hidden time and the
//     planner held the pose no longer than the render delay, a step, the
//     wake lateness and a frame after the show, without ever reaching back
//     across the pause;
//   - per motion mode: hermite, within the budget, never turned the spinner
//     (240° a tick at 30 Hz) the wrong way, and at 30 Hz on calm rows its
//     p99 position error is at most a hundredth of the lerp row's (the
//     chords of the curved path are gone); extrapolate added no render
//     delay to any frame, counted the correction of a kicked body at the
//     kick on rows within the budget, and on calm rows never turned the
//     spinner the wrong way and, at 30 Hz, kept the p99 of its corrections
//     within 0.05 tick. Its position error is the prediction's: bounded as
//     lerp's on calm rows, shown, not bounded, under stress.
//
// The statistics leave out the first second of each row, while the
// adaptive render delay converges. The notes under the table spell out each
// check and the bound of each pattern.
//
// Two baselines run on a few displays for comparison and never fail a run:
// fixed step without interpolation, and the naive variable-step loop. And
// the tests, or -break, run deliberately broken renderers (an alpha a
// frame late, the wrong pair once a second, a render delay of zero, an
// upload one slot off) in the lerp and hermite rows, each of which must
// fail.
//
// The VRR matrix (-vrr, panel.go) runs variable-refresh panels instead:
// each frame is scanned out when presented, within the panel's range,
// repeated below it, and animated to the scan-out the pacing policy
// predicts; the drawn error bounds hold on steady, jittery and
// heavy-tailed frame costs, and -break vrr-grid (frames animated to a
// fixed grid) fails every row.
//
// Results depend only on the Options: the same options give the same
// rows, whatever the machine's speed or the number of workers.
package verify
