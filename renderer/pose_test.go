package renderer

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/go-gl/mathgl/mgl64"
)

func f32(v mgl64.Vec3) mgl32.Vec3 { return mgl32.Vec3{float32(v[0]), float32(v[1]), float32(v[2])} }

// qangle returns the angle between two orientations, in float64: 2·asin
// of the vector part of a⁻¹b, which unlike acos of the dot product keeps
// its precision for small angles.
func qangle(a, b mgl32.Quat) float64 {
	aw, ax, ay, az := float64(a.W), -float64(a.V[0]), -float64(a.V[1]), -float64(a.V[2])
	bw, bx, by, bz := float64(b.W), float64(b.V[0]), float64(b.V[1]), float64(b.V[2])
	x := aw*bx + ax*bw + ay*bz - az*by
	y := aw*by - ax*bz + ay*bw + az*bx
	z := aw*bz + ax*by - ay*bx + az*bw
	return 2 * math.Asin(math.Min(1, math.Sqrt(x*x+y*y+z*z)))
}

// TestHermiteStaysOnTheCurve samples the reference body's circle at 30 Hz
// and compares Hermite and Lerp between two samples with the circle: the
// chord is off by a sagitta, the Hermite curve by float32 rounding.
func TestHermiteStaysOnTheCurve(t *testing.T) {
	const dt = 1.0 / 30
	var worstLerp, worstHermite float64
	for k := range 30 {
		t0 := float64(k) * dt
		p0, p1 := f32(refPosition(t0)), f32(refPosition(t0+dt))
		v0, v1 := f32(refVelocity(t0)), f32(refVelocity(t0+dt))
		for _, a := range []float32{0, 0.1, 0.25, 0.5, 0.77, 1} {
			truth := refPosition(t0 + float64(a)*dt)
			h := hermiteCurve(p0, v0, p1, v1, dt, a)
			l := Lerp(p0, p1, a)
			worstHermite = math.Max(worstHermite, vec64(h).Sub(truth).Len())
			worstLerp = math.Max(worstLerp, vec64(l).Sub(truth).Len())
		}
	}
	perTick := refSpeed * dt
	t.Logf("worst error in ticks: lerp %.5f, hermite %.7f", worstLerp/perTick, worstHermite/perTick)
	if worstHermite > worstLerp/100 || worstHermite/perTick > 2e-5 {
		t.Errorf("hermite off the circle by %.3g ticks, lerp by %.3g", worstHermite/perTick, worstLerp/perTick)
	}
	// Tangents along the chord: the lerp.
	p0, p1 := mgl32.Vec3{1, 2, 3}, mgl32.Vec3{4, -2, 7}
	v := p1.Sub(p0).Mul(10)
	for _, a := range []float32{0, 0.3, 1} {
		if h, l := hermiteCurve(p0, v, p1, v, 0.1, a), Lerp(p0, p1, a); h.Sub(l).Len() > 1e-6 {
			t.Errorf("straight line at %v: hermite %v, lerp %v", a, h, l)
		}
	}
}

func vec64(v mgl32.Vec3) mgl64.Vec3 { return mgl64.Vec3{float64(v[0]), float64(v[1]), float64(v[2])} }

