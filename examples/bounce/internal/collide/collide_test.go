package collide_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/tickframe/tickframe/examples/bounce/internal/collide"
)

const eps = 1e-9

func near(a, b mgl64.Vec3, tol float64) bool { return a.Sub(b).Len() <= tol }

func TestSpherePlane(t *testing.T) {
	tilt := mgl64.Vec3{1, 1, 0}.Normalize()
	for _, c := range []struct {
		name  string
		s     collide.Sphere
		p     collide.Plane
		hit   bool
		depth float64
		point mgl64.Vec3
	}{
		{"above the floor", collide.Sphere{mgl64.Vec3{0, 2, 0}, 1}, collide.PlaneAt(mgl64.Vec3{}, mgl64.Vec3{0, 1, 0}), false, 0, mgl64.Vec3{}},
		{"touching", collide.Sphere{mgl64.Vec3{3, 1, 4}, 1}, collide.PlaneAt(mgl64.Vec3{}, mgl64.Vec3{0, 1, 0}), true, 0, mgl64.Vec3{3, 0, 4}},
		{"sunk 0.25", collide.Sphere{mgl64.Vec3{3, 0.75, 4}, 1}, collide.PlaneAt(mgl64.Vec3{}, mgl64.Vec3{0, 1, 0}), true, 0.25, mgl64.Vec3{3, 0, 4}},
		{"centre behind", collide.Sphere{mgl64.Vec3{0, -2, 0}, 1}, collide.PlaneAt(mgl64.Vec3{}, mgl64.Vec3{0, 1, 0}), true, 3, mgl64.Vec3{0, 0, 0}},
		// A plane through (1, 0, 0) tilted 45°: the centre (2, 1, 0) is √2 in front.
		{"tilted, apart", collide.Sphere{mgl64.Vec3{2, 1, 0}, 1.4}, collide.PlaneAt(mgl64.Vec3{1, 0, 0}, tilt), false, 0, mgl64.Vec3{}},
		{"tilted, in", collide.Sphere{mgl64.Vec3{2, 1, 0}, 1.5}, collide.PlaneAt(mgl64.Vec3{1, 0, 0}, tilt), true, 1.5 - math.Sqrt2, mgl64.Vec3{1, 0, 0}},
	} {
		got, ok := collide.SpherePlane(c.s, c.p)
		if ok != c.hit || ok && (math.Abs(got.Depth-c.depth) > eps || !near(got.Point, c.point, eps) || !near(got.Normal, c.p.N, eps)) {
			t.Errorf("%s: %+v %v, want hit %v depth %v at %v", c.name, got, ok, c.hit, c.depth, c.point)
		}
	}
}

func TestSphereBox(t *testing.T) {
	b := collide.Box{Min: mgl64.Vec3{-1, -2, -3}, Max: mgl64.Vec3{1, 2, 3}}
	for _, c := range []struct {
		name   string
		c      mgl64.Vec3
		r      float64
		hit    bool
		depth  float64
		normal mgl64.Vec3
		point  mgl64.Vec3
	}{
		{"face, apart", mgl64.Vec3{1.6, 0, 0}, 0.5, false, 0, mgl64.Vec3{}, mgl64.Vec3{}},
		{"face", mgl64.Vec3{1.3, 0.5, -1}, 0.5, true, 0.2, mgl64.Vec3{1, 0, 0}, mgl64.Vec3{1, 0.5, -1}},
		// Off the edge x = 1, y = 2 by (0.3, 0.4): distance 0.5.
		{"edge, touching", mgl64.Vec3{1.3, 2.4, 0}, 0.5, true, 0, mgl64.Vec3{0.6, 0.8, 0}, mgl64.Vec3{1, 2, 0}},
		{"edge, apart", mgl64.Vec3{1.3, 2.4, 0}, 0.49, false, 0, mgl64.Vec3{}, mgl64.Vec3{}},
		// Off the corner (1, 2, 3) by (1, 2, 2): distance 3.
		{"corner", mgl64.Vec3{2, 4, 5}, 3.5, true, 0.5, mgl64.Vec3{1, 2, 2}.Mul(1.0 / 3), mgl64.Vec3{1, 2, 3}},
		{"corner, apart", mgl64.Vec3{2, 4, 5}, 2.9, false, 0, mgl64.Vec3{}, mgl64.Vec3{}},
		// Inside, 0.2 from the face x = 1 (nearest): out through it.
		{"inside", mgl64.Vec3{0.8, 0.5, 0.5}, 0.1, true, 0.3, mgl64.Vec3{1, 0, 0}, mgl64.Vec3{1, 0.5, 0.5}},
		{"inside, near the bottom", mgl64.Vec3{0, -1.9, 0}, 0.1, true, 0.2, mgl64.Vec3{0, -1, 0}, mgl64.Vec3{0, -2, 0}},
	} {
		got, ok := collide.SphereBox(collide.Sphere{C: c.c, R: c.r}, b)
		if ok != c.hit || ok && (math.Abs(got.Depth-c.depth) > eps || !near(got.Normal, c.normal, eps) || !near(got.Point, c.point, eps)) {
			t.Errorf("%s: %+v %v, want hit %v depth %v normal %v at %v", c.name, got, ok, c.hit, c.depth, c.normal, c.point)
		}
	}
}

