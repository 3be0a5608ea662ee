// Package simthread runs a simulation at a fixed rate on its own goroutine,
// whatever the display does, and publishes its state to the renderer
// without either side ever waiting for the other.
//
// It has two layers:
//
//   - Scheduler, a pure function of the times it is given, turns elapsed
//     time into whole fixed steps: an accumulator, a clamp on long gaps
//     (MaxDelta, 250 ms by default, so a stall is not replayed), a cap on
//     the steps one wake may run (MaxSteps, 8 by default) whose unpayable
//     debt is discarded or kept by an explicit Overload policy and always
//     counted, and pause and resume without catch-up. Tick times are exact
//     rationals: a 120 Hz run does not drift in an hour.
//   - Sim owns a World on a dedicated goroutine. It sleeps until the next
//     tick is due on an injected Clock (a RealClock sleeps, then spins the
//     last few hundred microseconds), runs the due steps, applying queued
//     inputs at the start of a definite tick, and publishes an immutable
//     Snapshot stamped with its tick, its nominal tick time and the time it
//     was published, through a wait-free triple buffer whose consumer keeps
//     a short history for interpolation.
//
// Everything that depends on time lives in World.Step, which sees only the
// fixed step and the tick number. With the same inputs at the same ticks
// the same world produces the same states, so an input log (Config.Record,
// Config.Replay) reproduces a run at any display rate.
//
// Time is injected: tests and the verifier run the real Sim on a
// VirtualClock, deterministically and without sleeping. Telemetry (ticks,
// steps per wake, discarded debt, wake lateness, step time, publish delay)
// is readable from any goroutine without locks, and a steady-state tick
// allocates nothing for a world that does not.
package simthread
