package simthread

import (
	"time"

	"github.com/go-gl/mathgl/mgl32"
)

// World is the user's simulation. The simulation goroutine owns it: no
// other goroutine may touch it while the simulation runs. Everything that
// depends on time (timers, cooldowns, physics) belongs in Step, which sees
// only the fixed step and the tick number, so that a run is reproducible
// from its inputs.
type World interface {
	// Step advances the world by one fixed step of dt seconds. tick is the
	// number of the tick being computed (1 for the first step), and inputs
	// are the inputs applied at the start of this tick; the slice is reused
	// after Step returns.
	Step(tick uint64, dt float64, inputs []Input)
	// Snapshot writes the world's render state into dst, reusing the
	// memory dst already holds (dst.Bodies = append(dst.Bodies[:0], ...)).
	// The simulation stamps the tick and times afterwards.
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
// through the simulation's wait-free queue and applied at the start of a
// definite tick. Kind values are the world's own; Code and X, Y are its
// arguments (a key, a button, a pointer position or a delta).
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

// Snapshot is the immutable render state of one tick. The simulation
// publishes it through a triple buffer; once published it never changes
// until the renderer's history has let go of it.
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
	// PeakDelay is the largest publish delay of this snapshot and the
	// PeakWindow − 1 published before it, each measured from the first
	// tick its wake ran (the ticks before the last one of a wake are never
	// published: a render time just past the previous snapshot waits for
	// this one from that first tick's time on). A renderer slower than the
	// simulation acquires only some snapshots; this lets it see the delays
	// of those it skipped, and the catch-up of multi-step wakes.
	PeakDelay time.Duration
	// Bodies are the transforms to draw, index i being the same body from
	// one snapshot to the next.
	Bodies []Body
	// Skins are the skinned characters to draw, index i being the same
	// character from one snapshot to the next, and Joints their joints
	// (see Skin; written like Bodies, reusing dst's memory), and
	// MorphWeights their morph targets' weights (Skin.FirstWeight).
	Skins        []Skin
	Joints       []Joint
	MorphWeights []float32
	// Camera is the view the world wants drawn, if Camera.Valid: the
	// renderer interpolates it between snapshots as it does a body. A
	// world that never sets it is drawn by the render thread's orbit
	// camera; one that sets it writes it in every Snapshot (the slot
	// keeps what an earlier tick wrote).
	Camera CameraPose
	// Overlay is the text and 2D shapes drawn over the scene (see
	// Overlay): a world that draws any writes it in every Snapshot,
	// starting with Overlay.Reset.
	Overlay Overlay
	// Lines are the line segments drawn in the scene (see Lines): a
	// world that draws any writes them in every Snapshot, starting with
	// Lines.Reset.
	Lines Lines
	// Lights are the scene's lights (see Lights): the zero value is the
	// default sun and sky; a world that publishes any writes them in
	// every Snapshot, starting with Lights.Reset.
	Lights Lights
}

// CameraPose is a camera the world publishes with a snapshot: the view of
// a character it moves, a cut scene, a security camera. Like a Body, it
// is interpolated between two snapshots (positions lerped, orientations
// slerped) unless its Epoch changed. The zero CameraPose is not valid: the
// render thread's own camera is used instead.
type CameraPose struct {
	// Valid says the pose is set; the other fields mean nothing without it.
	Valid bool
	// Pos is the eye, and Rot turns the camera's frame into the world's:
	// the camera looks along Rot·(0, 0, −1) with Rot·(0, 1, 0) up, as
	// OpenGL's and glTF's cameras do. Rot must be a unit quaternion.
	Pos mgl32.Vec3
	Rot mgl32.Quat
	// FOV is the vertical field of view in radians; 0 keeps the
	// renderer's.
	FOV float32
	// Boom is how far ahead of the eye, along its view, the camera's
	// subject is: a third-person camera's arm, 0 for a first-person one.
	// The render side turns the camera about that point rather than about
	// the eye, and interpolates that point rather than the eye, so a
	// subject interpolated as a body stays where it is on the screen while
	// the camera turns.
	Boom float32
	// Epoch changes whenever the camera cuts to a new view: it is then
	// shown at once instead of swinging there from the old one.
	Epoch uint32
	// Look says how the world turns this camera by mouse motion, for the
	// render side's late latch (platform/app's Config.Mouse.MouseLook). Its zero
	// value turns nothing.
	Look MouseLook
}

