package renderer

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"
)

// TorusMesh returns a ring about the y axis in the plane y = 0: a tube of
// radius minor (in (0, 0.5); out of range counts as 0.25) about a circle
// of radius 1 − minor, so that it fits [−1, 1]³ as the other primitives
// do (Scale is its outer radius; scale y apart to flatten it).
// segments (at least 3) is the facets round the ring, sides (at least 3)
// round the tube; 48 and 16 look round. Normals are smooth, pointing out
// of the tube; u runs round the ring, v round the tube from its top,
// outwards first.
func TorusMesh(minor float32, segments, sides int) Part {
	if !(minor > 0 && minor < 0.5) {
		minor = 0.25
	}
	sides = max(sides, 3)
	major := 1 - minor
	prof := make([]profilePoint, sides+1)
	for j := range prof {
		// From the top outwards and down: with the outward normal on the
		// left of the direction of travel, as lathe winds a profile.
		s, c := math.Sincos(math.Pi/2 - 2*math.Pi*float64(j%sides)/float64(sides))
		prof[j] = profilePoint{r: major + minor*float32(c), y: minor * float32(s), nr: float32(c), ny: float32(s)}
	}
	return lathe(max(segments, 3), prof)
}

// MeshBuilder combines parts, each placed by a transform of its own, into
// one mesh: a ship from a capsule, a cone and two boxes. Add transforms
// positions by the matrix, normals by its inverse transpose (so they stay
// at right angles to a surface scaled unevenly), tangents by the matrix
// with their handedness kept, and reverses the triangles of a part a
// matrix mirrors, so that they stay counter-clockwise seen from outside.
// Parts with the same Material and the same attributes (UVs, a second UV
// set, colours, tangents) are joined into one Part. The zero MeshBuilder
// is empty and ready.
type MeshBuilder struct {
	parts []Part
}

// Add adds p placed by m (an affine transform: its last row (0, 0, 0, 1)).
// A part with no normals gets the smooth normals the renderer would give
// it, before it is placed. p is copied. A singular m (one that flattens
// the part) has no inverse: its normals are then transformed by m's 3×3
// itself, and kept as they were where that leaves them no length.
func (b *MeshBuilder) Add(p Part, m mgl32.Mat4) {
	t := transformPart(p, m)
	for i := range b.parts {
		q := &b.parts[i]
		if q.Material == t.Material && sameAttributes(q, &t) {
			base := uint32(len(q.Positions))
			q.Positions = append(q.Positions, t.Positions...)
			q.Normals = append(q.Normals, t.Normals...)
			q.UVs = append(q.UVs, t.UVs...)
			q.UVs1 = append(q.UVs1, t.UVs1...)
			q.Colors = append(q.Colors, t.Colors...)
			q.Tangents = append(q.Tangents, t.Tangents...)
			for _, ix := range t.Indices {
				q.Indices = append(q.Indices, ix+base)
			}
			return
		}
	}
	b.parts = append(b.parts, t)
}

// Parts returns the combined parts, one per material and set of
// attributes, in the order their first part was added: pass them to
// Registry.AddMesh.
func (b *MeshBuilder) Parts() []Part { return b.parts }

func sameAttributes(a, b *Part) bool {
	return (a.UVs == nil) == (b.UVs == nil) && (a.UVs1 == nil) == (b.UVs1 == nil) &&
		(a.Colors == nil) == (b.Colors == nil) && (a.Tangents == nil) == (b.Tangents == nil)
}

// transformPart returns a copy of p placed by the affine transform m, as
// MeshBuilder.Add places it: positions by m, normals by the inverse
// transpose of its upper 3×3 (renormalised), tangents by m with their
// handedness sign kept true to the placed normal and bitangent, and the
// triangles reversed where m mirrors (its determinant is negative). A part
// with no normals gets its smooth normals first.
func transformPart(p Part, m mgl32.Mat4) Part {
	m3 := m.Mat3()
	det := m3.Det()
	nm := m3
	if det != 0 {
		nm = m3.Inv().Transpose()
	}
	normals := p.Normals
	if normals == nil && indicesIn(p.Indices, len(p.Positions)) {
		normals = smoothNormals(p.Positions, p.Indices)
	}
	out := Part{
		Positions: make([]mgl32.Vec3, len(p.Positions)),
		Normals:   make([]mgl32.Vec3, len(normals)),
		UVs:       append([]mgl32.Vec2(nil), p.UVs...),
		UVs1:      append([]mgl32.Vec2(nil), p.UVs1...),
		Colors:    append([]mgl32.Vec4(nil), p.Colors...),
		Indices:   append([]uint32(nil), p.Indices...),
		Material:  p.Material,
	}
	for i, v := range p.Positions {
		out.Positions[i] = m.Mul4x1(v.Vec4(1)).Vec3()
	}
	for i, n := range normals {
		out.Normals[i] = unitOr(nm.Mul3x1(n), n)
	}
	if normals == nil {
		out.Normals = nil // bad indices: AddMesh says so
	}
	if p.Tangents != nil {
		out.Tangents = make([]mgl32.Vec4, len(p.Tangents))
		for i, t := range p.Tangents {
			t3 := t.Vec3()
			placed := unitOr(m3.Mul3x1(t3), t3)
			w := t[3]
			if i < len(normals) {
				// The bitangent is w·(n × t); placed, it is m·(w·(n × t)),
				// and the sign must give it from the placed n and t.
				bit := m3.Mul3x1(normals[i].Cross(t3).Mul(w))
				if out.Normals[i].Cross(placed).Dot(bit) < 0 {
					w = -1
				} else {
					w = 1
				}
			}
			out.Tangents[i] = placed.Vec4(w)
		}
	}
	if det < 0 {
		for i := 0; i+2 < len(out.Indices); i += 3 {
			out.Indices[i+1], out.Indices[i+2] = out.Indices[i+2], out.Indices[i+1]
		}
	}
	if p.UVs == nil {
		out.UVs = nil
	}
	if p.UVs1 == nil {
		out.UVs1 = nil
	}
	if p.Colors == nil {
		out.Colors = nil
	}
	return out
}

func indicesIn(idx []uint32, n int) bool {
	for _, i := range idx {
		if int(i) >= n {
			return false
		}
	}
	return true
}

// unitOr returns v made unit, or fallback where v has no length.
func unitOr(v, fallback mgl32.Vec3) mgl32.Vec3 {
	l := v.Len()
	if !(l > 0) || math.IsInf(float64(l), 0) {
		return fallback
	}
	return v.Mul(1 / l)
}
