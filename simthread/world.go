package simthread

import (
	"time"

	"github.com/go-gl/mathgl/mgl32"
)

// World is the user's simulation. The simulation goroutine owns it: no other
// goroutine may touch it while the Sim runs. Everything that depends on time
// (timers, cooldowns, physics) belongs in Step, which sees only the fixed
// step and the tick number, so that a run is reproducible from its inputs.
type World interface {
	// Step advances the world by one fixed step of dt seconds. tick is the
	// number of the tick being computed (1 for the first step), and inputs
	// are the inputs applied at the start of this tick; the slice is reused
	// after Step returns.
	Step(tick uint64, dt float64, inputs []Input)
	// Snapshot writes the world's render state into dst, reusing the
	// memory dst already holds (dst.Bodies = append(dst.Bodies[:0], ...)).
	// The Sim stamps the tick and times afterwards.
	Snapshot(dst *Snapshot)
}

// Hasher is implemented by worlds that can hash their whole state, for
// replay checks and the verifier. Equal states must hash equal.
type Hasher interface {
	// Hash returns a hash of every bit of state that a future Step can
	// depend on; a difference it misses is a divergence a replay cannot
	// detect.
	Hash() uint64
}

// Input is one input event for the world, sent from the render thread
// through the Sim's wait-free queue and applied at the start of a definite
// tick. Kind values are the world's own; Code and X, Y are its arguments
// (a key, a button, a pointer position or a delta).
type Input struct {
	Kind uint32
	Code int32
	X, Y float64
}

// TickInput is an input together with the tick it was applied at: the unit
// of an input log. Replaying the same log replays the same run.
type TickInput struct {
	Tick uint64
	Input
}

// Checkpoint is the world's hash after a tick.
type Checkpoint struct {
	Tick uint64 // the tick just stepped
	Hash uint64 // Hasher.Hash of the world after it
}

// Snapshot is the immutable render state of one tick. The Sim publishes it
// through a triple buffer; once published it never changes until the
// renderer's history has let go of it.
type Snapshot struct {
	// Tick is the tick this state is the result of (0: the initial state).
	Tick uint64
	// Time is the tick's nominal time on the shared clock: the start time
	// plus Tick steps, shifted by any time clamped, discarded or paused.
	// The renderer derives its interpolation factor from these times.
	Time time.Duration
	// Published is when the snapshot was handed to the renderer; Published
	// − Time is the publish delay that the renderer's delay must cover.
	Published time.Duration
	// PeakDelay is the largest publish delay (Published − Time) of this
	// snapshot and the PeakWindow − 1 published before it. A renderer
	// slower than the simulation acquires only some snapshots; this lets
	// it see the delays of those it skipped.
	PeakDelay time.Duration
	// Bodies are the transforms to draw, index i being the same body from
	// one snapshot to the next.
	Bodies []Body
}

// RGB packs an opaque sRGB colour into Body.Color's layout.
func RGB(r, g, b uint8) uint32 {
	return 0xFF000000 | uint32(b)<<16 | uint32(g)<<8 | uint32(r)
}

// Body is the render state of one body: 40 bytes, laid out as the
// renderer's instance buffers expect.
type Body struct {
	Pos   mgl32.Vec3 // world position
	Scale float32    // uniform scale; 0 hides the body
	Rot   mgl32.Quat // orientation, a unit quaternion (W, then X Y Z)
	Color uint32     // sRGB colour, 0xAABBGGRR (R in the low byte)
	// Epoch changes whenever the body jumps (teleport, respawn): the
	// renderer then shows the new pose at once instead of interpolating a
	// streak from the old one.
	Epoch uint32
}
