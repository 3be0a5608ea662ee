// Package record reads and writes tickframe's recordings: the files behind
// `tickframe -record FILE` and `tickframe -replay FILE`.
//
// A recording is a Log: a Header saying which world to build and how to
// step it (everything that changes the simulated result), every input the
// simulation applied with its tick (sim.Sim.InputLog), the world's
// hash every CheckpointEvery ticks (sim.Sim.Checkpoints), and the
// tick and hash the run ended at. Replaying it means building the same
// world, running a Sim with ReplayConfig and passing what that run produced
// to Verify, which names the first tick whose state differs.
//
// Display settings (refresh rate, vsync) are not recorded, and neither are
// the scheduler's MaxDelta, MaxSteps and Overload or the Sim's History and
// Inputs: a Sim numbers its ticks consecutively whatever its wakes do, steps
// by the same dt at a given Rate and applies a replayed input at the start
// of its recorded tick, so none of them changes the states a replay reaches.
//
// # Guarantees
//
//   - Write writes only logs that pass Validate, and Read and ReadFile
//     return only logs that pass it.
//   - Read(Write(l)) equals l bit for bit, NaN payloads included. The
//     encoding is canonical: a file that Read accepts is exactly what Write
//     writes for the log Read returned.
//   - Read never panics, whatever the bytes. Its memory is bounded by what
//     the input justifies: entries are read one at a time and the slices
//     grow only as entries arrive, so a count field claiming 2^60 entries
//     costs a few KiB; the only allocation sized by a field ahead of its
//     data is Params, at most MaxParamsLen bytes.
//   - Every Read failure is a *FormatError, one line of the form
//     "record: offset N: what is wrong", N being the byte offset of the
//     field at fault. A truncated file is reported as truncated, at the
//     field it ends in; a file whose structure reads but whose bytes were
//     changed fails the checksum. CRC-32C detects every error burst of up
//     to 32 bits, so every change of a single byte is detected: by the
//     checksum, or by the structure where the byte is a length or count.
//   - The package writes to an io.Writer, never to a path: an app's
//     -record goes through platform/app/outfile, the one writer of the
//     module's files (a temporary file renamed over the destination where
//     the path's links lead; a device, a FIFO or a descriptor such as
//     /dev/stdout written into, never replaced).
//
// # Inputs and floats
//
// Input.X and Input.Y are stored as their IEEE 754 bits, so a replay feeds
// the world exactly what it saw. NaN and infinities are allowed: an input a
// live run applied (a driver's NaN pointer delta, say) must be replayable,
// and a world has to cope with such inputs anyway, since the Sim passes them
// through. Inputs apply from tick 1 (tick 0 is the initial state, before
// any step), so Validate rejects an input at tick 0, which a Sim would
// silently skip.
//
// # File format
//
// docs/recording.md is the format's contract: the byte layout (version 1)
// and its rules, which Read enforces and Write keeps.
package record
