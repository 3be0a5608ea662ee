package renderer

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/tickframe/tickframe/simthread"
)

// pairPlan is a Hermite plan over two one-body snapshots dt apart.
func pairPlan(a, b simthread.Body, dt, alpha float32) *Plan {
	return &Plan{
		Prev: &simthread.Snapshot{Tick: 1, Bodies: []simthread.Body{a}}, Next: &simthread.Snapshot{Tick: 2, Bodies: []simthread.Body{b}},
		PrevSeq: 1, NextSeq: 2, Alpha: alpha, Motion: MotionHermite, Span: dt, Ready: true,
	}
}

// TestHermiteGuardIssueBounce is the bounce of issue 18: x = 3.70 m at
// +600 m/s, then 3.725 m at −480 m/s, 1/120 s apart. The cubic itself
// swings to 4.84 m half-way; BodyPose must never draw outside the pair's
// hull, [3.70, 3.725] (it lerps).
func TestHermiteGuardIssueBounce(t *testing.T) {
	const dt = 1.0 / 120
	a := simthread.Body{Pos: mgl32.Vec3{3.70, 1, 0}, Vel: mgl32.Vec3{600, 0, 0}}
	b := simthread.Body{Pos: mgl32.Vec3{3.725, 1, 0}, Vel: mgl32.Vec3{-480, 0, 0}}
	if h := hermiteCurve(a.Pos, a.Vel, b.Pos, b.Vel, dt, 0.5); math.Abs(float64(h[0])-4.8375) > 1e-4 {
		t.Fatalf("the unguarded cubic draws x = %v half-way, want the issue's 4.84", h[0])
	}
	if Consistent(b.Pos.Sub(a.Pos), a.Vel, b.Vel, dt) {
		t.Fatal("Consistent accepts the bounce")
	}
	for k := 0; k <= 100; k++ {
		alpha := float32(k) / 100
		p, ok, err := BodyPose(pairPlan(a, b, dt, alpha), 0, nil)
		if !ok || err != nil {
			t.Fatal(ok, err)
		}
		if p.Pos[0] < a.Pos[0] || p.Pos[0] > b.Pos[0] || p.Pos[1] != 1 || p.Pos[2] != 0 {
			t.Fatalf("at alpha %v drawn at %v: outside the hull [%v, %v]", alpha, p.Pos, a.Pos[0], b.Pos[0])
		}
	}
}

// bounce is a ball's true state at the ends of a step of dt in which it
// bounces off the wall x·n = w with restitution e at the fraction f of the
// step (n along a world axis, the ball moving towards it at vn with the
// tangential velocity tan).
func bounce(axis int, sign float32, w, vn, e, f float32, tan mgl32.Vec3, dt float32) (a, b simthread.Body) {
	var n mgl32.Vec3
	n[axis] = sign
	tan[axis] = 0
	v0 := n.Mul(vn).Add(tan)
	v1 := n.Mul(-e * vn).Add(tan)
	hit := n.Mul(w) // a point on the wall
	p0 := hit.Sub(n.Mul(vn * f * dt)).Sub(tan.Mul(f * dt))
	p1 := hit.Sub(n.Mul(e * vn * (1 - f) * dt)).Add(tan.Mul((1 - f) * dt))
	return simthread.Body{Pos: p0, Vel: v0}, simthread.Body{Pos: p1, Vel: v1}
}

