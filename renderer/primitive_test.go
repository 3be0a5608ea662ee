package renderer_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/renderer"
)

type primitive struct {
	name   string
	part   renderer.Part
	closed bool
	// surface returns the outward unit normal of the true surface at a
	// point on it, or ok false where the point is on a crease.
	surface func(p mgl32.Vec3) (n mgl32.Vec3, ok bool)
}

func primitives() []primitive {
	const eps = 1e-5
	flat := func(p mgl32.Vec3) (mgl32.Vec3, bool) { return mgl32.Vec3{}, false }
	capR := float32(0.4)
	return []primitive{
		{"box", renderer.BoxMesh(), true, flat},
		{"plane", renderer.PlaneMesh(), false, func(mgl32.Vec3) (mgl32.Vec3, bool) { return mgl32.Vec3{0, 1, 0}, true }},
		{"sphere", renderer.SphereMesh(24, 12), true, func(p mgl32.Vec3) (mgl32.Vec3, bool) { return p, true }},
		{"coarse sphere", renderer.SphereMesh(1, 1), true, func(p mgl32.Vec3) (mgl32.Vec3, bool) { return p, true }},
		{"capsule", renderer.CapsuleMesh(capR, 16, 6), true, func(p mgl32.Vec3) (mgl32.Vec3, bool) {
			c := mgl32.Vec3{0, max(-(1 - capR), min(1-capR, p[1])), 0}
			return p.Sub(c).Mul(1 / capR), true
		}},
		{"cylinder", renderer.CylinderMesh(20), true, func(p mgl32.Vec3) (mgl32.Vec3, bool) {
			if math.Abs(float64(p[1])) > 1-eps {
				return mgl32.Vec3{}, false // a cap or its rim: flat or a crease
			}
			return mgl32.Vec3{p[0], 0, p[2]}, true
		}},
	}
}

// TestPrimitiveWinding checks every primitive mesh against its geometry:
// indices in range, every vertex within [−1, 1]³, every normal unit
// length and the true surface's outward normal where it is smooth, every
// triangle counter-clockwise seen from outside (its face normal points
// the way its vertices' normals do, and away from the centre on a convex
// mesh), and the closed ones watertight with consistent winding (each
// edge, with vertices welded by position, used once in each direction).
func TestPrimitiveWinding(t *testing.T) {
	for _, pr := range primitives() {
		t.Run(pr.name, func(t *testing.T) {
			if err := checkPrimitive(pr); err != nil {
				t.Fatal(err)
			}
		})
	}
	// The check notices an inside-out mesh.
	bad := renderer.SphereMesh(8, 4)
	for i := 0; i+2 < len(bad.Indices); i += 3 {
		bad.Indices[i+1], bad.Indices[i+2] = bad.Indices[i+2], bad.Indices[i+1]
	}
	if err := checkPrimitive(primitive{"reversed", bad, true, func(p mgl32.Vec3) (mgl32.Vec3, bool) { return p, true }}); err == nil {
		t.Error("a sphere wound clockwise passed the check")
	}
}

func checkPrimitive(pr primitive) error {
	p := pr.part
	if len(p.Normals) != len(p.Positions) || len(p.UVs) != len(p.Positions) || len(p.Indices)%3 != 0 || len(p.Indices) == 0 {
		return fmt.Errorf("%d positions, %d normals, %d UVs, %d indices", len(p.Positions), len(p.Normals), len(p.UVs), len(p.Indices))
	}
	for i, v := range p.Positions {
		for _, c := range v {
			if c < -1-1e-6 || c > 1+1e-6 {
				return fmt.Errorf("vertex %d at %v is outside [−1, 1]³", i, v)
			}
		}
		n := p.Normals[i]
		if math.Abs(float64(n.Len())-1) > 1e-5 {
			return fmt.Errorf("normal %d is %v, not unit", i, n)
		}
		if want, ok := pr.surface(v); ok && n.Sub(want).Len() > 1e-4 {
			return fmt.Errorf("normal %d at %v is %v, want %v", i, v, n, want)
		}
		if uv := p.UVs[i]; uv[0] < 0 || uv[0] > 1 || uv[1] < 0 || uv[1] > 1 {
			return fmt.Errorf("UV %d is %v", i, uv)
		}
	}
	type key [3]int32
	weld := func(v mgl32.Vec3) key {
		return key{int32(math.Round(float64(v[0]) * 1e4)), int32(math.Round(float64(v[1]) * 1e4)), int32(math.Round(float64(v[2]) * 1e4))}
	}
	edges := make(map[[2]key]int)
	for i := 0; i < len(p.Indices); i += 3 {
		ix := p.Indices[i : i+3]
		for _, k := range ix {
			if int(k) >= len(p.Positions) {
				return fmt.Errorf("index %d past %d positions", k, len(p.Positions))
			}
		}
		a, b, c := p.Positions[ix[0]], p.Positions[ix[1]], p.Positions[ix[2]]
		f := b.Sub(a).Cross(c.Sub(a))
		if f.Len() < 1e-9 {
			return fmt.Errorf("triangle %d %v has no area", i/3, ix)
		}
		ns := p.Normals[ix[0]].Add(p.Normals[ix[1]]).Add(p.Normals[ix[2]])
		if f.Dot(ns) <= 0 {
			return fmt.Errorf("triangle %d (%v %v %v) is wound against its normals %v", i/3, a, b, c, ns)
		}
		if pr.closed && f.Dot(a.Add(b).Add(c)) <= 0 {
			return fmt.Errorf("triangle %d (%v %v %v) faces the centre", i/3, a, b, c)
		}
		ka, kb, kc := weld(a), weld(b), weld(c)
		edges[[2]key{ka, kb}]++
		edges[[2]key{kb, kc}]++
		edges[[2]key{kc, ka}]++
	}
	if pr.closed {
		for e, n := range edges {
			if n != 1 || edges[[2]key{e[1], e[0]}] != 1 {
				return fmt.Errorf("edge %v is used %d times and %d times reversed: not closed or wound inconsistently", e, n, edges[[2]key{e[1], e[0]}])
			}
		}
	}
	return nil
}
