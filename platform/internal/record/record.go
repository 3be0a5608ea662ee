package record

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"time"

	"github.com/tickframe/tickframe/platform/internal/sim"
	"github.com/tickframe/tickframe/simthread"
)

// Format constants; see the package comment for the layout.
const (
	// Magic opens every recording.
	Magic = "TFREC"
	// Version is the format version this package reads and writes.
	Version = 1
	// MaxWorldLen bounds Header.World: a name, short enough to print in
	// an error.
	MaxWorldLen = 64
	// MaxBuildLen bounds Header.Build, which holds a Go version and a
	// target (about 25 bytes) with room to spare.
	MaxBuildLen = 64
	// MaxParamsLen bounds Header.Params. 64 KiB is far more than any
	// world's settings need, and small enough that a hostile length field
	// cannot make Read allocate much.
	MaxParamsLen = 1 << 16
	// MaxBodies bounds Header.Bodies so that it fits an int everywhere.
	MaxBodies = math.MaxInt32
	// MaxDuration bounds the run a recording claims, FinalTick/Rate: a
	// replay runs at the recording's rate, and 30 days is longer than any
	// session recorded at once, so a larger claim is a damaged or crafted
	// file, refused before a replay that would never end starts.
	MaxDuration = 30 * 24 * time.Hour
)

// Header is what a replay needs to rebuild the recorded world and step it
// the same way: everything that changes the simulated result. Display
// settings do not belong here; see the package comment.
type Header struct {
	// World names the world, such as "refworld": 1 to MaxWorldLen bytes
	// of printable ASCII.
	World string
	// Build describes the program that recorded, normally CurrentBuild().
	// It does not change the result by itself, but floating-point results
	// can differ between architectures (the Go compiler may fuse x*y+z
	// into one rounding, and does on arm64 among others), so Verify names
	// both builds when a replay by another build diverges. It may be
	// empty; at most MaxBuildLen bytes of printable ASCII.
	Build string
	// Seed is the world's random seed.
	Seed uint64
	// Bodies is the world's size at tick 0, in [0, MaxBodies].
	Bodies int
	// Rate is the simulation's rate in ticks per second, in
	// [1, simthread.MaxRate]. Unlike simthread.Timing.Rate, 0 does not
	// mean the default: a recording says what it ran at.
	Rate int
	// CheckpointEvery is how often the run recorded the world's hash
	// (simthread.Tuning.CheckpointEvery); 0 means never.
	CheckpointEvery uint64
	// Params holds any other setting of the world that changes the result,
	// encoded by the world as it likes; this package only stores it. At
	// most MaxParamsLen bytes; Read returns nil for none.
	Params []byte
}

// Log is a whole recording. The zero value is not a valid Log: a recording
// names its world and its rate. A final tick of 0 is a run stopped before
// its first tick (or whose world panicked at tick 1): no inputs, no
// checkpoints, the initial state's hash.
type Log struct {
	Header
	// Inputs are the inputs the run applied (sim.Sim.InputLog),
	// in order, at ticks from 1 to FinalTick.
	Inputs []simthread.TickInput
	// Checkpoints are the world's hashes every CheckpointEvery ticks
	// (sim.Sim.Checkpoints): exactly one at each multiple of
	// CheckpointEvery up to FinalTick.
	Checkpoints []sim.Checkpoint
	// FinalTick is the last tick the run completed; 0 if none.
	FinalTick uint64
	// FinalHash is the world's hash after FinalTick.
	FinalHash uint64
}

// CurrentBuild describes the running program for Header.Build: the Go
// version and the target, such as "go1.26.8 linux/amd64".
func CurrentBuild() string {
	return runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH
}

// ReplayConfig returns the simthread configuration that replays l: its
// rate, its inputs as the replay log (never nil, so that the Sim refuses live
// input even when l has none), its checkpoint interval, and StopAfter at
// FinalTick. A log of final tick 0 has nothing to replay (StopAfter 0 would
// not stop): compare the new world's hash with FinalHash instead. The caller may set the fields that do not change the result
// (History, Inputs, InitSnapshot, MaxDelta, MaxSteps, Overload) before
// calling sim.New. The Replay slice shares l.Inputs.
func (l *Log) ReplayConfig() simthread.Tuning {
	replay := l.Inputs
	if replay == nil {
		replay = []simthread.TickInput{}
	}
	return simthread.Tuning{
		Timing:          simthread.Timing{Rate: l.Rate},
		Replay:          replay,
		CheckpointEvery: l.CheckpointEvery,
		StopAfter:       l.FinalTick,
	}
}