// TestHermiteGuardNeverPassesAWall bounces balls off walls along each
// axis, both ways, at every angle, every fraction of the step and
// restitutions from 0 to 1, at speeds from 1 to 600 m/s and tick rates
// from 30 to 240 Hz: BodyPose in Hermite mode never draws past the wall
// (beyond float32 rounding of the positions). The unguarded cubic
// passes it on many of the same pairs, by up to a seventh of a step's
// normal travel: the check can fail.
func TestHermiteGuardNeverPassesAWall(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 1))
	var pairs, hermite, unguarded int
	var worstRaw float64
	for range 20000 {
		axis := rng.IntN(3)
		sign := float32(1)
		if rng.IntN(2) == 0 {
			sign = -1
		}
		dt := float32(1 / []float64{30, 60, 120, 240}[rng.IntN(4)])
		vn := float32(1 + rng.Float64()*599)
		e := float32([]float64{0, 0.05, 0.2, 0.5, 0.8, 0.9, 1}[rng.IntN(7)])
		f := float32(rng.Float64())
		glance := float32(rng.Float64() * rng.Float64() * 30) // tangential speed over normal speed
		tan := mgl32.Vec3{float32(rng.NormFloat64()), float32(rng.NormFloat64()), float32(rng.NormFloat64())}.Normalize().Mul(glance * vn)
		w := float32(rng.Float64()*20 - 10)
		a, b := bounce(axis, sign, w, vn, e, f, tan, dt)
		pairs++
		if Consistent(b.Pos.Sub(a.Pos), a.Vel, b.Vel, dt) {
			hermite++
		}
		// Rounding: the positions are float32 near |w| + a step's travel.
		tol := 4e-7 * float64(abs(w)+(vn+glance*vn)*dt+1)
		passes := false
		for k := 0; k <= 64; k++ {
			alpha := float32(k) / 64
			p, _, _ := BodyPose(pairPlan(a, b, dt, alpha), 0, nil)
			if past := float64(p.Pos[axis]*sign - w); past > tol {
				t.Fatalf("bounce off %c%d at %v (e %v, f %.3f, %v m/s, tangential %v): drawn %.3g m past the wall at alpha %v",
					"xyz"[axis], int(sign), w, e, f, vn, glance, past, alpha)
			}
			raw := hermiteCurve(a.Pos, a.Vel, b.Pos, b.Vel, dt, alpha)
			if past := float64(raw[axis]*sign-w) / float64(vn*dt); past > tol {
				worstRaw = math.Max(worstRaw, past)
				passes = true
			}
		}
		if passes {
			unguarded++
		}
	}
	t.Logf("%d bounces, %d followed with Hermite; the unguarded cubic passes the wall on %d, by up to %.3f of a step's normal travel",
		pairs, hermite, unguarded, worstRaw)
	if unguarded < pairs/10 || worstRaw < 0.05 {
		t.Errorf("the unguarded cubic passed the wall on only %d of %d bounces: the test does not test", unguarded, pairs)
	}
	if hermite < pairs/100 {
		t.Errorf("only %d of %d bounces kept Hermite: the guard refuses everything", hermite, pairs)
	}
}

func abs(x float32) float32 { return float32(math.Abs(float64(x))) }

// TestHermiteGuardKeepsSmoothMotion checks that the guard leaves smooth
// motion to Hermite: the reference body's circle and the spinner's spin
// with their exact velocities at every tick rate from 10 to 1000 Hz, a
// uniform circle turning up to 45° a step, a start from rest and a stop
// under constant acceleration, semi-implicit Euler under gravity at the
// lessons' 1/120 s while the ball moves faster than a few g·dt, and
// random consistent pairs, which stay within the documented bound of the
// chord.
func TestHermiteGuardKeepsSmoothMotion(t *testing.T) {
	for _, hz := range []float64{10, 30, 60, 120, 240, 1000} {
		dt := 1 / hz
		for k := range 200 {
			t0 := float64(k) * dt
			p0, p1 := f32(refPosition(t0)), f32(refPosition(t0+dt))
			v0, v1 := f32(refVelocity(t0)), f32(refVelocity(t0+dt))
			if !Consistent(p1.Sub(p0), v0, v1, float32(dt)) {
				t.Fatalf("%v Hz, tick %d: the reference body's pair is refused", hz, k)
			}
			spin := f32(spinAxis.Mul(spinRate))
			a := simthread.Body{Rot: q32(spinRotation(t0)), AngVel: spin, Vel: v0, Pos: p0}
			b := simthread.Body{Rot: q32(spinRotation(t0 + dt)), AngVel: spin, Vel: v1, Pos: p1}
			want, _ := hermiteRot(a.Rot, spin, b.Rot, spin, float32(dt), 0.3)
			got, _, _ := BodyPose(pairPlan(a, b, float32(dt), 0.3), 0, nil)
			if qangle(got.Rot, want) > 1e-6 {
				t.Fatalf("%v Hz, tick %d: the spinner is drawn at %v, not hermiteRot's %v", hz, k, got.Rot, want)
			}
		}
	}
	for _, turn := range []float64{0.01, 0.2, 0.5, 0.78} { // radians a step
		for k := range 100 {
			ph := float64(k) * 0.0731
			p := func(t float64) mgl32.Vec3 { return mgl32.Vec3{float32(5 * math.Cos(t)), 2, float32(5 * math.Sin(t))} }
			v := func(t float64) mgl32.Vec3 { return mgl32.Vec3{float32(-5 * math.Sin(t)), 0, float32(5 * math.Cos(t))} }
			if !Consistent(p(ph+turn).Sub(p(ph)), v(ph), v(ph+turn), float32(turn)) {
				t.Fatalf("a circle turning %v rad a step is refused at phase %v", turn, ph)
			}
		}
	}
	const g, dt = 9.81, 1.0 / 120
	if !Consistent(mgl32.Vec3{0, 0.5 * g * dt * dt, 0}, mgl32.Vec3{}, mgl32.Vec3{0, g * dt, 0}, dt) {
		t.Error("a start from rest is refused")
	}
	if !Consistent(mgl32.Vec3{0.5 * 3 * dt, 0, 0}, mgl32.Vec3{3, 0, 0}, mgl32.Vec3{}, dt) {
		t.Error("a stop is refused")
	}
	for vy := float32(-20); vy < 20; vy += 0.01 { // the lessons' integrator
		v1 := vy - g*dt
		if math.Abs(float64(vy)) > 16*g*dt && !Consistent(mgl32.Vec3{0.5, v1 * dt, 0}, mgl32.Vec3{60, vy, 0}, mgl32.Vec3{60, v1, 0}, dt) {
			t.Fatalf("semi-implicit Euler under gravity at %v m/s is refused", vy)
		}
	}
	// The bound on a pair that passes.
	rng := rand.New(rand.NewPCG(5, 5))
	vec := func(s float64) mgl32.Vec3 {
		return mgl32.Vec3{float32(rng.NormFloat64() * s), float32(rng.NormFloat64() * s), float32(rng.NormFloat64() * s)}
	}
	passed := 0
	for range 100000 {
		v0 := vec(5)
		v1 := v0.Add(vec(2))
		d := v0.Add(v1).Mul(0.5).Add(vec(0.1))
		if !Consistent(d, v0, v1, 1) {
			continue
		}
		passed++
		bound := 0.125*float64(v1.Sub(v0).Len()) + 0.003*float64(v0.Len()+v1.Len()) + 1e-5
		for k := 1; k < 16; k++ {
			a := float32(k) / 16
			h := hermiteCurve(mgl32.Vec3{}, v0, d, v1, 1, a)
			if off := segDist(h, d); off > bound {
				t.Fatalf("a consistent pair's cubic is %.4g from the chord at %v, past the bound %.4g", off, a, bound)
			}
		}
	}
	if passed < 1000 {
		t.Fatalf("only %d random consistent pairs", passed)
	}
}

