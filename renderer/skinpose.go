package renderer

import (
	"errors"
	"slices"

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
	m      *gltf.Model
	skin   int
	pose   []gltf.TRS
	other  []gltf.TRS
	world  []mgl32.Mat4
	morphs []morphNode // the model's morphed nodes, in weight order
	w, ow  []float32   // their weights, as posed and for Blend
}

// morphNode is a node whose skinned mesh has morph targets: its weights
// are a character's weights [at, at+n), its defaults those of mesh.
type morphNode struct {
	node, mesh, at, n int
}

// morphNodes lists m's nodes whose skinned meshes have morph targets, in
// the order of their first mesh, with their weights' place in a
// character's: the layout Character publishes and AddSkinned reads.
func morphNodes(m *gltf.Model) (nodes []morphNode, weights int) {
	for i := range m.Meshes {
		me := &m.Meshes[i]
		if me.Joints == nil || me.Targets == nil || slices.ContainsFunc(nodes, func(n morphNode) bool { return n.node == me.NodeIndex }) {
			continue
		}
		nodes = append(nodes, morphNode{node: me.NodeIndex, mesh: i, at: weights, n: len(me.Targets)})
		weights += len(me.Targets)
	}
	return nodes, weights
}

// NewCharacter returns a Character of m's skinned meshes' skin (the one
// Renderer.AddSkinned draws), at rest.
func NewCharacter(m *gltf.Model) (*Character, error) {
	for i := range m.Meshes {
		if m.Meshes[i].Joints != nil {
			c := &Character{m: m, skin: m.Meshes[i].Skin, pose: make([]gltf.TRS, len(m.Nodes)),
				other: make([]gltf.TRS, len(m.Nodes)), world: make([]mgl32.Mat4, len(m.Nodes))}
			var n int
			c.morphs, n = morphNodes(m)
			c.w, c.ow = make([]float32, n), make([]float32, n)
			c.Pose(-1, 0)
			return c, nil
		}
	}
	return nil, errors.New("renderer: character: no mesh has a skin")
}

// Joints returns how many joints the character appends: its skin's.
func (c *Character) Joints() int { return len(c.m.Skins[c.skin].Joints) }

// Weights returns how many morph weights the character appends: its
// skinned meshes' morph targets (0 for a model without any).
func (c *Character) Weights() int { return len(c.w) }

// Pose sets the character to animation clip at t seconds (over the rest
// pose and morph weights, for what the clip does not animate); a clip
// past the model's animations, or negative, is the rest pose.
func (c *Character) Pose(clip int, t float32) {
	c.m.RestPose(c.pose)
	c.sampleWeights(clip, t, c.w)
	if clip >= 0 && clip < len(c.m.Animations) {
		c.m.Animations[clip].Sample(t, c.pose)
	}
}

// sampleWeights writes the morph weights of clip at t into w: the rest
// weights where the clip does not drive them.
func (c *Character) sampleWeights(clip int, t float32, w []float32) {
	for _, n := range c.morphs {
		dst := w[n.at : n.at+n.n]
		if clip < 0 || clip >= len(c.m.Animations) || !c.m.Animations[clip].SampleWeights(t, n.node, dst) {
			copy(dst, c.m.Meshes[n.mesh].TargetWeights)
		}
	}
}

// Blend moves the pose set by Pose towards animation clip at t seconds
// by w (0: the pose as it is, 1: clip's alone), node by node: positions
// and scales lerped, rotations slerped on the shorter arc, morph weights
// lerped.
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
	c.sampleWeights(clip, t, c.ow)
	for i := range c.w {
		c.w[i] += (c.ow[i] - c.w[i]) * w
	}
}

// AppendWeights appends the character's morph weights, as posed, to dst
// and returns it: a snapshot's MorphWeights, with the simthread.Skin's
// FirstWeight len(dst) before the call.
func (c *Character) AppendWeights(dst []float32) []float32 {
	return append(dst, c.w...)
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

// AppendSkin appends the character to dst as posed: skin s (its Model,
// Color and Epoch; First and FirstWeight are set here) to dst.Skins, its
// joints placed in the world by place to dst.Joints and its morph
// weights to dst.MorphWeights. It is the one call per character and tick
// in a world's Snapshot, after Pose (and Blend). It does not allocate
// once dst's memory has grown.
func (c *Character) AppendSkin(dst *simthread.Snapshot, s simthread.Skin, place mgl32.Mat4) {
	s.First, s.FirstWeight = uint32(len(dst.Joints)), uint32(len(dst.MorphWeights))
	dst.Skins = append(dst.Skins, s)
	dst.Joints = c.Append(dst.Joints, place)
	dst.MorphWeights = c.AppendWeights(dst.MorphWeights)
}