// Validate reports the first thing wrong with l, or nil if l can be written
// and replayed: the header's ranges, inputs at non-decreasing ticks from 1 to
// FinalTick, checkpoints at every multiple of CheckpointEvery up to FinalTick
// and no other tick, and FinalHash equal to the checkpoint at FinalTick if
// there is one.
func (l *Log) Validate() error {
	if p := l.validate(); p != nil {
		return errors.New("record: " + p.msg)
	}
	return nil
}

// field identifies where in a file a problem lies, for Read's offsets.
type field int

const (
	fBodies field = iota
	fRate
	fWorldLen
	fWorld // at byte index
	fBuildLen
	fBuild // at byte index
	fParamsLen
	fInput // at entry index
	fCheckpointCount
	fCheckpoint // at entry index
	fFinalTick
	fFinalHash
)

// problem is what validate found wrong and where.
type problem struct {
	field field
	index int
	msg   string
}

func bad(f field, index int, format string, args ...any) *problem {
	return &problem{field: f, index: index, msg: fmt.Sprintf(format, args...)}
}

func (l *Log) validate() *problem {
	if l.Bodies < 0 || l.Bodies > MaxBodies {
		return bad(fBodies, 0, "bodies %d out of range [0, %d]", l.Bodies, MaxBodies)
	}
	if l.Rate < 1 || l.Rate > simthread.MaxRate {
		return bad(fRate, 0, "rate %d out of range [1, %d]", l.Rate, simthread.MaxRate)
	}
	if maxTick := uint64(l.Rate) * uint64(MaxDuration/time.Second); l.FinalTick > maxTick {
		return bad(fFinalTick, 0, "final tick %d: a run of more than %v at %d Hz (at most tick %d)", l.FinalTick, MaxDuration, l.Rate, maxTick)
	}
	if len(l.World) == 0 || len(l.World) > MaxWorldLen {
		return bad(fWorldLen, 0, "world name of %d bytes, want 1 to %d", len(l.World), MaxWorldLen)
	}
	if i := nonPrintable(l.World); i >= 0 {
		return bad(fWorld, i, "world name %s: byte %d is not printable ASCII", strconv.Quote(l.World), i)
	}
	if len(l.Build) > MaxBuildLen {
		return bad(fBuildLen, 0, "build description of %d bytes, want at most %d", len(l.Build), MaxBuildLen)
	}
	if i := nonPrintable(l.Build); i >= 0 {
		return bad(fBuild, i, "build description %s: byte %d is not printable ASCII", strconv.Quote(l.Build), i)
	}
	if len(l.Params) > MaxParamsLen {
		return bad(fParamsLen, 0, "params of %d bytes, want at most %d", len(l.Params), MaxParamsLen)
	}
	for i, in := range l.Inputs {
		switch {
		case in.Tick == 0:
			return bad(fInput, i, "Inputs[%d] at tick 0: inputs apply from tick 1", i)
		case i > 0 && in.Tick < l.Inputs[i-1].Tick:
			return bad(fInput, i, "Inputs[%d] at tick %d, before Inputs[%d] at tick %d", i, in.Tick, i-1, l.Inputs[i-1].Tick)
		case in.Tick > l.FinalTick:
			return bad(fInput, i, "Inputs[%d] at tick %d, after the final tick %d", i, in.Tick, l.FinalTick)
		}
	}
	every := l.CheckpointEvery
	if every == 0 && len(l.Checkpoints) > 0 {
		return bad(fCheckpointCount, 0, "%d checkpoints, want none (CheckpointEvery is 0)", len(l.Checkpoints))
	}
	var want uint64
	if every > 0 {
		want = l.FinalTick / every
	}
	if uint64(len(l.Checkpoints)) != want {
		return bad(fCheckpointCount, 0, "%d checkpoints, want %d (every %d ticks up to the final tick %d)",
			len(l.Checkpoints), want, every, l.FinalTick)
	}
	for i, c := range l.Checkpoints {
		// i+1 <= FinalTick/every, so this cannot overflow.
		if t := uint64(i+1) * every; c.Tick != t {
			return bad(fCheckpoint, i, "Checkpoints[%d] at tick %d, want tick %d (every %d ticks)", i, c.Tick, t, every)
		}
	}
	if n := len(l.Checkpoints); n > 0 {
		if c := l.Checkpoints[n-1]; c.Tick == l.FinalTick && c.Hash != l.FinalHash {
			return bad(fFinalHash, 0, "final hash %#016x differs from Checkpoints[%d] at the same tick %d (%#016x)",
				l.FinalHash, n-1, c.Tick, c.Hash)
		}
	}
	return nil
}