// MouseLook is the world's side of mouse look. The world turns its camera by
// the motion of look inputs (cursor events' DX, DY) at its ticks, but the
// render thread sees newer motion than the newest snapshot holds; it
// turns the drawn view by the motion the world has not consumed yet, the
// difference between what it sent and X, Y, so the view follows the mouse
// within the frame. That difference shrinks to zero as the world catches
// up; nothing has to be reset.
type MouseLook struct {
	// X and Y are the sums of the DX and DY of every cursor motion the
	// world has consumed since it started, in the events' own units, summed
	// in the order they arrived (the render side sums the same values in
	// the same order, so the two agree exactly once the world has caught
	// up).
	X, Y float64
	// Scale is how many radians the world turns per unit of motion: X
	// turns it about the vertical axis (positive to the right), Y about
	// its horizontal axis (positive downwards). 0 turns nothing.
	Scale float32
	// MinPitch and MaxPitch are the lowest and highest elevation of the
	// view, in radians from the horizon, that the world turns its camera
	// to (up positive; both within ±π/2); the render side keeps the drawn
	// view within them. Both 0 mean ±1.5 rad.
	MinPitch, MaxPitch float32
}

// RGB packs an opaque sRGB colour into Body.Color's layout.
func RGB(r, g, b uint8) uint32 {
	return 0xFF000000 | uint32(b)<<16 | uint32(g)<<8 | uint32(r)
}

// UniformScale returns the scale s along every axis, for Body.Scale.
func UniformScale(s float32) mgl32.Vec3 { return mgl32.Vec3{s, s, s} }

// White is the sRGB colour that leaves a material's colour as it is.
const White uint32 = 0xFFFFFFFF

// NewBody returns a body at pos drawn as its mesh and material are
// (white, unrotated, unscaled): the default cube, 2 units wide, unless
// the caller sets Mesh. It is Body{Pos: pos} with Color White and the
// identity Rot and unit Scale spelled out.
func NewBody(pos mgl32.Vec3) Body {
	return Body{Pos: pos, Rot: mgl32.QuatIdent(), Scale: mgl32.Vec3{1, 1, 1}, Color: White}
}

// MeshID is a registered mesh, as the renderer hands it out when the mesh
// is registered (renderer.Registry's AddMesh returns it): a handle that never
// changes whatever else is registered. 0 is the default cube.
type MeshID uint16

// MaterialID is a registered material, as the renderer hands it out
// (renderer.Registry's AddMaterial returns it). 0 is the default material, or,
// for a body, each part's own.
type MaterialID uint16

// Body is the render state of one body: a flat 76-byte struct that the
// renderer uploads as it is into its GPU buffers, so its layout is part of
// the contract with the shaders. Byte offsets (no padding, 4-byte
// aligned):
//
//	 0 Pos       12 Rot    28 Scale      40 Color   44 Epoch
//	48 Mesh      50 Material            52 Vel      64 AngVel   (76 in all)
//
// Every zero field means something useful, so the shortest literal,
// Body{Pos: p}, is a visible, unrotated, black cube 2 units wide at p: a
// zero Rot is the identity, a zero Scale is 1 along every axis, a zero
// Mesh, Material, Vel or AngVel the default cube, its default material,
// and no known motion. NewBody gives the same body in white.
type Body struct {
	Pos mgl32.Vec3 // world position
	// Rot is the orientation, a unit quaternion (W, then X Y Z); the zero
	// quaternion is the identity (the renderer draws any quaternion it
	// cannot normalise as the identity).
	Rot mgl32.Quat
	// Scale scales the mesh along its own axes (before the rotation):
	// the default cube is 2 units wide, so Scale is its half-extent. The
	// zero Scale, (0, 0, 0), is (1, 1, 1); a single zero component
	// flattens the mesh. Components should not be negative: a mirrored
	// mesh is drawn inside out. A body is hidden by leaving it out of the
	// snapshot (with an Epoch change for the body that takes its index).
	Scale mgl32.Vec3
	// Color tints the body: an sRGB colour, 0xAABBGGRR (R in the low
	// byte; see RGB), multiplied, in linear light, with its material's
	// base colour (and texture). Alpha is ignored: bodies are opaque.
	Color uint32
	// Epoch changes whenever the body jumps (teleport, respawn): the
	// renderer then shows the new pose at once instead of interpolating a
	// streak from the old one.
	Epoch uint32
	// Mesh and Material name what the body is drawn with: the handles the
	// renderer returned when they were registered (renderer.Registry's
	// AddMesh and AddMaterial, or renderer.AddModel). Mesh 0 is the default cube;
	// Material 0 draws each part of the mesh with the material it was
	// registered with (the default material for the cube). An id the
	// renderer does not know counts as 0.
	Mesh     MeshID
	Material MaterialID
	// Vel is the body's linear velocity in units per second, and AngVel
	// its angular velocity in radians per second about a world-frame axis
	// (dq/dt = ½ (0, AngVel) ⊗ Rot). Both are optional, for renderers
	// that interpolate with derivatives or extrapolate: zero means unknown
	// or at rest.
	Vel, AngVel mgl32.Vec3
}