func TestSweepSpherePlane(t *testing.T) {
	floor := collide.PlaneAt(mgl64.Vec3{}, mgl64.Vec3{0, 1, 0})
	s := collide.Sphere{C: mgl64.Vec3{0, 10, 0}, R: 1}
	// Falling 20 m: touches when the centre is 1 m up, 9 m on: T = 0.45.
	h, ok := collide.SweepSpherePlane(s, mgl64.Vec3{4, -20, 0}, floor)
	if !ok || math.Abs(h.T-0.45) > eps || !near(h.Point, mgl64.Vec3{1.8, 0, 0}, eps) || h.Normal != floor.N {
		t.Errorf("falling: %+v %v, want T 0.45 at (1.8, 0, 0)", h, ok)
	}
	for _, c := range []struct {
		name string
		s    collide.Sphere
		move mgl64.Vec3
	}{
		{"falling short", s, mgl64.Vec3{0, -8.9, 0}},
		{"rising", s, mgl64.Vec3{0, 5, 0}},
		{"level", s, mgl64.Vec3{5, 0, 0}},
		{"already in", collide.Sphere{C: mgl64.Vec3{0, 0.5, 0}, R: 1}, mgl64.Vec3{0, -1, 0}},
	} {
		if h, ok := collide.SweepSpherePlane(c.s, c.move, floor); ok {
			t.Errorf("%s: hit %+v", c.name, h)
		}
	}
	if h, ok := collide.SweepSpherePlane(collide.Sphere{C: mgl64.Vec3{0, 1, 0}, R: 1}, mgl64.Vec3{0, -1, 0}, floor); !ok || h.T != 0 {
		t.Errorf("touching and moving in: %+v %v, want T 0", h, ok)
	}
}

// firstTouch finds, without the kit's sweep, when a sphere moving from c
// by move first comes within r of b: the distance to the box's nearest
// point (a clamp) sampled finely along the motion, then bisected.
func firstTouch(c, move mgl64.Vec3, r float64, b collide.Box) (float64, bool) {
	dist := func(t float64) float64 {
		p := c.Add(move.Mul(t))
		q := mgl64.Vec3{max(b.Min[0], min(b.Max[0], p[0])), max(b.Min[1], min(b.Max[1], p[1])), max(b.Min[2], min(b.Max[2], p[2]))}
		return p.Sub(q).Len() - r
	}
	const n = 5000
	prev := 0.0
	for i := 1; i <= n; i++ {
		t := float64(i) / n
		if dist(t) <= 0 {
			lo, hi := prev, t
			for range 60 {
				if mid := (lo + hi) / 2; dist(mid) <= 0 {
					hi = mid
				} else {
					lo = mid
				}
			}
			return hi, true
		}
		prev = t
	}
	return 0, false
}