// TestHermiteRotCountsTurns spins a body about a fixed axis at 240°, 480°
// and 840° a tick: hermiteRot follows the spin at every t, the right way
// round; Slerp takes the shorter arc, backwards. Without angular
// velocities hermiteRot is the slerp.
func TestHermiteRotCountsTurns(t *testing.T) {
	const dt = float32(1.0 / 30)
	axis := mgl32.Vec3{0.3, 1, -0.2}.Normalize()
	q0 := mgl32.QuatRotate(0.4, mgl32.Vec3{1, 0, 0})
	for _, deg := range []float64{60, 240, 480, 840, -240} {
		rate := float32(deg * math.Pi / 180 / float64(dt))
		w := axis.Mul(rate)
		q1 := mgl32.QuatRotate(rate*dt, axis).Mul(q0)
		var worst, worstSlerp float64
		for _, a := range []float32{0, 0.2, 0.5, 0.9, 1} {
			truth := mgl32.QuatRotate(rate*dt*a, axis).Mul(q0)
			got, err := hermiteRot(q0, w, q1, w, dt, a)
			if err != nil {
				t.Fatal(err)
			}
			s, _ := slerp(q0, q1, a)
			worst, worstSlerp = math.Max(worst, qangle(got, truth)), math.Max(worstSlerp, qangle(s, truth))
		}
		if worst > 1e-4 {
			t.Errorf("%v° a tick: hermiteRot off the spin by %.3g rad", deg, worst)
		}
		if math.Abs(deg) > 180 && worstSlerp < 1 {
			t.Errorf("%v° a tick: slerp only %.3g rad off: the test spins too slowly", deg, worstSlerp)
		}
	}
	// The angular velocity of the shorter arc at both ends: the slerp.
	// None: the same path, eased in and out.
	rng := rand.New(rand.NewPCG(3, 3))
	for range 100 {
		a := mgl32.QuatRotate(float32(rng.Float64()*6), mgl32.Vec3{float32(rng.NormFloat64()), float32(rng.NormFloat64()), 1}.Normalize())
		b := mgl32.QuatRotate(float32(rng.Float64()*6), mgl32.Vec3{1, float32(rng.NormFloat64()), float32(rng.NormFloat64())}.Normalize())
		at := float32(rng.Float64())
		r := b.Mul(a.Conjugate())
		if r.W < 0 {
			r = r.Scale(-1)
		}
		angle := 2 * float32(math.Atan2(float64(r.V.Len()), float64(r.W)))
		w := r.V.Normalize().Mul(angle / dt)
		h, _ := hermiteRot(a, w, b, w, dt, at)
		s, _ := slerp(a, b, at)
		if d := qangle(h, s); d > 1e-4 {
			t.Fatalf("at the slerp's angular velocity: hermiteRot %v, Slerp %v (%.3g rad apart)", h, s, d)
		}
		eased := at * at * (3 - 2*at)
		h, _ = hermiteRot(a, mgl32.Vec3{}, b, mgl32.Vec3{}, dt, at)
		s, _ = slerp(a, b, eased)
		if d := qangle(h, s); d > 1e-4 {
			t.Fatalf("without angular velocity: hermiteRot %v, eased Slerp %v (%.3g rad apart)", h, s, d)
		}
	}
	if _, err := hermiteRot(mgl32.Quat{}, axis, q0, axis, dt, 0.5); err != errBadQuat {
		t.Errorf("zero quaternion: %v", err)
	}
	nan := float32(math.NaN())
	if q, err := hermiteRot(q0, mgl32.Vec3{nan, 0, 0}, q0, axis, dt, 0.5); err != nil || qangle(q, q0) > 1e-5 {
		t.Errorf("NaN angular velocity: %v %v, want q0 (counted as none)", q, err)
	}
}

func TestExtrapolate(t *testing.T) {
	p, v := mgl32.Vec3{1, 2, 3}, mgl32.Vec3{10, 0, -5}
	if got := extrapolate(p, v, 0.1); got.Sub(mgl32.Vec3{2, 2, 2.5}).Len() > 1e-6 {
		t.Errorf("extrapolate = %v", got)
	}
	if got := extrapolate(p, mgl32.Vec3{float32(math.Inf(1)), 0, 0}, 0.1); got != p {
		t.Errorf("infinite velocity: %v, want p", got)
	}
	axis := mgl32.Vec3{0, 0, 1}
	q := mgl32.QuatRotate(0.5, axis)
	got, err := extrapolateRot(q, axis.Mul(3), 0.5) // 1.5 rad more
	if err != nil || qangle(got, mgl32.QuatRotate(2, axis)) > 1e-5 {
		t.Errorf("extrapolateRot = %v, %v", got, err)
	}
	if _, err := extrapolateRot(mgl32.Quat{}, axis, 1); err != errBadQuat {
		t.Errorf("zero quaternion: %v", err)
	}
}

func quatDot(a, b mgl32.Quat) float64 {
	return float64(a.W)*float64(b.W) + float64(a.V[0])*float64(b.V[0]) + float64(a.V[1])*float64(b.V[1]) + float64(a.V[2])*float64(b.V[2])
}

