// Package sim runs an app's simthread.World at a fixed rate on its own
// goroutine, whatever the display does, and publishes its state to the
// renderer without either side ever waiting for the other. Package
// platform/app runs it; apps never call it.
//
// It has two layers:
//
//   - scheduler, a pure function of the times it is given, turns elapsed
//     time into whole fixed steps: an accumulator, a clamp on long gaps
//     (simthread.Timing's MaxDelta), a cap on the steps one wake may run
//     (MaxSteps) whose unpayable debt is discarded or kept by an explicit
//     Overload policy and always counted, and pause and resume without
//     catch-up. Tick times are exact rationals: a 120 Hz run does not
//     drift in an hour.
//   - Sim owns the world on a dedicated goroutine. It sleeps until the
//     next tick is due on an injected Clock (a RealClock sleeps, then
//     spins the last few hundred microseconds), runs the due steps,
//     applying queued inputs at the start of a definite tick, and
//     publishes an immutable simthread.Snapshot stamped with its tick, its
//     nominal tick time and the time it was published, through a
//     wait-free triple buffer whose consumer keeps a short history for
//     interpolation.
//
// Everything that depends on time lives in the world's Step, which sees
// only the fixed step and the tick number. With the same inputs at the
// same ticks the same world produces the same states, so an input log
// (simthread.Tuning's Record and Replay, Sim.InputLog) reproduces a run at
// any display rate.
//
// Time is injected: tests and the verifier run the real Sim on a
// VirtualClock, deterministically and without sleeping. Telemetry (ticks,
// steps per wake, discarded debt, wake lateness, step time, publish delay)
// is readable from any goroutine without locks, and a steady-state tick
// allocates nothing for a world that does not.
package sim
