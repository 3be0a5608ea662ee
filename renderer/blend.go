package renderer

import (
	"slices"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/simthread"
)

// anchor sets slot s's draw order up once its items are grouped: the
// opaque items in order, then the blended ones, each with its anchor, the
// world point where the first body of its group puts its part's centre
// (from the snapshot, not interpolated: it only orders the items). It
// allocates only when the snapshot has more items than any before.
func (b *bodyPass) anchor(s *slot, bodies []simthread.Body) {
	s.drawSeq = slices.Grow(s.drawSeq[:0], len(s.items))
	s.anchors = s.anchors[:0]
	for j := range s.items {
		if !b.materials[s.items[j].mat].blend {
			s.drawSeq = append(s.drawSeq, int32(j))
		}
	}
	s.opaque = len(s.drawSeq)
	for j := range s.items {
		it := &s.items[j]
		if !b.materials[it.mat].blend {
			continue
		}
		i := int(it.first)
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
		c := b.parts[it.part].centre
		p := body.Pos.Add(rot.Normalize().Rotate(mgl32.Vec3{c[0] * scale[0], c[1] * scale[1], c[2] * scale[2]}))
		s.drawSeq = append(s.drawSeq, int32(j))
		s.anchors = append(s.anchors, p)
	}
}

// drawOrder returns slot s's items in the order to draw them from eye:
// the opaque ones, then the blended ones, farthest anchor first (an
// insertion sort: blended items are few, and their order changes little
// from frame to frame). It does not allocate.
func (b *bodyPass) drawOrder(s *slot, eye mgl32.Vec3) []int32 {
	seq, anchors := s.drawSeq[s.opaque:], s.anchors
	for i := 1; i < len(seq); i++ {
		j, a := seq[i], anchors[i]
		d := a.Sub(eye).LenSqr()
		k := i
		for k > 0 && anchors[k-1].Sub(eye).LenSqr() < d {
			seq[k], anchors[k] = seq[k-1], anchors[k-1]
			k--
		}
		seq[k], anchors[k] = j, a
	}
	return s.drawSeq
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
