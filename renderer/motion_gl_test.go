package renderer

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/simthread"
)

// TestShaderMotionMatchesCPU runs the interpolation pass (and the
// correction pass) in the hermite and extrapolate modes on random bodies
// and compares every captured pose with the CPU reference,
// BodyPose, fed the same plans (with an Correction per body
// for extrapolate). The bodies are of every kind the shader branches on:
// with and without velocities, spinning more than half a turn per tick,
// nearly still, teleported, new in the newer snapshot, with non-finite
// velocities; their number changes between snapshots. Then it breaks the
// GPU side on purpose (an alpha bias; velocities ignored) and checks that
// the comparison fails.
func TestShaderMotionMatchesCPU(t *testing.T) {
	withGL(t, checkMotion)
}

// motionBodies returns n random bodies moved on from old (the same bodies
// a step of dt later, more or less: their pose is random, their
// velocities only roughly right, as the maths must hold for any).
func motionBodies(rng *rand.Rand, old []simthread.Body, n int, dt float32) []simthread.Body {
	vec := func(s float64) mgl32.Vec3 {
		return mgl32.Vec3{float32(rng.NormFloat64() * s), float32(rng.NormFloat64() * s), float32(rng.NormFloat64() * s)}
	}
	bodies := make([]simthread.Body, n)
	for i := range bodies {
		b := simthread.Body{Scale: simthread.UniformScale(0.5), Color: 0xff336699, Epoch: 3}
		var prev simthread.Body
		if i < len(old) {
			prev = old[i]
			b.Epoch = prev.Epoch
		} else {
			prev = simthread.Body{Pos: vec(10), Rot: mgl32.QuatRotate(float32(rng.Float64()*6), vec(1).Normalize())}
		}
		switch i % 8 {
		case 0: // no velocities: lerp and slerp (by less than a radian:
			// llvmpipe's acos makes larger slerps differ from the CPU's by
			// up to 3e-4 rad, which TestShaderInterpolationMatchesCPU
			// allows for)
			b.Pos, b.Rot = vec(10), mgl32.QuatRotate(float32(rng.Float64()), vec(1).Normalize()).Mul(prev.Rot)
		case 1: // a fast spin about a fixed axis: 200° to 600° a step
			// (the older body's spin, if it has one: an axis that jumps
			// is an impact, slerped)
			axis := vec(1).Normalize()
			b.AngVel = axis.Mul(float32((3.5 + rng.Float64()*7) / float64(dt)))
			if prev.AngVel != (mgl32.Vec3{}) {
				b.AngVel = prev.AngVel
				axis = b.AngVel.Normalize()
			}
			b.Rot = mgl32.QuatRotate(b.AngVel.Len()*dt, axis).Mul(prev.Rot)
			b.Pos, b.Vel = prev.Pos, vec(2)
		case 2: // nearly still
			b.Pos, b.Vel = prev.Pos.Add(vec(1e-4)), vec(1e-3)
			b.Rot, b.AngVel = prev.Rot, vec(1e-3)
		case 3: // a velocity only at one end: a start or a stop
			if prev.Vel == (mgl32.Vec3{}) {
				b.Vel = vec(5)
			}
			b.Pos = prev.Pos.Add(prev.Vel.Add(b.Vel).Mul(dt / 2))
			b.Rot, b.AngVel = prev.Rot, mgl32.Vec3{}
		case 4: // non-finite velocities count as none
			b.Pos, b.Rot = vec(10), prev.Rot
			b.Vel = mgl32.Vec3{float32(math.Inf(1)), 0, 0}
			b.AngVel = mgl32.Vec3{0, float32(math.NaN()), 0}
		default: // moving and tumbling, with velocities that explain the
			// motion more or less (Consistent: others are lerped)
			b.Vel, b.AngVel = vec(5), vec(6)
			if prev.Vel != (mgl32.Vec3{}) {
				b.Vel, b.AngVel = prev.Vel.Add(vec(0.5)), prev.AngVel.Add(vec(0.5))
			}
			b.Pos = prev.Pos.Add(prev.Vel.Add(b.Vel).Mul(dt / 2)).Add(vec(0.001))
			turn := prev.AngVel.Add(b.AngVel).Mul(dt / 2)
			b.Rot = mgl32.QuatRotate(turn.Len(), turn.Normalize()).Mul(prev.Rot)
		}
		if i%37 == 5 {
			b.Epoch++ // teleported
		}
		bodies[i] = b
	}
	return bodies
}