// TestSweepSphereBoxClosedForms: a face hit at (gap − r)/speed; an edge
// hit of a sphere moving in the plane across the edge, whose centre's path
// passes the edge line at distance d: it touches at the point of the path
// r from the line; a corner hit along the diagonal at (|c − corner| − r)
// /|move|; a grazing path r + 1e-6 from a corner misses, r − 1e-6 hits.
func TestSweepSphereBoxClosedForms(t *testing.T) {
	b := collide.Box{Min: mgl64.Vec3{-1, -1, -1}, Max: mgl64.Vec3{1, 1, 1}}
	// Face: centre at x = −5, moving +8 along x, radius 0.5: touches at x = −1.5.
	h, ok := collide.SweepSphereBox(collide.Sphere{C: mgl64.Vec3{-5, 0.3, 0.2}, R: 0.5}, mgl64.Vec3{8, 0, 0}, b)
	if !ok || math.Abs(h.T-3.5/8) > eps || !near(h.Normal, mgl64.Vec3{-1, 0, 0}, eps) || !near(h.Point, mgl64.Vec3{-1, 0.3, 0.2}, eps) {
		t.Errorf("face: %+v %v, want T %v", h, ok, 3.5/8)
	}
	// Edge x = 1, y = 1: the centre moves along −x at y = 1 + 0.3 (z = 0)
	// from x = 5; radius 0.5 touches the edge when x − 1 = √(0.25 − 0.09) = 0.4.
	h, ok = collide.SweepSphereBox(collide.Sphere{C: mgl64.Vec3{5, 1.3, 0}, R: 0.5}, mgl64.Vec3{-10, 0, 0}, b)
	if !ok || math.Abs(h.T-(5-1.4)/10) > eps || !near(h.Point, mgl64.Vec3{1, 1, 0}, eps) || !near(h.Normal, mgl64.Vec3{0.8, 0.6, 0}, eps) {
		t.Errorf("edge: %+v %v, want T %v at (1, 1, 0) normal (0.8, 0.6, 0)", h, ok, (5-1.4)/10)
	}
	// Corner along the diagonal from (4, 4, 4): |c − corner| = 3√3.
	h, ok = collide.SweepSphereBox(collide.Sphere{C: mgl64.Vec3{4, 4, 4}, R: 1}, mgl64.Vec3{-6, -6, -6}, b)
	if want := (3*math.Sqrt(3) - 1) / (6 * math.Sqrt(3)); !ok || math.Abs(h.T-want) > eps || !near(h.Point, mgl64.Vec3{1, 1, 1}, eps) {
		t.Errorf("corner: %+v %v, want T %v", h, ok, want)
	}
	// Grazing the corner (1, 1, 1): a path along x through (·, 1 + a, 1 + a)
	// passes it at √2·a.
	for _, c := range []struct {
		off float64
		hit bool
	}{{0.5/math.Sqrt2 + 1e-6, false}, {0.5/math.Sqrt2 - 1e-6, true}} {
		_, ok := collide.SweepSphereBox(collide.Sphere{C: mgl64.Vec3{5, 1 + c.off, 1 + c.off}, R: 0.5}, mgl64.Vec3{-10, 0, 0}, b)
		if ok != c.hit {
			t.Errorf("grazing the corner at %v: hit %v, want %v", math.Sqrt2*c.off, ok, c.hit)
		}
	}
	// Overlapping at the start: not a sweep hit; moving away after
	// touching: none.
	if _, ok := collide.SweepSphereBox(collide.Sphere{C: mgl64.Vec3{1.2, 0, 0}, R: 0.5}, mgl64.Vec3{-3, 0, 0}, b); ok {
		t.Error("a sphere overlapping at T = 0 was a sweep hit")
	}
	if _, ok := collide.SweepSphereBox(collide.Sphere{C: mgl64.Vec3{1.5, 0, 0}, R: 0.5}, mgl64.Vec3{3, 0, 0}, b); ok {
		t.Error("a sphere touching and moving away was a hit")
	}
}

