package renderer

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"
)

// tangents returns a tangent per vertex for normal mapping, for a mesh
// whose file gives none, in glTF's convention: XYZ along increasing u, W
// the sign that makes W·(normal × tangent) point up the texture image
// (towards decreasing v, glTF's v growing downwards), as MikkTSpace
// computes it with a glTF viewer's flipped v.
//
// The algorithm is Lengyel's (2001), not MikkTSpace: each triangle's
// tangent and bitangent are solved from its UV edges and added,
// unnormalised (so weighted by its area in UV space), to its three
// vertices; each vertex's sum is made orthogonal to its normal
// (Gram-Schmidt) and normalised, and W is the sign of the bitangent sum
// against normal × tangent. Where the triangles about a vertex agree
// (one UV chart, no mirrored UVs) it gives MikkTSpace's directions up to
// the weighting; at UV seams that share vertices, or vertices between
// mirrored charts, it can differ, and a normal map baked against
// MikkTSpace then shows faint seams there. A vertex with no usable UVs
// gets any unit tangent orthogonal to its normal. uvs nil gives zero
// tangents, which leave the normal unperturbed.
func tangents(pos, nrm []mgl32.Vec3, uvs []mgl32.Vec2, idx []uint32) []mgl32.Vec4 {
	out := make([]mgl32.Vec4, len(pos))
	if uvs == nil || len(uvs) != len(pos) {
		return out
	}
	tan := make([]mgl32.Vec3, len(pos))
	bit := make([]mgl32.Vec3, len(pos))
	for k := 0; k+2 < len(idx); k += 3 {
		i0, i1, i2 := idx[k], idx[k+1], idx[k+2]
		e1, e2 := pos[i1].Sub(pos[i0]), pos[i2].Sub(pos[i0])
		d1, d2 := uvs[i1].Sub(uvs[i0]), uvs[i2].Sub(uvs[i0])
		det := float64(d1[0])*float64(d2[1]) - float64(d2[0])*float64(d1[1])
		if det == 0 || math.IsNaN(det) || math.IsInf(det, 0) {
			continue
		}
		r := float32(1 / det)
		t := e1.Mul(d2[1]).Sub(e2.Mul(d1[1])).Mul(r)
		b := e2.Mul(d1[0]).Sub(e1.Mul(d2[0])).Mul(r)
		// |det| weights the triangle by its UV area: the sums are of
		// the unnormalised edges' solution times that area.
		w := float32(math.Abs(det))
		t, b = t.Mul(w), b.Mul(w)
		for _, i := range [3]uint32{i0, i1, i2} {
			tan[i] = tan[i].Add(t)
			bit[i] = bit[i].Add(b)
		}
	}
	for i := range pos {
		n := mgl32.Vec3{0, 0, 1}
		if i < len(nrm) && nrm[i].Len() > 0 {
			n = nrm[i].Normalize()
		}
		t := tan[i].Sub(n.Mul(n.Dot(tan[i])))
		if l := t.Len(); l > 1e-20 && finite(l) {
			t = t.Mul(1 / l)
		} else {
			t = anyPerpendicular(n)
		}
		// bit is dP/dv; up the image is −dP/dv.
		w := float32(1)
		if n.Cross(t).Dot(bit[i]) > 0 {
			w = -1
		}
		out[i] = t.Vec4(w)
	}
	return out
}

// anyPerpendicular returns a unit vector orthogonal to the unit vector n.
func anyPerpendicular(n mgl32.Vec3) mgl32.Vec3 {
	a := mgl32.Vec3{1, 0, 0}
	if math.Abs(float64(n[0])) > 0.9 {
		a = mgl32.Vec3{0, 1, 0}
	}
	return a.Sub(n.Mul(n.Dot(a))).Normalize()
}