func checkMotion() (string, error) {
	const dt = float32(1.0 / 30)
	rng := rand.New(rand.NewPCG(12, 12))
	checked := 0
	var worstPos, worstRot float64
	compare := func(b *bodyPass, plan *Plan, slot int, corr []Correction) (disagree int, err error) {
		n := b.slots[slot].count
		poses := make([]float32, n*poseStride/4)
		gl.BindBuffer(gl.ARRAY_BUFFER, uint32(b.poses))
		gl.GetBufferSubData(gl.ARRAY_BUFFER, 0, len(poses)*4, unsafe.Pointer(&poses[0]))
		gl.BindBuffer(gl.ARRAY_BUFFER, 0)
		if err := checkGL("read poses"); err != nil {
			return 0, err
		}
		for i := range n {
			var c *Correction
			if corr != nil {
				c = &corr[i]
			}
			want, ok, cerr := BodyPose(plan, i, c)
			if !ok || cerr != nil {
				return 0, fmt.Errorf("body %d: CPU reference: %v %v", i, ok, cerr)
			}
			p := poses[i*16 : i*16+16]
			gpu := mgl32.Vec3{p[0], p[1], p[2]}
			dp := float64(gpu.Sub(want.Pos).Len()) / math.Max(1, float64(want.Pos.Len()))
			q := mgl32.Quat{W: p[4], V: mgl32.Vec3{p[5], p[6], p[7]}}
			dr := quatAngle(q, want.Rot)
			// Positions: the same float32 expressions (an ulp or two
			// apart with a fused multiply-add); rotations: GLSL leaves
			// the precision of sin, cos and atan to the driver (the
			// broken paths are off by more than 1e-2).
			if !(dp <= 2e-5) || !(dr <= 2e-4) || !(math.Abs(float64(q.Len())-1) <= 1e-5) { // NaN fails too
				disagree++
				if disagree == 1 && b.alphaBias == 0 {
					err = fmt.Errorf("%v, body %d (kind %d): GPU %v %v, CPU %v %v (off by %.3g, %.3g rad)", plan.Motion, i, i%8, gpu, q, want.Pos, want.Rot, dp, dr)
				}
			}
			worstPos, worstRot = math.Max(worstPos, dp), math.Max(worstRot, dr)
			checked++
		}
		return disagree, err
	}

	b, err := newBodyPass(3, -1)
	if err != nil {
		return "", err
	}
	defer b.delete()

	// Hermite: one bracket, every alpha.
	snaps := []*simthread.Snapshot{{Tick: 1}, {Tick: 2}}
	snaps[0].Bodies = motionBodies(rng, nil, 1000, dt)
	snaps[1].Bodies = motionBodies(rng, snaps[0].Bodies, 1024, dt)
	for i := range 2 {
		if err := b.upload(i, uint64(i+1), snaps[i].Bodies); err != nil {
			return "", err
		}
	}
	for _, alpha := range []float32{0, 1, 0.5, 0.001, 0.999, 0.25, 0.73} {
		plan := Plan{Ready: true, Motion: MotionHermite, Prev: snaps[0], Next: snaps[1], Alpha: alpha, Span: dt}
		if _, err := b.interpolate(0, 1, &plan); err != nil {
			return "", err
		}
		if _, err := compare(b, &plan, 1, nil); err != nil {
			return "", err
		}
	}

	// Extrapolate: a run of snapshots through the three slots, each a
	// switch of basis followed by frames that blend its correction in.
	corr := make([]Correction, 2000)
	prevSlot, prevSnap := -1, (*simthread.Snapshot)(nil)
	var prevAhead float32
	for k := range 12 {
		n := 900 + rng.IntN(200)
		s := &simthread.Snapshot{Tick: uint64(k + 3)}
		if prevSnap != nil {
			s.Bodies = motionBodies(rng, prevSnap.Bodies, n, dt)
		} else {
			s.Bodies = motionBodies(rng, nil, n, dt)
		}
		slot := k % 3
		if err := b.upload(slot, uint64(k+3), s.Bodies); err != nil {
			return "", err
		}
		plan := Plan{Ready: true, Motion: MotionExtrapolate, Next: s, Prev: s, Switched: true,
			Alpha: 1, Ahead: float32(rng.Float64()) * dt * 0.5, Blend: 1}
		from := slot
		if prevSnap != nil && k%5 != 4 { // now and then a snap: the old basis is gone
			plan.Prev, plan.PrevAhead, from = prevSnap, prevAhead+dt*0.9, prevSlot
			plan.Carry = float32(rng.Float64())
		} else {
			plan.PrevAhead = plan.Ahead
		}
		for i := range corr {
			corr[i].Follow(&plan, i)
		}
		for f := range 3 {
			if f > 0 {
				plan.Switched, plan.Prev, from = false, s, slot
				plan.Ahead += dt / 4
				plan.Blend *= 0.6
			}
			if _, err := b.interpolate(from, slot, &plan); err != nil {
				return "", err
			}
			if _, err := compare(b, &plan, slot, corr); err != nil {
				return "", fmt.Errorf("snapshot %d, frame %d: %w", k, f, err)
			}
		}
		prevSlot, prevSnap, prevAhead = slot, s, plan.Ahead
	}
	summary := fmt.Sprintf("%d poses match the CPU reference (worst position %.2g relative, worst rotation %.2g rad)", checked, worstPos, worstRot)

	// The check must be able to fail: the hermite bracket drawn with a
	// biased alpha, and drawn as a lerp.
	for _, broken := range []string{"alpha", "lerp"} {
		plan := Plan{Ready: true, Motion: MotionHermite, Prev: snaps[0], Next: snaps[1], Alpha: 0.5, Span: dt}
		if err := b.upload(0, 100, snaps[0].Bodies); err != nil {
			return "", err
		}
		if err := b.upload(1, 101, snaps[1].Bodies); err != nil {
			return "", err
		}
		drawn := plan
		if broken == "alpha" {
			b.alphaBias = 0.01
		} else {
			drawn.Motion = MotionLerp
		}
		if _, err := b.interpolate(0, 1, &drawn); err != nil {
			return "", err
		}
		b.alphaBias = 0
		disagree, _ := compare(b, &plan, 1, nil)
		if disagree < 1024/2 {
			return "", fmt.Errorf("broken (%s): only %d of 1024 poses disagree with the CPU reference: the check is blind", broken, disagree)
		}
	}
	return summary, nil
}

// quatAngle returns the angle of the rotation between unit quaternions a
// and b, in float64.
func quatAngle(a, b mgl32.Quat) float64 {
	aw, ax, ay, az := float64(a.W), -float64(a.V[0]), -float64(a.V[1]), -float64(a.V[2])
	bw, bx, by, bz := float64(b.W), float64(b.V[0]), float64(b.V[1]), float64(b.V[2])
	x := aw*bx + ax*bw + ay*bz - az*by
	y := aw*by - ax*bz + ay*bw + az*bx
	z := aw*bz + ax*by - ay*bx + az*bw
	return 2 * math.Asin(math.Min(1, math.Sqrt(x*x+y*y+z*z)))
}