// TestSweepSphereBoxRandom compares the sweep with firstTouch on random
// boxes, spheres and motions: the same hit or miss, and T within the
// bisection's precision; a sweep that reports the box's plain (unrounded)
// grown-box entry, Ericson's first step alone, is off at edges and
// corners, and the oracle notices it on some case.
func TestSweepSphereBoxRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	u := func(a, b float64) float64 { return a + (b-a)*rng.Float64() }
	hits, misses, roundedDiffers := 0, 0, 0
	for i := range 2000 {
		half := mgl64.Vec3{u(0.1, 2), u(0.1, 2), u(0.1, 2)}
		b := collide.BoxAt(mgl64.Vec3{u(-1, 1), u(-1, 1), u(-1, 1)}, half)
		s := collide.Sphere{C: mgl64.Vec3{u(-6, 6), u(-6, 6), u(-6, 6)}, R: u(0.05, 1.5)}
		if _, in := collide.SphereBox(s, b); in {
			continue
		}
		// Aim near the box so that many sweeps hit.
		aim := mgl64.Vec3{u(-3, 3), u(-3, 3), u(-3, 3)}
		move := aim.Sub(s.C).Mul(u(0.5, 2))
		want, wantOK := firstTouch(s.C, move, s.R, b)
		got, ok := collide.SweepSphereBox(s, move, b)
		if ok != wantOK || ok && math.Abs(got.T-want) > 1e-7 {
			t.Fatalf("case %d: sphere %+v move %v box %+v: sweep %+v %v, first touch %v %v", i, s, move, b, got, ok, want, wantOK)
		}
		if ok {
			hits++
			// The hit point is on the box and r from the centre at T.
			c := s.C.Add(move.Mul(got.T))
			if math.Abs(c.Sub(got.Point).Len()-s.R) > 1e-9 || !near(got.Point.Add(got.Normal.Mul(s.R)), c, 1e-9) {
				t.Fatalf("case %d: hit point %v, normal %v, centre at T %v", i, got.Point, got.Normal, c)
			}
			grown := collide.Box{Min: b.Min.Sub(mgl64.Vec3{s.R, s.R, s.R}), Max: b.Max.Add(mgl64.Vec3{s.R, s.R, s.R})}
			if sq, ok := collide.RayBox(collide.Ray{O: s.C, Dir: move}, grown, 1); ok && math.Abs(sq.T-want) > 1e-6 {
				roundedDiffers++
			}
		} else {
			misses++
		}
	}
	if hits < 200 || misses < 200 {
		t.Fatalf("%d hits and %d misses: the cases do not exercise both", hits, misses)
	}
	if roundedDiffers == 0 {
		t.Fatal("a square grown box agreed with the oracle on every hit: the cases never reach an edge or a corner")
	}
}

