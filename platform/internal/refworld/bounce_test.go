package refworld_test

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/go-gl/mathgl/mgl64"

	"github.com/tickframe/tickframe/platform/internal/refworld"
	"github.com/tickframe/tickframe/simthread"
)

// TestBouncerClosedForm checks the bouncer's closed form against its own
// definition: never below the floor, on it at each bounce instant and at
// the apex's height half a period later, its velocity the derivative of
// its position (a central difference) away from the bounces, reversed at
// them; and the world publishes exactly the closed form, velocity
// included, through a reset.
func TestBouncerClosedForm(t *testing.T) {
	T := refworld.BouncePeriod
	for k := range 5 {
		b := (float64(k) + 0.5) * T
		if y := refworld.BouncePosition(b)[1]; math.Abs(y-refworld.BounceFloor) > 1e-9 {
			t.Errorf("bounce %d at %.4f s: y = %v, want the floor %v", k, b, y, refworld.BounceFloor)
		}
		if y := refworld.BouncePosition(b + T/2)[1]; math.Abs(y-refworld.BounceFloor-refworld.BounceDrop) > 1e-9 {
			t.Errorf("apex after bounce %d: y = %v", k, y)
		}
		if lb := refworld.LastBounce(b + 0.1); math.Abs(lb-b) > 1e-9 {
			t.Errorf("LastBounce(%v) = %v, want %v", b+0.1, lb, b)
		}
		before, after := refworld.BounceVelocity(b - 1e-6)[1], refworld.BounceVelocity(b + 1e-6)[1]
		if math.Abs(before+refworld.BounceSpeed) > 1e-4 || math.Abs(after-refworld.BounceSpeed) > 1e-4 {
			t.Errorf("bounce %d: velocity %v before, %v after, want ∓%v", k, before, after, refworld.BounceSpeed)
		}
	}
	const h = 1e-5
	for s := 0.0; s < 4*T; s += 0.0137 {
		p := refworld.BouncePosition(s)
		if p[1] < refworld.BounceFloor-1e-12 || p[0] != refworld.BounceX || p[2] != refworld.BounceZ {
			t.Fatalf("at %v s the bouncer is at %v", s, p)
		}
		if math.Abs(s-refworld.LastBounce(s)) < 2*h || math.Abs(s-refworld.LastBounce(s)-T) < 2*h {
			continue
		}
		d := refworld.BouncePosition(s + h).Sub(refworld.BouncePosition(s - h)).Mul(1 / (2 * h))
		if v := refworld.BounceVelocity(s); d.Sub(v).Len() > 1e-5 {
			t.Fatalf("at %v s: velocity %v, the position's derivative %v", s, v, d)
		}
	}
	w, err := refworld.NewWithBouncer(20, 3)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := refworld.NewWithBouncer(2, 3); err == nil {
		t.Error("NewWithBouncer made a world of 2 bodies")
	}
	var snap simthread.Snapshot
	const dt = 1.0 / 60
	for k := uint64(1); k <= 300; k++ {
		var in []simthread.Input
		if k == 100 {
			in = []simthread.Input{{Kind: refworld.Reset}}
		}
		w.Step(k, dt, in)
		w.Snapshot(&snap)
		b := snap.Bodies[refworld.BounceBody]
		p, v := refworld.BouncePosition(w.Time()), refworld.BounceVelocity(w.Time())
		if d := vec64(b.Pos).Sub(p).Len(); d > 1e-6 || vec64(b.Vel).Sub(v).Len() > 1e-5 || b.Epoch != 0 {
			t.Fatalf("tick %d: published %v at %v (epoch %d), closed form %v at %v", k, b.Pos, b.Vel, b.Epoch, p, v)
		}
	}
}

func vec64(v mgl32.Vec3) mgl64.Vec3 { return mgl64.Vec3{float64(v[0]), float64(v[1]), float64(v[2])} }
