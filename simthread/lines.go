package simthread

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"
)

// Lines are the line segments a world draws in its scene, in world
// space: orbits, trails, rays, grids, boxes, tethers between bodies.
// They are published with the Snapshot as Bodies are, and drawn by the
// renderer after the bodies, depth-tested against them, each segment a
// constant width in pixels however far away it is, with round ends (so
// that the segments of a polyline join).
//
// A world writes all its lines in every Snapshot: Reset, then the
// segments. Their memory is the snapshot slot's and is reused: once every
// slot has held the most segments, writing them allocates nothing. The
// zero Lines is empty.
//
// An end of a segment may be tied to a body (LineEnd.OnBody): it is then
// drawn where the renderer draws that body, interpolated, plus an offset.
// Free ends (world points) are interpolated vertex by vertex between the
// two snapshots around the display time when both hold as many segments
// (segment i of one is segment i of the other, as body i is); otherwise,
// and in extrapolate mode, they are the newer snapshot's. A trail that
// shifts its points by one each tick therefore slides along its path, and
// ends with a segment tied to its body.
type Lines struct {
	// Segs are the segments to draw. Append with the methods, which reuse
	// the slot's memory.
	Segs []LineSeg
}

// LineSeg is one segment of Lines, from A to B.
type LineSeg struct {
	A, B LineEnd
	// Width is the segment's width in pixels of the frame, whatever its
	// distance; 0 is 1.
	Width float32
	// Color is sRGB with alpha, 0xAABBGGRR as RGB and RGBA make it; 0 is
	// drawn white (opaque).
	Color uint32
	// Ray makes B.Pos a direction: the segment runs from A along it
	// without end (to the far clip plane); B's OnBody is ignored.
	Ray bool
}

// LineEnd is an end of a segment: the world point Pos, or, with OnBody,
// the point Pos away (along the world's axes) from body Body's position as
// the renderer draws it, interpolated. Body is an index in the snapshot's
// Bodies; a segment tied to a body the snapshot does not have is not
// drawn. The zero LineEnd is the world's origin.
type LineEnd struct {
	Pos    mgl32.Vec3
	Body   int
	OnBody bool
}

// ellipseSegments is how many segments an Ellipse or a Circle is drawn
// with: a circle 100 m across strays from its chords by 3 cm.
const ellipseSegments = 128

// unitCircle holds cos and sin of ellipseSegments+1 angles from 0 to 2π,
// the last equal to the first, so every ellipse closes exactly.
var unitCircle = func() (c [ellipseSegments + 1][2]float32) {
	for i := range ellipseSegments {
		s, co := math.Sincos(2 * math.Pi * float64(i) / ellipseSegments)
		c[i] = [2]float32{float32(co), float32(s)}
	}
	c[ellipseSegments] = c[0]
	return c
}()

// Reset empties the lines, keeping their memory for the segments added
// next.
func (l *Lines) Reset() { l.Segs = l.Segs[:0] }

// Segment adds the segment from a to b, width pixels wide in color.
func (l *Lines) Segment(a, b LineEnd, width float32, color uint32) {
	l.Segs = append(l.Segs, LineSeg{A: a, B: b, Width: width, Color: color})
}

// Polyline adds a segment between each two consecutive points of pts
// (len(pts)−1 segments; pts itself is not kept). Repeat the first point
// at the end to close it.
func (l *Lines) Polyline(pts []mgl32.Vec3, width float32, color uint32) {
	for i := 1; i < len(pts); i++ {
		l.Segs = append(l.Segs, LineSeg{A: LineEnd{Pos: pts[i-1]}, B: LineEnd{Pos: pts[i]}, Width: width, Color: color})
	}
}

// Ellipse adds the closed curve center + a·cos t + b·sin t, a and b its
// semi-axes (at right angles for an ellipse; any two vectors draw the
// parallelogram's inscribed ellipse), as 128 segments. An orbit about a
// focus f with semi-major axis vector a and eccentricity e has its
// center at f − e·a.
func (l *Lines) Ellipse(center, a, b mgl32.Vec3, width float32, color uint32) {
	prev := center.Add(a)
	for i := 1; i <= ellipseSegments; i++ {
		c := unitCircle[i]
		p := center.Add(a.Mul(c[0])).Add(b.Mul(c[1]))
		l.Segs = append(l.Segs, LineSeg{A: LineEnd{Pos: prev}, B: LineEnd{Pos: p}, Width: width, Color: color})
		prev = p
	}
}

// Circle adds the circle of radius about center in the plane at right
// angles to normal (a zero normal is +y: a circle on the ground), as 128
// segments.
func (l *Lines) Circle(center, normal mgl32.Vec3, radius, width float32, color uint32) {
	n := normal
	if n.Len() == 0 {
		n = mgl32.Vec3{0, 1, 0}
	}
	n = n.Normalize()
	// Any unit vector at right angles to n, from the axis n is least
	// along.
	axis := mgl32.Vec3{1, 0, 0}
	if math.Abs(float64(n[0])) > 0.7 {
		axis = mgl32.Vec3{0, 1, 0}
	}
	u := n.Cross(axis).Normalize()
	v := n.Cross(u)
	l.Ellipse(center, u.Mul(radius), v.Mul(radius), width, color)
}

// Ray adds the ray from from along dir, without end: it is drawn to the
// far clip plane (an aim line, a velocity from a body).
func (l *Lines) Ray(from LineEnd, dir mgl32.Vec3, width float32, color uint32) {
	l.Segs = append(l.Segs, LineSeg{A: from, B: LineEnd{Pos: dir}, Width: width, Color: color, Ray: true})
}

// Grid adds the lines of a grid of nu×nv cells, each u by v, from corner:
// nu+1 lines along v and nv+1 along u (nothing if either count is under
// 1). A floor grid of 1 m cells 20 m wide about the origin is
// Grid({-10, 0, -10}, {1, 0, 0}, {0, 0, 1}, 20, 20, ...).
func (l *Lines) Grid(corner, u, v mgl32.Vec3, nu, nv int, width float32, color uint32) {
	if nu < 1 || nv < 1 {
		return
	}
	along := func(from, d mgl32.Vec3) {
		l.Segs = append(l.Segs, LineSeg{A: LineEnd{Pos: from}, B: LineEnd{Pos: from.Add(d)}, Width: width, Color: color})
	}
	for i := range nu + 1 {
		along(corner.Add(u.Mul(float32(i))), v.Mul(float32(nv)))
	}
	for j := range nv + 1 {
		along(corner.Add(v.Mul(float32(j))), u.Mul(float32(nu)))
	}
}

// Box adds the 12 edges of the box between corners lo and hi, its faces
// along the world's axes.
func (l *Lines) Box(lo, hi mgl32.Vec3, width float32, color uint32) {
	corner := func(i int) LineEnd {
		p := lo
		for k := range 3 {
			if i>>k&1 != 0 {
				p[k] = hi[k]
			}
		}
		return LineEnd{Pos: p}
	}
	for i := range 8 {
		for k := range 3 {
			if j := i | 1<<k; j != i {
				l.Segs = append(l.Segs, LineSeg{A: corner(i), B: corner(j), Width: width, Color: color})
			}
		}
	}
}
