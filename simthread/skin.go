package simthread

import "github.com/go-gl/mathgl/mgl32"

// Skin is one skinned character in a snapshot: a skinned model drawn
// with its skeleton posed by joints the world samples at the tick (a
// glTF animation, renderer.Character). The renderer interpolates each
// joint between the two snapshots around the display time, positions
// and scales lerped, rotations slerped, and draws the newer pose as it is
// where the character's Epoch, Model or joints changed.
//
// The zero Skin draws model 0, which no registered model is: nothing.
type Skin struct {
	// Model is the skinned model to draw: the id renderer.AddSkinned
	// returned (0 is none).
	Model uint16
	// Color tints the character as Body.Color tints a body.
	Color uint32
	// Epoch changes whenever the character jumps (teleport, respawn, a
	// cut between two clips that is not to be blended): the renderer then
	// shows its new pose at once.
	Epoch uint32
	// First is where the character's joints start in Snapshot.Joints: it
	// has as many as its model's skin (renderer.Character.Joints), one per
	// joint in the skin's order. A character whose joints do not fit is
	// not drawn.
	First uint32
	// FirstWeight is where the character's morph weights start in
	// Snapshot.MorphWeights, for a model with morph targets: as many as
	// renderer.Character.Weights says, interpolated (lerped) between
	// snapshots as the joints are. A character whose weights do not fit
	// is not drawn.
	FirstWeight uint32
}

// Joint is one joint of a skinned character: its transform in the
// world, the joint node's model-space transform placed by the
// character's own (renderer.Character.Append). It is 40 bytes, uploaded
// as it is (no padding):
//
//	0 Pos   12 Rot   28 Scale
//
// A zero Rot is the identity and a zero Scale is (1, 1, 1), as a Body's.
type Joint struct {
	Pos   mgl32.Vec3
	Rot   mgl32.Quat // unit, W then X Y Z
	Scale mgl32.Vec3
}
