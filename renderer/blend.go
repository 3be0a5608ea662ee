package renderer

import (
	"slices"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/simthread"
)

// blendEntry is one body's blended part: item's part drawn for the body
// whose pose is at pose, through vertex array blendVAOs[vao], ordered by
// the distance of anchor, where the body puts the part's centre.
type blendEntry struct {
	item, pose, vao int32
	anchor          mgl32.Vec3
	dist            float32 // from the eye, squared, at the last sort
}

// anchor sets slot s's draw order up once its items are grouped: the
// opaque items, drawn in order, then an entry for each body's blended
// part, with the world point where the body puts the part's centre
// (from the snapshot, not interpolated: it only orders the entries). It
// allocates only when the snapshot has more items or blended bodies than
// any before.
func (b *bodyPass) anchor(s *slot, bodies []simthread.Body) {
	s.drawSeq = slices.Grow(s.drawSeq[:0], len(s.items))
	s.blend = s.blend[:0]
	for j := range s.items {
		it := &s.items[j]
		if !b.materials[it.mat].blend {
			s.drawSeq = append(s.drawSeq, int32(j))
			continue
		}
		c := b.parts[it.part].centre
		for pose := it.first; pose < it.first+it.count; pose++ {
			i := int(pose)
			if !s.sorted {
				i = int(s.perm[i])
			}
			body := &bodies[i]
			rot, scale := body.Rot, body.Scale
			if rot == (mgl32.Quat{}) {
				rot = mgl32.QuatIdent() // a zero Rot is the identity
			}
			if scale == (mgl32.Vec3{}) {
				scale = mgl32.Vec3{1, 1, 1} // a zero Scale is 1
			}
			p := body.Pos.Add(rot.Normalize().Rotate(mgl32.Vec3{c[0] * scale[0], c[1] * scale[1], c[2] * scale[2]}))
			s.blend = append(s.blend, blendEntry{item: int32(j), pose: pose, vao: int32(len(s.blend)), anchor: p})
		}
	}
	for len(b.blendVAOs) < len(s.blend) {
		b.blendVAOs = append(b.blendVAOs, itemVAO{vao: newVertexArray()})
	}
}

// drawOrder sorts slot s's blended entries for eye, farthest first, and
// returns them: an insertion sort, as the order changes little from frame
// to frame, so that it costs about one pass once sorted. It does not
// allocate.
func (b *bodyPass) drawOrder(s *slot, eye mgl32.Vec3) []blendEntry {
	e := s.blend
	for i := range e {
		e[i].dist = e[i].anchor.Sub(eye).LenSqr()
	}
	for i := 1; i < len(e); i++ {
		x := e[i]
		k := i
		for k > 0 && e[k-1].dist < x.dist {
			e[k] = e[k-1]
			k--
		}
		e[k] = x
	}
	return e
}

// boxCentre returns the centre of the bounding box of pos (not empty).
func boxCentre(pos []mgl32.Vec3) mgl32.Vec3 {
	lo, hi := pos[0], pos[0]
	for _, p := range pos[1:] {
		for c := range 3 {
			lo[c] = min(lo[c], p[c])
			hi[c] = max(hi[c], p[c])
		}
	}
	return lo.Add(hi).Mul(0.5)
}