// segDist is the distance from p to the segment from the origin to d.
func segDist(p, d mgl32.Vec3) float64 {
	s := float64(p.Dot(d) / d.Dot(d))
	s = math.Max(0, math.Min(1, s))
	return float64(p.Sub(d.Mul(float32(s))).Len())
}

// TestHermiteGuardRotation: a spin that stops dead within a step (an
// impact) is slerped, a steady one follows hermiteRot.
func TestHermiteGuardRotation(t *testing.T) {
	axis := mgl32.Vec3{0, 1, 0}
	w := axis.Mul(40) // rad/s
	const dt = 1.0 / 30
	a := simthread.Body{Rot: mgl32.QuatIdent(), AngVel: w}
	b := simthread.Body{Rot: mgl32.QuatRotate(0.1, axis), AngVel: w.Mul(-0.5)} // hit: turned back
	got, _, _ := BodyPose(pairPlan(a, b, dt, 0.5), 0, nil)
	want, _ := slerp(a.Rot, b.Rot, 0.5)
	if qangle(got.Rot, want) > 1e-6 {
		t.Errorf("an impact's spin: drawn %v, want the slerp %v", got.Rot, want)
	}
	b = simthread.Body{Rot: mgl32.QuatRotate(40*dt, axis), AngVel: w}
	got, _, _ = BodyPose(pairPlan(a, b, dt, 0.5), 0, nil)
	want, _ = hermiteRot(a.Rot, w, b.Rot, w, dt, 0.5)
	if qangle(got.Rot, want) > 1e-6 {
		t.Errorf("a steady spin: drawn %v, want hermiteRot's %v", got.Rot, want)
	}
}

// TestZeroBodyPose: a zero Rot is drawn as the identity, without error.
func TestZeroBodyPose(t *testing.T) {
	for _, m := range []MotionMode{MotionLerp, MotionHermite, MotionExtrapolate} {
		plan := pairPlan(simthread.Body{}, simthread.Body{Pos: mgl32.Vec3{1, 2, 3}}, 0.01, 0.5)
		plan.Motion = m
		p, ok, err := BodyPose(plan, 0, nil)
		if !ok || err != nil || p.Rot != mgl32.QuatIdent() {
			t.Errorf("%v: a zero Rot is drawn as %v (%v, %v), want the identity", m, p.Rot, ok, err)
		}
	}
}

func q32(q mgl64.Quat) mgl32.Quat { return mgl32.Quat{W: float32(q.W), V: f32(q.V)} }
