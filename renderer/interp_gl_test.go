package renderer

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"
	"unsafe"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/renderer/internal/gltest"
	"github.com/tickframe/tickframe/simthread"
)

// TestShaderInterpolationMatchesCPU runs the renderer's own interpolation
// pass (interp.vert, the shader every frame draws with) on random bracket
// pairs and compares each captured pose with the CPU reference:
// positions with Lerp, orientations with Slerp (mathgl's QuatSlerp),
// bodies that changed epoch or are new with the newer pose as it is.
func TestShaderInterpolationMatchesCPU(t *testing.T) {
	withGL(t, checkInterpolation)
}

// withGL runs check on the main thread with a small window's GL context
// current, fails the test with its error and logs its summary.
func withGL(t *testing.T, check func() (string, error)) {
	t.Helper()
	if os.Getenv("DISPLAY") == "" {
		t.Skip("needs a display: run `make test`, which starts Xvfb, or set DISPLAY")
	}
	var err error
	var summary string
	gltest.Call(func() {
		var w *gltest.Window
		if w, err = gltest.Open(t.Name(), 64, 64, false); err != nil {
			return
		}
		defer w.Close()
		summary, err = check()
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(summary)
}

func checkInterpolation() (string, error) {
	b, err := newBodyPass(2, -1)
	if err != nil {
		return "", err
	}
	defer b.delete()
	rng := rand.New(rand.NewPCG(7, 7))
	randQuat := func() mgl32.Quat {
		axis := mgl32.Vec3{float32(rng.NormFloat64()), float32(rng.NormFloat64()), float32(rng.NormFloat64())}.Normalize()
		return mgl32.QuatRotate(float32(rng.Float64()*2*math.Pi), axis)
	}
	randPos := func() mgl32.Vec3 {
		return mgl32.Vec3{float32(rng.NormFloat64() * 10), float32(rng.NormFloat64() * 10), float32(rng.NormFloat64() * 10)}
	}
	const n = 1024
	prev := make([]simthread.Body, n-16) // the last 16 are new in next
	next := make([]simthread.Body, n)
	for i := range next {
		a, c := randQuat(), randQuat()
		switch i % 4 {
		case 1: // nearly equal: the nlerp branch
			c = mgl32.QuatSlerp(a, c, 0.005)
		case 2: // the long way round: must take the short one
			c = c.Scale(-1)
		}
		next[i] = simthread.Body{Pos: randPos(), Scale: simthread.UniformScale(0.5), Rot: c, Color: 0xff336699, Epoch: 3}
		if i < len(prev) {
			prev[i] = simthread.Body{Pos: randPos(), Scale: simthread.UniformScale(0.5), Rot: a, Epoch: 3}
			if i%37 == 0 {
				prev[i].Epoch = 2 // teleported
			}
		}
	}
	if err := b.upload(0, 1, prev); err != nil {
		return "", err
	}
	if err := b.upload(1, 2, next); err != nil {
		return "", err
	}
	poses := make([]float32, n*poseStride/4)
	checked := 0
	var worstPos, worstRot float64
	for _, alpha := range []float32{0, 1, 0.5, 0.001, 0.999, 0.25, 0.73} {
		if _, err := b.interpolate(0, 1, &Plan{Alpha: alpha}); err != nil {
			return "", err
		}
		gl.BindBuffer(gl.ARRAY_BUFFER, uint32(b.poses))
		gl.GetBufferSubData(gl.ARRAY_BUFFER, 0, len(poses)*4, unsafe.Pointer(&poses[0]))
		if err := checkGL("read poses"); err != nil {
			return "", err
		}
		for i := range next {
			p := poses[i*16 : i*16+16]
			a := alpha
			if i >= len(prev) || prev[i].Epoch != next[i].Epoch {
				a = 1
			}
			var from simthread.Body
			if i < len(prev) {
				from = prev[i]
			} else {
				from = next[i]
			}
			pos := Lerp(from.Pos, next[i].Pos, a)
			rot, err := slerp(from.Rot, next[i].Rot, a)
			if err != nil {
				return "", err
			}
			for k := 0; k < 3; k++ {
				if e := math.Abs(float64(p[k] - pos[k])); !(e <= worstPos) {
					worstPos = e
				}
			}
			gpu := mgl32.Quat{W: p[4], V: mgl32.Vec3{p[5], p[6], p[7]}}
			d := math.Abs(float64(gpu.Dot(rot))) // q and −q are one rotation
			worstRot = math.Max(worstRot, 1-d)
			if !(d >= 1-1e-5) || !(math.Abs(float64(gpu.Len())-1) <= 1e-5) { // NaN fails too
				return "", fmt.Errorf("body %d alpha %v: GPU slerp %v, CPU %v (|dot| %v)", i, a, gpu, rot, d)
			}
			if s := (mgl32.Vec3{p[8], p[9], p[10]}); s != next[i].Scale {
				return "", fmt.Errorf("body %d: scale %v, want %v", i, s, next[i].Scale)
			}
			checked++
		}
	}
	if worstPos > 1e-4 {
		return "", fmt.Errorf("GPU lerp differs from the CPU by up to %v m", worstPos)
	}
	return fmt.Sprintf("%d poses match the CPU reference (worst position %.2g m, worst 1-|dot| %.2g)", checked, worstPos, worstRot), nil
}
