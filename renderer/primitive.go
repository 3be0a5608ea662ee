package renderer

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"
)

// Primitive meshes, in the default cube's frame: each fits [−1, 1]³, so at
// the same Body.Scale it is drawn as large as the cube (Scale is its
// half-extent, or radius). Every triangle is counter-clockwise seen from
// outside, and every normal is the unit outward normal of the true
// surface (smooth on curved surfaces, flat on faces and caps), so back-face
// culling keeps the outside. UVs run from (0, 0) at the top left. Pass the
// result to Registry.AddMesh (with Part.Material set, if wanted).

// BoxMesh returns the cube [−1, 1]³ with flat faces: mesh 0's shape, as a
// part to register with a material of its own.
func BoxMesh() Part { return cube() }

// PlaneMesh returns the square [−1, 1]² in the plane y = 0, facing +y
// (seen from above; culled from below), with its texture's top at −z.
func PlaneMesh() Part {
	return Part{
		Positions: []mgl32.Vec3{{-1, 0, -1}, {-1, 0, 1}, {1, 0, 1}, {1, 0, -1}},
		Normals:   []mgl32.Vec3{{0, 1, 0}, {0, 1, 0}, {0, 1, 0}, {0, 1, 0}},
		UVs:       []mgl32.Vec2{{0, 0}, {0, 1}, {1, 1}, {1, 0}},
		Indices:   []uint32{0, 1, 2, 0, 2, 3},
	}
}

// SphereMesh returns the UV sphere of radius 1 about the origin, with
// segments meridians (at least 3; fewer count as 3) and rings bands from
// pole to pole (at least 2). 32 and 16 look round at any size on screen.
func SphereMesh(segments, rings int) Part {
	return lathe(max(segments, 3), sphereProfile(max(rings, 2)))
}

// CapsuleMesh returns a capsule along y: a cylinder of the given radius
// (in (0, 1]; out of range counts as 0.5) between two hemispheres, the
// whole spanning y ∈ [−1, 1]. segments and rings are as SphereMesh's (rings
// for each hemisphere: at least 1).
func CapsuleMesh(radius float32, segments, rings int) Part {
	if !(radius > 0 && radius <= 1) {
		radius = 0.5
	}
	rings = max(rings, 1)
	var prof []profilePoint
	half := 1 - radius            // the cylinder's half-length
	for i := 0; i <= rings; i++ { // the top hemisphere, from the pole down
		a := float64(i) / float64(rings) * math.Pi / 2
		s, c := math.Sincos(a)
		prof = append(prof, profilePoint{r: radius * float32(s), y: half + radius*float32(c), nr: float32(s), ny: float32(c)})
	}
	for i := 0; i <= rings; i++ { // the bottom one, from the equator down
		a := math.Pi/2 + float64(i)/float64(rings)*math.Pi/2
		s, c := math.Sincos(a)
		prof = append(prof, profilePoint{r: radius * float32(s), y: -half + radius*float32(c), nr: float32(s), ny: float32(c)})
	}
	return lathe(max(segments, 3), prof)
}

// CylinderMesh returns the cylinder of radius 1 along y, y ∈ [−1, 1],
// with flat caps, segments (at least 3) facets round.
func CylinderMesh(segments int) Part {
	prof := []profilePoint{
		{r: 0, y: 1, nr: 0, ny: 1}, {r: 1, y: 1, nr: 0, ny: 1}, // top cap
		{r: 1, y: 1, nr: 1, ny: 0}, {r: 1, y: -1, nr: 1, ny: 0}, // side
		{r: 1, y: -1, nr: 0, ny: -1}, {r: 0, y: -1, nr: 0, ny: -1}, // bottom cap
	}
	return lathe(max(segments, 3), prof, 1, 3) // the creases: no band between the cap's rim and the side's
}

// profilePoint is a point of a surface of revolution's profile: radius r
// from the y axis at height y, and the outward normal there, (nr, ny) in
// the profile's plane.
type profilePoint struct{ r, y, nr, ny float32 }

// sphereProfile is the unit sphere's profile from the north pole down.
func sphereProfile(rings int) []profilePoint {
	prof := make([]profilePoint, 0, rings+1)
	for i := 0; i <= rings; i++ {
		s, c := math.Sincos(float64(i) / float64(rings) * math.Pi)
		prof = append(prof, profilePoint{r: float32(s), y: float32(c), nr: float32(s), ny: float32(c)})
	}
	return prof
}

// lathe turns a profile, ordered from top to bottom, about the y axis in
// segments steps: a ring of segments+1 vertices per profile point (the
// seam is doubled so that u runs from 0 to 1), and a band of quads
// between consecutive points, except after the indices in breaks (where
// a point and the next are the same place with two normals: a crease).
// Bands of zero area (at a pole) are left out. Seen from outside, going
// down the profile and round in the direction of increasing angle
// (x towards −z) is counter-clockwise, which fixes the winding below.
func lathe(segments int, prof []profilePoint, breaks ...int) Part {
	var p Part
	ring := segments + 1
	for j, q := range prof {
		if math.Abs(float64(q.r)) < 1e-6 {
			q.r, prof[j].r = 0, 0 // a pole: sin π is not quite 0
		}
		v := float32(j) / float32(len(prof)-1)
		for i := 0; i < ring; i++ {
			a := 2 * math.Pi * float64(i) / float64(segments)
			if i == segments {
				a = 0 // the seam: exactly the first vertex's place
			}
			s, c := math.Sincos(a)
			cx, cz := float32(c), -float32(s)
			p.Positions = append(p.Positions, mgl32.Vec3{q.r * cx, q.y, q.r * cz})
			p.Normals = append(p.Normals, mgl32.Vec3{q.nr * cx, q.ny, q.nr * cz})
			p.UVs = append(p.UVs, mgl32.Vec2{float32(i) / float32(segments), v})
		}
	}
	crease := func(j int) bool {
		for _, b := range breaks {
			if b == j {
				return true
			}
		}
		return false
	}
	for j := 0; j+1 < len(prof); j++ {
		if crease(j) {
			continue
		}
		top, bot := prof[j], prof[j+1]
		for i := range segments {
			a := uint32(j*ring + i) // top ring, this angle
			b := a + uint32(ring)   // bottom ring
			// Going down (a→b) then round (b→b+1) is counter-clockwise
			// from outside.
			if top.r != 0 {
				p.Indices = append(p.Indices, a, b, a+1)
			}
			if bot.r != 0 {
				p.Indices = append(p.Indices, a+1, b, b+1)
			}
		}
	}
	return p
}
