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

// TestShaderHermiteGuard draws balls bouncing off the wall x = 4 in
// Hermite mode through the interpolation pass and reads the poses back:
// issue 18's bounce (3.70 m at +600 m/s, then 3.725 m at −480 m/s over
// 1/120 s) and a thousand true bounces at every angle and restitution.
// No pose may be past the wall, and every pose must be the CPU
// reference's (BodyPose, which lerps what Consistent
// refuses). The unguarded cubic passes the wall on many of the same
// pairs (counted), so a shader without the guard would fail the check.
func TestShaderHermiteGuard(t *testing.T) {
	withGL(t, checkGuard)
}

func checkGuard() (string, error) {
	const dt, wall = float32(1.0 / 120), float32(4)
	rng := rand.New(rand.NewPCG(18, 18))
	prev := []simthread.Body{{Pos: mgl32.Vec3{3.70, 1, 0}, Vel: mgl32.Vec3{600, 0, 0}}}
	next := []simthread.Body{{Pos: mgl32.Vec3{3.725, 1, 0}, Vel: mgl32.Vec3{-480, 0, 0}}}
	for range 1023 {
		vn := float32(1 + rng.Float64()*599)
		e := float32(rng.Float64())
		f := float32(rng.Float64())
		tan := mgl32.Vec3{0, float32(rng.NormFloat64()), float32(rng.NormFloat64())}.Mul(vn * float32(rng.Float64()*10))
		hit := mgl32.Vec3{wall, 1, 0}
		n := mgl32.Vec3{1, 0, 0}
		prev = append(prev, simthread.Body{Pos: hit.Sub(n.Mul(vn * f * dt)).Sub(tan.Mul(f * dt)), Vel: n.Mul(vn).Add(tan)})
		next = append(next, simthread.Body{Pos: hit.Sub(n.Mul(e * vn * (1 - f) * dt)).Add(tan.Mul((1 - f) * dt)), Vel: n.Mul(-e * vn).Add(tan)})
	}
	b, err := newBodyPass(3, -1)
	if err != nil {
		return "", err
	}
	defer b.delete()
	snaps := []*simthread.Snapshot{{Tick: 1, Bodies: prev}, {Tick: 2, Bodies: next}}
	for i := range 2 {
		if err := b.upload(i, uint64(i+1), snaps[i].Bodies); err != nil {
			return "", err
		}
	}
	poses := make([]float32, len(next)*poseStride/4)
	worst := math.Inf(-1)
	checked := 0
	for k := 0; k <= 32; k++ {
		plan := Plan{Ready: true, Motion: MotionHermite, Prev: snaps[0], Next: snaps[1], Alpha: float32(k) / 32, Span: dt}
		if _, err := b.interpolate(0, 1, &plan); err != nil {
			return "", err
		}
		gl.BindBuffer(gl.ARRAY_BUFFER, uint32(b.poses))
		gl.GetBufferSubData(gl.ARRAY_BUFFER, 0, len(poses)*4, unsafe.Pointer(&poses[0]))
		gl.BindBuffer(gl.ARRAY_BUFFER, 0)
		if err := checkGL("read poses"); err != nil {
			return "", err
		}
		for i := range next {
			x := poses[i*16]
			want, _, _ := BodyPose(&plan, i, nil)
			gpu := mgl32.Vec3{poses[i*16], poses[i*16+1], poses[i*16+2]}
			if d := gpu.Sub(want.Pos).Len(); d > 2e-5*max(1, want.Pos.Len()) {
				return "", fmt.Errorf("ball %d at alpha %v: GPU %v, CPU %v", i, plan.Alpha, gpu, want.Pos)
			}
			worst = math.Max(worst, float64(x-wall))
			if x > wall+4e-6 {
				return "", fmt.Errorf("ball %d at alpha %v drawn at x = %v, past the wall at %v", i, plan.Alpha, x, wall)
			}
			checked++
		}
	}
	unguarded := 0
	for i := range next {
		for k := 0; k <= 32; k++ {
			if h := hermiteCurve(prev[i].Pos, prev[i].Vel, next[i].Pos, next[i].Vel, dt, float32(k)/32); h[0] > wall+1e-3 {
				unguarded++
				break
			}
		}
	}
	if unguarded < len(next)/10 {
		return "", fmt.Errorf("the unguarded cubic passes the wall on only %d of %d bounces: the check is blind", unguarded, len(next))
	}
	return fmt.Sprintf("%d poses of bouncing balls match the CPU reference; the closest to the wall is %.2g m from it (the unguarded cubic passes it on %d of %d bounces)", checked, worst, unguarded, len(next)), nil
}
