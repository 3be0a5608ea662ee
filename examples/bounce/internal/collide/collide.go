// Package collide is a small collision kit for the template's worlds:
// static overlap tests (sphere against plane and box), swept spheres
// (the time of impact of a sphere moving against a plane or a box, which
// a fast body needs so as not to pass through a thin wall between two
// steps), and ray casts (against a sphere, a box or a plane). It works in
// float64 on mgl64 vectors, as a world's integrator does, knows nothing
// of GL or windows, and allocates nothing.
//
// Planes are half-spaces: the solid lies behind the plane, on the side
// its normal points away from (a floor's normal points up). Boxes are
// axis-aligned. Every test is exact for its shapes: a swept sphere meets
// a box's faces, its rounded edges and its rounded corners where the
// sphere's surface first touches the box.
package collide

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// Sphere is a ball of radius R about C.
type Sphere struct {
	C mgl64.Vec3
	R float64
}

// Plane is the half-space of points p with N·p ≤ D: its boundary is the
// plane N·p = D, N its unit outward normal (the solid lies behind it).
type Plane struct {
	N mgl64.Vec3
	D float64
}

// PlaneAt returns the plane through point with outward normal n (made
// unit).
func PlaneAt(point, n mgl64.Vec3) Plane {
	n = n.Normalize()
	return Plane{N: n, D: n.Dot(point)}
}

// Box is the axis-aligned box from Min to Max (Min ≤ Max on every axis).
type Box struct {
	Min, Max mgl64.Vec3
}

// BoxAt returns the box about centre with half-extents half.
func BoxAt(centre, half mgl64.Vec3) Box {
	return Box{Min: centre.Sub(half), Max: centre.Add(half)}
}

// Ray is the half-line O + t·Dir, t ≥ 0. Dir need not be unit: a Hit's T
// is in units of Dir's length.
type Ray struct {
	O, Dir mgl64.Vec3
}

// At returns the ray's point at t.
func (r Ray) At(t float64) mgl64.Vec3 { return r.O.Add(r.Dir.Mul(t)) }

// Contact is an overlap: Normal is the unit direction that pushes the
// sphere out of the solid, Depth how far it must move along it to only
// touch, Point the solid's point nearest the sphere's centre (on the
// solid's surface).
type Contact struct {
	Normal mgl64.Vec3
	Depth  float64
	Point  mgl64.Vec3
}

// Hit is where a moving sphere or a ray first touches a solid: at T (a
// fraction of the sweep's motion, or the ray's parameter), at Point on the
// solid's surface, whose unit outward Normal is there.
type Hit struct {
	T      float64
	Point  mgl64.Vec3
	Normal mgl64.Vec3
}

// SpherePlane reports whether s touches or enters the half-space p, and
// the contact: Normal p.N, Depth s.R minus the centre's height above the
// plane.
func SpherePlane(s Sphere, p Plane) (Contact, bool) {
	h := p.N.Dot(s.C) - p.D
	if h > s.R {
		return Contact{}, false
	}
	return Contact{Normal: p.N, Depth: s.R - h, Point: s.C.Sub(p.N.Mul(h))}, true
}

// SphereBox reports whether s touches or overlaps b, and the contact. A
// centre outside the box is pushed out along the line from the box's
// nearest point (a face's normal, or the direction from an edge or a
// corner); a centre inside it, through the nearest face.
func SphereBox(s Sphere, b Box) (Contact, bool) {
	q := clampVec(s.C, b.Min, b.Max)
	d := s.C.Sub(q)
	if dist := d.Len(); dist > 0 {
		if dist > s.R {
			return Contact{}, false
		}
		return Contact{Normal: d.Mul(1 / dist), Depth: s.R - dist, Point: q}, true
	}
	// Inside: out through the nearest face.
	best, axis, sign := math.Inf(1), 0, 1.0
	for k := range 3 {
		if in := s.C[k] - b.Min[k]; in < best {
			best, axis, sign = in, k, -1
		}
		if in := b.Max[k] - s.C[k]; in < best {
			best, axis, sign = in, k, 1
		}
	}
	var n mgl64.Vec3
	n[axis] = sign
	p := s.C
	if sign < 0 {
		p[axis] = b.Min[axis]
	} else {
		p[axis] = b.Max[axis]
	}
	return Contact{Normal: n, Depth: s.R + best, Point: p}, true
}

