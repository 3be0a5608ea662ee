// Package simthread is the contract between an app's world and the
// simulation that steps it at a fixed rate, whatever the display does.
//
// An app implements World: Step advances the world by one fixed step,
// seeing only the step and the tick number, and Snapshot writes its
// render state into a Snapshot (bodies, the camera's pose, lines, lights,
// an overlay, skins), reusing the memory the snapshot already holds, so
// that a steady-state tick allocates nothing for a world that does not.
// Input carries the render thread's events to the world, each applied at
// the start of a definite tick. A world that implements Hasher can be
// recorded and replayed: with the same inputs at the same ticks the same
// world produces the same states, at any display rate.
//
// Tuning and Timing are the simulation's configuration, which an app and
// the flags set: the tick rate, the clamp on long gaps (MaxDelta, 250 ms
// by default, so a stall is not replayed), the cap on the steps one wake
// may run (MaxSteps, 8 by default) and what happens to the debt beyond it
// (Overload), the snapshot history and the input queue. A run that the
// world's panic ends returns a *PanicError.
//
// The goroutine that steps the world and publishes its snapshots to the
// renderer through a wait-free triple buffer is package
// platform/internal/sim, which package platform/app runs.
package simthread