func TestSlerpMatchesMathglAndTakesTheShortPath(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for i := 0; i < 10000; i++ {
		a := mgl32.QuatRotate(float32(rng.Float64()*7), mgl32.Vec3{float32(rng.NormFloat64()), float32(rng.NormFloat64()), float32(rng.NormFloat64())}.Normalize())
		b := mgl32.QuatRotate(float32(rng.Float64()*7), mgl32.Vec3{float32(rng.NormFloat64()), float32(rng.NormFloat64()), float32(rng.NormFloat64())}.Normalize())
		u := float32(rng.Float64())
		got, err := slerp(a, b, u)
		if err != nil {
			t.Fatal(err)
		}
		want := mgl32.QuatSlerp(a, b, u)
		if d := math.Abs(quatDot(got, want)); d < 1-1e-5 {
			t.Fatalf("slerp(%v, %v, %v) = %v, mathgl %v", a, b, u, got, want)
		}
		// Shortest path: the rotation angle from a to the result is at
		// most u times the (short) angle from a to b.
		full := 2 * math.Acos(math.Min(1, math.Abs(quatDot(a, b))))
		part := 2 * math.Acos(math.Min(1, math.Abs(quatDot(a, got))))
		if part > float64(u)*full+1e-3 {
			t.Fatalf("Slerp went the long way: %v of %v at u=%v", part, full, u)
		}
	}
	// q and −q are the same rotation: slerping between them stays put.
	q := mgl32.QuatRotate(1, mgl32.Vec3{0, 1, 0})
	got, _ := slerp(q, q.Scale(-1), 0.5)
	if math.Abs(quatDot(got, q)) < 1-1e-6 {
		t.Fatalf("slerp(q, -q, 0.5) = %v, want ±%v", got, q)
	}
}

func FuzzSlerp(f *testing.F) {
	f.Add(float32(1), float32(0), float32(0), float32(0), float32(0), float32(1), float32(0), float32(0), float32(0.5))
	f.Add(float32(0), float32(0), float32(0), float32(0), float32(1), float32(0), float32(0), float32(0), float32(0.5))
	f.Add(float32(1), float32(0), float32(0), float32(0), float32(-1), float32(0), float32(0), float32(0), float32(0.3))
	f.Add(float32(3), float32(4), float32(0), float32(0), float32(1e-30), float32(0), float32(2e-30), float32(0), float32(2))
	f.Add(float32(math.NaN()), float32(0), float32(0), float32(0), float32(1), float32(0), float32(0), float32(0), float32(math.NaN()))
	f.Fuzz(func(t *testing.T, aw, ax, ay, az, bw, bx, by, bz, u float32) {
		a := mgl32.Quat{W: aw, V: mgl32.Vec3{ax, ay, az}}
		b := mgl32.Quat{W: bw, V: mgl32.Vec3{bx, by, bz}}
		q, err := slerp(a, b, u)
		if err != nil {
			return
		}
		if l := float64(q.Len()); math.IsNaN(l) || math.Abs(l-1) > 1e-5 {
			t.Fatalf("slerp(%v, %v, %v) = %v of length %v", a, b, u, q, l)
		}
	})
}

func TestSlerpRejectsUnusableQuats(t *testing.T) {
	one := mgl32.QuatIdent()
	for _, bad := range []mgl32.Quat{{}, {W: float32(math.NaN())}, {W: float32(math.Inf(1))}} {
		if _, err := slerp(bad, one, 0.5); err == nil {
			t.Errorf("slerp(%v, 1) accepted", bad)
		}
		if _, err := slerp(one, bad, 0.5); err == nil {
			t.Errorf("slerp(1, %v) accepted", bad)
		}
	}
}

func TestMotionModeString(t *testing.T) {
	for m, want := range map[MotionMode]string{MotionLerp: "lerp", MotionHermite: "hermite", MotionExtrapolate: "extrapolate", 9: "MotionMode(9)"} {
		if got := m.String(); got != want {
			t.Errorf("MotionMode(%d).String() = %q, want %q", m, got, want)
		}
	}
}
