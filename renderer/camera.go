package renderer

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"
)

// Camera is an orbit camera: it looks at Target from Distance away, turned
// by Yaw about the vertical axis and raised by Pitch. It belongs to the
// render thread and is never simulation state.
type Camera struct {
	Target     mgl32.Vec3
	Yaw, Pitch float32 // radians
	Distance   float32 // metres
	FovY       float32 // vertical field of view, radians
	Near, Far  float32 // clip planes, metres
}

// Camera limits: never under the ground, never flipped over the top.
const (
	minPitch    = 0.03
	maxPitch    = 1.45
	minDistance = 2
	maxDistance = 200
)

// DefaultCamera frames the reference world.
func DefaultCamera() Camera {
	return Camera{
		Target:   mgl32.Vec3{0, 1.5, 0},
		Yaw:      0.6,
		Pitch:    0.42,
		Distance: 26,
		FovY:     mgl32.DegToRad(50),
		Near:     0.1,
		Far:      400,
	}
}

// Orbit turns the camera by a pointer drag of dx, dy pixels.
func (c *Camera) Orbit(dx, dy float32) {
	const radPerPixel = 0.006
	c.Yaw += dx * radPerPixel
	c.Pitch = min(max(c.Pitch+dy*radPerPixel, minPitch), maxPitch)
}

// Zoom moves the camera in (steps > 0) or out by scroll steps.
func (c *Camera) Zoom(steps float32) {
	c.Distance = min(max(c.Distance*float32(math.Pow(0.9, float64(steps))), minDistance), maxDistance)
}

// Eye returns the camera's position.
func (c Camera) Eye() mgl32.Vec3 {
	sy, cy := math.Sincos(float64(c.Yaw))
	sp, cp := math.Sincos(float64(c.Pitch))
	d := float64(c.Distance)
	return c.Target.Add(mgl32.Vec3{float32(d * cp * sy), float32(d * sp), float32(d * cp * cy)})
}

// ViewProj returns projection × view for a viewport of the given aspect.
func (c Camera) ViewProj(aspect float32) mgl32.Mat4 {
	if !(aspect > 0) {
		aspect = 1
	}
	proj := mgl32.Perspective(c.FovY, aspect, c.Near, c.Far)
	view := mgl32.LookAtV(c.Eye(), c.Target, mgl32.Vec3{0, 1, 0})
	return proj.Mul4(view)
}

// Project returns where a world point lands in a viewport of w×h pixels,
// origin at the top left, and whether it is in front of the camera.
func (c Camera) Project(p mgl32.Vec3, w, h int) (x, y float32, visible bool) {
	clip := c.ViewProj(float32(w) / float32(h)).Mul4x1(p.Vec4(1))
	if clip[3] <= 0 {
		return 0, 0, false
	}
	ndc := clip.Vec3().Mul(1 / clip[3])
	return (ndc[0] + 1) / 2 * float32(w), (1 - ndc[1]) / 2 * float32(h), true
}