// SweepSpherePlane returns where s, moving by move (from s.C at T = 0 to
// s.C + move at T = 1), first touches the half-space p, moving into it.
// A sphere that already overlaps it at T = 0 is not a hit (SpherePlane
// tells that); touching at T = 0 and moving in is, at T = 0.
func SweepSpherePlane(s Sphere, move mgl64.Vec3, p Plane) (Hit, bool) {
	h := p.N.Dot(s.C) - p.D
	v := p.N.Dot(move)
	if h < s.R || !(v < 0) {
		return Hit{}, false
	}
	t := (s.R - h) / v
	if t > 1 {
		return Hit{}, false
	}
	c := s.C.Add(move.Mul(t))
	return Hit{T: t, Point: c.Sub(p.N.Mul(s.R)), Normal: p.N}, true
}

// SweepSphereBox returns where s, moving by move (from s.C at T = 0 to
// s.C + move at T = 1), first touches b: on a face, an edge or a corner,
// the Normal pointing from that point of the box to the sphere's centre.
// A sphere that already overlaps b at T = 0 is not a hit (SphereBox tells
// that); touching at T = 0 and moving in is, at T = 0.
func SweepSphereBox(s Sphere, move mgl64.Vec3, b Box) (Hit, bool) {
	if q := clampVec(s.C, b.Min, b.Max); s.C.Sub(q).Len() < s.R {
		return Hit{}, false
	}
	t, ok := rayRoundedBox(Ray{s.C, move}, b, s.R, 1)
	if !ok {
		return Hit{}, false
	}
	c := s.C.Add(move.Mul(t))
	q := clampVec(c, b.Min, b.Max)
	n := c.Sub(q)
	if l := n.Len(); l > 0 {
		n = n.Mul(1 / l)
	}
	if n.Dot(move) > 0 {
		return Hit{}, false // touching at T = 0 and moving away
	}
	return Hit{T: t, Point: q, Normal: n}, true
}

// RaySphere returns where r first enters s within T ≤ maxT. A ray that
// starts inside s hits it at T = 0 with a zero Normal.
func RaySphere(r Ray, s Sphere, maxT float64) (Hit, bool) {
	m := r.O.Sub(s.C)
	if m.Dot(m) <= s.R*s.R {
		return Hit{Point: r.O}, true
	}
	t, ok := raySphereT(r, s.C, s.R)
	if !ok || t > maxT {
		return Hit{}, false
	}
	p := r.At(t)
	return Hit{T: t, Point: p, Normal: p.Sub(s.C).Mul(1 / s.R)}, true
}

// RayBox returns where r first enters b within T ≤ maxT. A ray that starts
// inside b hits it at T = 0 with a zero Normal.
func RayBox(r Ray, b Box, maxT float64) (Hit, bool) {
	tmin, tmax, axis := 0.0, maxT, -1
	for k := range 3 {
		if r.Dir[k] == 0 {
			if r.O[k] < b.Min[k] || r.O[k] > b.Max[k] {
				return Hit{}, false
			}
			continue
		}
		t0, t1 := (b.Min[k]-r.O[k])/r.Dir[k], (b.Max[k]-r.O[k])/r.Dir[k]
		if t0 > t1 {
			t0, t1 = t1, t0
		}
		if t0 > tmin {
			tmin, axis = t0, k
		}
		tmax = min(tmax, t1)
		if tmin > tmax {
			return Hit{}, false
		}
	}
	if axis < 0 {
		return Hit{Point: r.O}, true // inside at T = 0
	}
	var n mgl64.Vec3
	n[axis] = -math.Copysign(1, r.Dir[axis])
	return Hit{T: tmin, Point: r.At(tmin), Normal: n}, true
}

