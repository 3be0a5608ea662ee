package gltf

import (
	"image"

	"github.com/go-gl/mathgl/mgl32"
)

// Methods the package keeps to itself, for its tests.
func (m *Model) Animated(a *Animation) []bool                 { return m.animated(a) }
func (m *Model) Bake()                                        { m.bake() }
func (m *Model) JointMatrices(s int, world, out []mgl32.Mat4) { m.jointMatrices(s, world, out) }
func (m *Material) SetTexture(s Slot, img image.Image)        { m.setTexture(s, img) }