// nonPrintable returns the index of the first byte of s outside printable
// ASCII, or -1.
func nonPrintable(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return i
		}
	}
	return -1
}

// Verify compares a replay of l with the recording: checkpoints are what the
// replaying Sim recorded (sim.Sim.Checkpoints), finalTick and finalHash
// the tick it stopped at and the world's hash then. It returns nil if they
// match, or an error naming the first tick at which they differ and the
// hashes there: a checkpoint whose hash differs, a checkpoint one run has
// and the other lacks, a different final tick, or a different final hash.
func (l *Log) Verify(checkpoints []sim.Checkpoint, finalTick, finalHash uint64) error {
	end := min(finalTick, l.FinalTick)
	rec, rep := l.Checkpoints, checkpoints
	for len(rec) > 0 && rec[0].Tick <= end || len(rep) > 0 && rep[0].Tick <= end {
		switch {
		case len(rep) == 0 || rep[0].Tick > end || len(rec) > 0 && rec[0].Tick < rep[0].Tick:
			return fmt.Errorf("record: replay has no checkpoint at tick %d (recorded hash %#016x); was it run with CheckpointEvery %d?",
				rec[0].Tick, rec[0].Hash, l.CheckpointEvery)
		case len(rec) == 0 || rec[0].Tick > end || rep[0].Tick < rec[0].Tick:
			return fmt.Errorf("record: replay has a checkpoint at tick %d (hash %#016x) that the recording lacks; was it run with CheckpointEvery %d?",
				rep[0].Tick, rep[0].Hash, l.CheckpointEvery)
		case rec[0].Hash != rep[0].Hash:
			return l.diverged(rec[0].Tick, rep[0].Hash, rec[0].Hash, "")
		}
		rec, rep = rec[1:], rep[1:]
	}
	if finalTick != l.FinalTick {
		return fmt.Errorf("record: replay ended at tick %d, the recording at tick %d", finalTick, l.FinalTick)
	}
	if finalHash != l.FinalHash {
		return l.diverged(finalTick, finalHash, l.FinalHash, " (the final tick)")
	}
	return nil
}

func (l *Log) diverged(tick, replayed, recorded uint64, note string) error {
	msg := fmt.Sprintf("record: replay diverged at tick %d%s: hash %#016x, recorded %#016x", tick, note, replayed, recorded)
	if b := CurrentBuild(); l.Build != "" && l.Build != b {
		msg += fmt.Sprintf(" (recorded by %s, replayed by %s)", l.Build, b)
	}
	return errors.New(msg)
}

// A FormatError reports why a recording cannot be read and where the
// problem is in the file. Read and ReadFile return only FormatErrors, apart
// from ReadFile's failure to open the file.
type FormatError struct {
	Path   string // the file, when read by ReadFile
	Offset int64  // byte offset of the field at fault
	Msg    string // what is wrong
	Err    error  // the underlying read error, if any
}

// Error returns "record: offset N: what is wrong", with the path after
// "record: " when known and the underlying error at the end if any.
func (e *FormatError) Error() string {
	s := "record: "
	if e.Path != "" {
		s += e.Path + ": "
	}
	s += "offset " + strconv.FormatInt(e.Offset, 10) + ": " + e.Msg
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the underlying read error, if any.
func (e *FormatError) Unwrap() error { return e.Err }
