package simthread_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/simthread"
)

// sameRot reports whether unit quaternions a and b are the same rotation
// (q and −q are) within tol.
func sameRot(a, b mgl32.Quat, tol float32) bool {
	d := a.Dot(b)
	return float32(math.Abs(float64(d))) > 1-tol
}

func near3(a, b mgl32.Vec3, tol float32) bool { return a.Sub(b).Len() <= tol }

// TestLookRotationClosedForms: a view of yaw ψ (left of −z, about +y) and
// pitch θ (up) looks along (−sin ψ cos θ, sin θ, −cos ψ cos θ), and its
// rotation is Ry(ψ)·Rx(θ); LookRotation of that direction with +y up must
// be that rotation, for a grid of yaws and pitches short of vertical, and
// turn −z onto the direction and +y into the plane of the direction and
// up, on up's side. A rotation built the other way round (Rx·Ry) must not
// match, so the comparison can fail.
func TestLookRotationClosedForms(t *testing.T) {
	y, x := mgl32.Vec3{0, 1, 0}, mgl32.Vec3{1, 0, 0}
	for yawDeg := -180; yawDeg < 180; yawDeg += 15 {
		for pitchDeg := -85; pitchDeg <= 85; pitchDeg += 17 {
			psi, theta := mgl32.DegToRad(float32(yawDeg)), mgl32.DegToRad(float32(pitchDeg))
			s, c := math.Sincos(float64(psi))
			sp, cp := math.Sincos(float64(theta))
			fwd := mgl32.Vec3{float32(-s * cp), float32(sp), float32(-c * cp)}
			want := mgl32.QuatRotate(psi, y).Mul(mgl32.QuatRotate(theta, x))
			got := simthread.LookRotation(fwd.Mul(3.5), y)
			if !sameRot(got, want, 1e-6) {
				t.Fatalf("yaw %d° pitch %d°: LookRotation = %v, want %v", yawDeg, pitchDeg, got, want)
			}
			if l := got.Len(); math.Abs(float64(l)-1) > 1e-6 {
				t.Fatalf("yaw %d° pitch %d°: |q| = %v", yawDeg, pitchDeg, l)
			}
			if !near3(got.Rotate(mgl32.Vec3{0, 0, -1}), fwd, 1e-5) {
				t.Fatalf("yaw %d° pitch %d°: looks along %v, want %v", yawDeg, pitchDeg, got.Rotate(mgl32.Vec3{0, 0, -1}), fwd)
			}
			if up := got.Rotate(y); math.Abs(float64(up.Dot(fwd.Cross(y)))) > 1e-5 || up[1] <= 0 {
				t.Fatalf("yaw %d° pitch %d°: the view's up %v is not in the plane of forward and up, above", yawDeg, pitchDeg, up)
			}
			if yawDeg == 45 && pitchDeg == 34 {
				if wrong := mgl32.QuatRotate(theta, x).Mul(mgl32.QuatRotate(psi, y)); sameRot(got, wrong, 1e-4) {
					t.Fatal("the comparison does not tell Ry·Rx from Rx·Ry")
				}
			}
		}
	}
}

// TestLookRotationAgreesWithLookAtV: a posed camera turned by LookAt has
// the view matrix of mgl32.LookAtV (gluLookAt's closed form) for random
// eyes, targets and ups, and CameraPose.LookAt and Body.LookAt keep their
// other fields.
func TestLookRotationAgreesWithLookAtV(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	v := func(r float32) mgl32.Vec3 {
		return mgl32.Vec3{(rng.Float32()*2 - 1) * r, (rng.Float32()*2 - 1) * r, (rng.Float32()*2 - 1) * r}
	}
	for i := range 1000 {
		eye, target, up := v(50), v(50), v(1)
		if target.Sub(eye).Len() < 1 || up.Len() < 0.1 || math.Abs(float64(target.Sub(eye).Normalize().Dot(up.Normalize()))) > 0.99 {
			continue
		}
		p := simthread.CameraPose{FOV: 1, Boom: 4, Epoch: 7}
		p.LookAt(eye, target, up)
		if !p.Valid || p.Pos != eye || p.FOV != 1 || p.Boom != 4 || p.Epoch != 7 {
			t.Fatalf("LookAt left the pose %+v", p)
		}
		view := p.Rot.Conjugate().Mat4().Mul4(mgl32.Translate3D(-eye[0], -eye[1], -eye[2]))
		want := mgl32.LookAtV(eye, target, up)
		if !view.ApproxEqualThreshold(want, 2e-4*max(1, eye.Len())) {
			t.Fatalf("case %d: eye %v target %v up %v: view\n%v\nwant LookAtV's\n%v", i, eye, target, up, view, want)
		}
		b := simthread.NewBody(eye)
		b.LookAt(target, up)
		if !sameRot(b.Rot, p.Rot, 1e-6) || b.Pos != eye {
			t.Fatalf("Body.LookAt turned to %v, the camera to %v", b.Rot, p.Rot)
		}
	}
}

// TestLookRotationDegenerate: looking straight up or down along up, with a
// zero up, or along a zero or infinite direction gives a unit rotation;
// straight up and down are the level view pitched by ±90°.
func TestLookRotationDegenerate(t *testing.T) {
	y, x := mgl32.Vec3{0, 1, 0}, mgl32.Vec3{1, 0, 0}
	for _, c := range []struct {
		name     string
		fwd, up  mgl32.Vec3
		want     mgl32.Quat
		wantFwd  bool
		identity bool
	}{
		{"straight up", mgl32.Vec3{0, 2, 0}, y, mgl32.QuatRotate(math.Pi/2, x), true, false},
		{"straight down", mgl32.Vec3{0, -2, 0}, y, mgl32.QuatRotate(-math.Pi/2, x), true, false},
		{"zero up, level", mgl32.Vec3{0, 0, -1}, mgl32.Vec3{}, mgl32.QuatIdent(), true, false},
		{"up along z, looking along z", mgl32.Vec3{0, 0, 1}, mgl32.Vec3{0, 0, 1}, mgl32.Quat{}, true, false},
		{"zero forward", mgl32.Vec3{}, y, mgl32.QuatIdent(), false, true},
		{"infinite forward", mgl32.Vec3{float32(math.Inf(1)), 0, 0}, y, mgl32.QuatIdent(), false, true},
	} {
		q := simthread.LookRotation(c.fwd, c.up)
		if math.Abs(float64(q.Len())-1) > 1e-6 {
			t.Errorf("%s: |q| = %v", c.name, q.Len())
		}
		if c.want != (mgl32.Quat{}) && !sameRot(q, c.want, 1e-6) {
			t.Errorf("%s: %v, want %v", c.name, q, c.want)
		}
		if c.wantFwd && !near3(q.Rotate(mgl32.Vec3{0, 0, -1}), c.fwd.Normalize(), 1e-5) {
			t.Errorf("%s: looks along %v", c.name, q.Rotate(mgl32.Vec3{0, 0, -1}))
		}
	}
}
