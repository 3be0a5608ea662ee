package renderer_test

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/simthread"
)

// A body spinning 240° a tick about z: halfway through the tick it has
// turned 120°. MotionLerp slerps along the shorter arc from the start to
// the end (120° the other way) and draws it at −60°; MotionHermite counts
// the turn from the angular velocity the body publishes.
func ExampleBodyPose() {
	const dt = float32(1.0 / 30)
	axis := mgl32.Vec3{0, 0, 1}
	spin := axis.Mul(240 * math.Pi / 180 / dt) // rad/s
	prev := simthread.Snapshot{Tick: 1, Bodies: []simthread.Body{{Rot: mgl32.QuatIdent(), AngVel: spin}}}
	next := simthread.Snapshot{Tick: 2, Bodies: []simthread.Body{{Rot: mgl32.QuatRotate(240*math.Pi/180, axis), AngVel: spin}}}
	angle := func(q mgl32.Quat) float64 { // about z, in degrees
		return math.Round(2 * math.Atan2(float64(q.V[2]), float64(q.W)) * 180 / math.Pi)
	}
	for _, mode := range []renderer.MotionMode{renderer.MotionLerp, renderer.MotionHermite} {
		plan := renderer.Plan{Prev: &prev, Next: &next, PrevSeq: 1, NextSeq: 2, Alpha: 0.5, Span: dt, Motion: mode, Ready: true}
		p, _, _ := renderer.BodyPose(&plan, 0, nil)
		fmt.Printf("%v %v°\n", mode, angle(p.Rot))
	}
	// Output:
	// lerp -60°
	// hermite 120°
}