func TestRays(t *testing.T) {
	s := collide.Sphere{C: mgl64.Vec3{0, 0, 0}, R: 1}
	// Along z from −5 at height 0.6: enters at z = −0.8.
	h, ok := collide.RaySphere(collide.Ray{O: mgl64.Vec3{0, 0.6, -5}, Dir: mgl64.Vec3{0, 0, 2}}, s, 10)
	if !ok || math.Abs(h.T-4.2/2) > eps || !near(h.Normal, mgl64.Vec3{0, 0.6, -0.8}, eps) {
		t.Errorf("RaySphere: %+v %v, want T 2.1 normal (0, 0.6, −0.8)", h, ok)
	}
	if _, ok := collide.RaySphere(collide.Ray{O: mgl64.Vec3{0, 1.01, -5}, Dir: mgl64.Vec3{0, 0, 1}}, s, 10); ok {
		t.Error("RaySphere: a ray passing above hit")
	}
	if _, ok := collide.RaySphere(collide.Ray{O: mgl64.Vec3{0, 0, -5}, Dir: mgl64.Vec3{0, 0, 1}}, s, 3.9); ok {
		t.Error("RaySphere: hit beyond maxT")
	}
	if _, ok := collide.RaySphere(collide.Ray{O: mgl64.Vec3{0, 0, 5}, Dir: mgl64.Vec3{0, 0, 1}}, s, 10); ok {
		t.Error("RaySphere: a ray pointing away hit")
	}
	if h, ok := collide.RaySphere(collide.Ray{O: mgl64.Vec3{0, 0.5, 0}, Dir: mgl64.Vec3{0, 0, 1}}, s, 10); !ok || h.T != 0 || h.Normal != (mgl64.Vec3{}) {
		t.Errorf("RaySphere from inside: %+v %v", h, ok)
	}

	b := collide.Box{Min: mgl64.Vec3{1, -1, -1}, Max: mgl64.Vec3{3, 1, 1}}
	// From the origin towards (2, 0.5, 0): enters the face x = 1 at T = 0.5.
	h, ok = collide.RayBox(collide.Ray{Dir: mgl64.Vec3{2, 0.5, 0}}, b, 10)
	if !ok || math.Abs(h.T-0.5) > eps || h.Normal != (mgl64.Vec3{-1, 0, 0}) || !near(h.Point, mgl64.Vec3{1, 0.25, 0}, eps) {
		t.Errorf("RayBox: %+v %v", h, ok)
	}
	// From above, down onto the top face y = 1 at T = 4.
	h, ok = collide.RayBox(collide.Ray{O: mgl64.Vec3{2, 5, 0}, Dir: mgl64.Vec3{0, -1, 0}}, b, 10)
	if !ok || math.Abs(h.T-4) > eps || h.Normal != (mgl64.Vec3{0, 1, 0}) {
		t.Errorf("RayBox from above: %+v %v", h, ok)
	}
	if _, ok := collide.RayBox(collide.Ray{Dir: mgl64.Vec3{2, 2.1, 0}}, b, 10); ok {
		t.Error("RayBox: a ray passing over the box hit")
	}

	floor := collide.PlaneAt(mgl64.Vec3{0, -2, 0}, mgl64.Vec3{0, 3, 0})
	h, ok = collide.RayPlane(collide.Ray{O: mgl64.Vec3{1, 4, 0}, Dir: mgl64.Vec3{1, -2, 0}}, floor, 10)
	if !ok || math.Abs(h.T-3) > eps || !near(h.Point, mgl64.Vec3{4, -2, 0}, eps) {
		t.Errorf("RayPlane: %+v %v, want T 3 at (4, −2, 0)", h, ok)
	}
	if _, ok := collide.RayPlane(collide.Ray{O: mgl64.Vec3{1, 4, 0}, Dir: mgl64.Vec3{1, 0, 0}}, floor, 10); ok {
		t.Error("RayPlane: a level ray hit")
	}
	if h, ok := collide.RayPlane(collide.Ray{O: mgl64.Vec3{1, -3, 0}, Dir: mgl64.Vec3{1, 0, 0}}, floor, 10); !ok || h.T != 0 {
		t.Errorf("RayPlane from below: %+v %v", h, ok)
	}
}

func TestReflect(t *testing.T) {
	n := mgl64.Vec3{0, 1, 0}
	if got := collide.Reflect(mgl64.Vec3{3, -4, 1}, n, 0.5); !near(got, mgl64.Vec3{3, 2, 1}, eps) {
		t.Errorf("Reflect = %v, want (3, 2, 1)", got)
	}
}

func TestDoesNotAllocate(t *testing.T) {
	b := collide.BoxAt(mgl64.Vec3{}, mgl64.Vec3{1, 1, 1})
	s := collide.Sphere{C: mgl64.Vec3{5, 0.5, 0.3}, R: 0.4}
	if a := testing.AllocsPerRun(100, func() {
		collide.SweepSphereBox(s, mgl64.Vec3{-10, 0, 0}, b)
		collide.SphereBox(s, b)
		collide.RayBox(collide.Ray{O: s.C, Dir: mgl64.Vec3{-1, 0, 0}}, b, 10)
	}); a != 0 {
		t.Errorf("allocates %v times", a)
	}
}