// RayPlane returns where r crosses into the half-space p within T ≤ maxT.
// A ray that starts in it (behind the plane, or on it) hits at T = 0 with
// a zero Normal.
func RayPlane(r Ray, p Plane, maxT float64) (Hit, bool) {
	h := p.N.Dot(r.O) - p.D
	if h <= 0 {
		return Hit{Point: r.O}, true
	}
	v := p.N.Dot(r.Dir)
	if !(v < 0) {
		return Hit{}, false
	}
	t := -h / v
	if t > maxT {
		return Hit{}, false
	}
	return Hit{T: t, Point: r.At(t), Normal: p.N}, true
}

// Reflect returns v with its component along the unit normal n reversed
// and scaled by restitution e (1: elastic, 0: it stops along n), the rest
// kept: the velocity after a bounce off a surface whose normal is n.
func Reflect(v, n mgl64.Vec3, e float64) mgl64.Vec3 {
	return v.Sub(n.Mul((1 + e) * v.Dot(n)))
}

func clampVec(p, lo, hi mgl64.Vec3) mgl64.Vec3 {
	return mgl64.Vec3{max(lo[0], min(hi[0], p[0])), max(lo[1], min(hi[1], p[1])), max(lo[2], min(hi[2], p[2]))}
}

// raySphereT returns the smallest t ≥ 0 at which r meets the sphere of
// radius rad about c from outside.
func raySphereT(r Ray, c mgl64.Vec3, rad float64) (float64, bool) {
	m := r.O.Sub(c)
	a := r.Dir.Dot(r.Dir)
	bh := m.Dot(r.Dir)
	cc := m.Dot(m) - rad*rad
	if a == 0 || bh >= 0 && cc > 0 {
		return 0, false
	}
	disc := bh*bh - a*cc
	if disc < 0 {
		return 0, false
	}
	t := (-bh - math.Sqrt(disc)) / a
	return max(t, 0), true
}

// rayRoundedBox returns the smallest t in [0, maxT] at which r, starting
// outside, meets the box b grown by rad (its Minkowski sum with a ball of
// radius rad: faces pushed out by rad, edges turned into quarter
// cylinders, corners into eighth spheres), by trying each of its 26
// pieces.
func rayRoundedBox(r Ray, b Box, rad, maxT float64) (float64, bool) {
	best, found := maxT, false
	try := func(t float64, ok bool) {
		if ok && t >= 0 && t <= best {
			best, found = t, true
		}
	}
	lohi := [2]mgl64.Vec3{b.Min, b.Max}
	// Faces: the plane pushed out by rad, within the face's rectangle.
	for k := range 3 {
		for side := range 2 {
			if r.Dir[k] == 0 {
				continue
			}
			sign := float64(2*side - 1)
			plane := lohi[side][k] + sign*rad
			if sign*r.Dir[k] >= 0 {
				continue // moving away from (or along) the face
			}
			t := (plane - r.O[k]) / r.Dir[k]
			p := r.At(t)
			u, v := (k+1)%3, (k+2)%3
			if p[u] >= b.Min[u] && p[u] <= b.Max[u] && p[v] >= b.Min[v] && p[v] <= b.Max[v] {
				try(t, true)
			}
		}
	}
	// Edges: cylinders of radius rad about the 12 edges, within their
	// length. An edge along axis k sits at a corner of the other two.
	for k := range 3 {
		u, v := (k+1)%3, (k+2)%3
		for cu := range 2 {
			for cv := range 2 {
				eu, ev := lohi[cu][u], lohi[cv][v]
				ou, ov := r.O[u]-eu, r.O[v]-ev
				du, dv := r.Dir[u], r.Dir[v]
				a := du*du + dv*dv
				if a == 0 {
					continue
				}
				bh := ou*du + ov*dv
				cc := ou*ou + ov*ov - rad*rad
				disc := bh*bh - a*cc
				if disc < 0 {
					continue
				}
				t := (-bh - math.Sqrt(disc)) / a
				if t < 0 && cc > 0 {
					continue
				}
				t = max(t, 0)
				if x := r.O[k] + t*r.Dir[k]; x >= b.Min[k] && x <= b.Max[k] {
					try(t, true)
				}
			}
		}
	}
	// Corners: spheres of radius rad about the 8 corners.
	for i := range 8 {
		c := mgl64.Vec3{lohi[i&1][0], lohi[i>>1&1][1], lohi[i>>2&1][2]}
		try(raySphereT(r, c, rad))
	}
	return best, found
}
