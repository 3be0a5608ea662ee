package renderer

import (
	"errors"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/renderer/gltf"
	"github.com/tickframe/tickframe/simthread"
)

// A Character poses a skinned glTF model for the world's snapshots: it
// samples the model's animations at the tick's time, blends two of them
// if asked, and appends the skin's joints, placed in the world, to a
// snapshot (simthread.Skin, simthread.Joint). It is the world's: it
// touches no GL and may live on the simulation goroutine. Its methods do
// not allocate.
type Character struct {
	m     *gltf.Model
	skin  int
	pose  []gltf.TRS
	other []gltf.TRS
	world []mgl32.Mat4
}

// NewCharacter returns a Character of m's skinned meshes' skin (the one
// Renderer.AddSkinned draws), at rest.
func NewCharacter(m *gltf.Model) (*Character, error) {
	for i := range m.Meshes {
		if m.Meshes[i].Joints != nil {
			c := &Character{m: m, skin: m.Meshes[i].Skin, pose: make([]gltf.TRS, len(m.Nodes)),
				other: make([]gltf.TRS, len(m.Nodes)), world: make([]mgl32.Mat4, len(m.Nodes))}
			m.RestPose(c.pose)
			return c, nil
		}
	}
	return nil, errors.New("renderer: character: no mesh has a skin")
}

// Joints returns how many joints the character appends: its skin's.
func (c *Character) Joints() int { return len(c.m.Skins[c.skin].Joints) }

// Pose sets the character to animation clip at t seconds (over the rest
// pose, for what the clip does not animate); a clip past the model's
// animations, or negative, is the rest pose.
func (c *Character) Pose(clip int, t float32) {
	c.m.RestPose(c.pose)
	if clip >= 0 && clip < len(c.m.Animations) {
		c.m.Animations[clip].Sample(t, c.pose)
	}
}

// Blend moves the pose set by Pose towards animation clip at t seconds
// by w (0: the pose as it is, 1: clip's alone), node by node: positions
// and scales lerped, rotations slerped on the shorter arc.
func (c *Character) Blend(clip int, t, w float32) {
	if clip < 0 || clip >= len(c.m.Animations) {
		return
	}
	c.m.RestPose(c.other)
	c.m.Animations[clip].Sample(t, c.other)
	for i := range c.pose {
		a, b := &c.pose[i], &c.other[i]
		a.T = a.T.Add(b.T.Sub(a.T).Mul(w))
		a.S = a.S.Add(b.S.Sub(a.S).Mul(w))
		q := b.R
		if a.R.Dot(q) < 0 {
			q = q.Scale(-1)
		}
		a.R = mgl32.QuatSlerp(a.R, q, w)
	}
}

// Append appends the skin's joints, as posed, placed in the world by
// place (the model's frame to the world's), to dst and returns it: a
// snapshot's Joints, with a simthread.Skin whose First is len(dst)
// before the call.
func (c *Character) Append(dst []simthread.Joint, place mgl32.Mat4) []simthread.Joint {
	c.m.WorldPose(c.pose, c.world)
	for _, n := range c.m.Skins[c.skin].Joints {
		x := gltf.Decompose(place.Mul4(c.world[n]))
		dst = append(dst, simthread.Joint{Pos: x.T, Rot: x.R, Scale: x.S})
	}
	return dst
}
