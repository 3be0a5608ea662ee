package simthread_test

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/simthread"
)

// orbiter is a world of a body on a circle that publishes its orbit, a
// trail of its last 16 positions ending in a segment tied to it, a grid and a
// box as lines.
type orbiter struct {
	tick  uint64
	trail []mgl32.Vec3
	naive bool // build the trail as a new slice each tick (allocates: the check must see it)
}

func (w *orbiter) pos(tick uint64) mgl32.Vec3 {
	s, c := math.Sincos(float64(tick) * 0.05)
	return mgl32.Vec3{float32(3 * c), 1, float32(3 * s)}
}

func (w *orbiter) Step(tick uint64, dt float64, _ []simthread.Input) {
	w.tick = tick
	if w.naive {
		w.trail = append([]mgl32.Vec3(nil), w.trail...)
	}
	copy(w.trail, w.trail[1:])
	w.trail[len(w.trail)-1] = w.pos(tick - 1) // up to the tick before: the tied segment ends it
}

func (w *orbiter) Snapshot(dst *simthread.Snapshot) {
	dst.Bodies = append(dst.Bodies[:0], simthread.NewBody(w.pos(w.tick)))
	l := &dst.Lines
	l.Reset()
	l.Circle(mgl32.Vec3{0, 1, 0}, mgl32.Vec3{}, 3, 2, simthread.RGB(80, 80, 200))
	l.Polyline(w.trail, 3, simthread.RGB(255, 200, 0))
	if n := len(w.trail); n > 0 {
		l.Segment(simthread.LineEnd{Pos: w.trail[n-1]}, simthread.LineEnd{OnBody: true, Body: 0}, 3, simthread.RGB(255, 200, 0))
	}
	l.Grid(mgl32.Vec3{-5, 0, -5}, mgl32.Vec3{1, 0, 0}, mgl32.Vec3{0, 0, 1}, 10, 10, 1, 0)
	l.Box(mgl32.Vec3{-1, 0, -1}, mgl32.Vec3{1, 2, 1}, 1, 0)
	l.Ray(simthread.LineEnd{OnBody: true, Body: 0}, mgl32.Vec3{0, 1, 0}, 1, 0)
}

// TestLinesDoNotAllocate: a world that writes its orbit, a moving trail
// tied to its body, a grid, a box and a ray into every snapshot's lines
// allocates nothing per tick once the slots are warm, and the snapshot
// holds what it wrote. A world that copies its trail each tick is counted.
func TestLinesDoNotAllocate(t *testing.T) {
	w := &orbiter{trail: make([]mgl32.Vec3, 16)}
	a, snap := publishAllocs(t, w)
	if a != 0 {
		t.Fatalf("a tick that writes lines allocates %.1f times", a)
	}
	segs := snap.Lines.Segs
	want := 128 + 15 + 1 + 22 + 12 + 1
	if len(segs) != want {
		t.Fatalf("%d segments, want %d", len(segs), want)
	}
	tie := segs[128+15]
	if tie.A.OnBody || !tie.B.OnBody || tie.B.Body != 0 || tie.A.Pos != w.pos(w.tick-1) || tie.Width != 3 {
		t.Errorf("tied segment %+v", tie)
	}
	if r := segs[len(segs)-1]; !r.Ray || !r.A.OnBody || r.B.Pos != (mgl32.Vec3{0, 1, 0}) {
		t.Errorf("ray %+v", r)
	}
	if a, _ := publishAllocs(t, &orbiter{trail: make([]mgl32.Vec3, 16), naive: true}); a < 1 {
		t.Errorf("a trail copied each tick allocated %.1f times a tick: the measurement misses allocations", a)
	}
}

// TestLineShapes checks the shapes' segments against their definitions:
// a circle's points on the circle in the plane at right angles to its
// normal, closed; an ellipse's through center ± a and ± b; a polyline's
// chain; a grid's lines; a box's 12 edges, each along one axis.
func TestLineShapes(t *testing.T) {
	near := func(a, b mgl32.Vec3) bool { return a.Sub(b).Len() < 1e-5 }
	var l simthread.Lines
	c, n := mgl32.Vec3{1, 2, 3}, mgl32.Vec3{1, 1, 0}
	l.Circle(c, n, 2, 0, 0)
	if len(l.Segs) != 128 {
		t.Fatalf("circle of %d segments", len(l.Segs))
	}
	for i, s := range l.Segs {
		p := s.A.Pos.Sub(c)
		if d := p.Len(); math.Abs(float64(d-2)) > 1e-5 || math.Abs(float64(p.Dot(n.Normalize()))) > 1e-5 {
			t.Fatalf("circle point %d at %v: %v from the centre, %v off the plane", i, s.A.Pos, d, p.Dot(n.Normalize()))
		}
		if next := l.Segs[(i+1)%128].A.Pos; s.B.Pos != next {
			t.Fatalf("circle segment %d ends at %v, the next starts at %v", i, s.B.Pos, next)
		}
	}
	l.Reset()
	if len(l.Segs) != 0 {
		t.Fatal("Reset left segments")
	}
	a, b := mgl32.Vec3{4, 0, 0}, mgl32.Vec3{0, 0, 1}
	l.Ellipse(c, a, b, 0, 0)
	for _, k := range []int{0, 32, 64, 96} {
		want := [4]mgl32.Vec3{c.Add(a), c.Add(b), c.Sub(a), c.Sub(b)}[k/32]
		if !near(l.Segs[k].A.Pos, want) {
			t.Errorf("ellipse point %d at %v, want %v", k, l.Segs[k].A.Pos, want)
		}
	}
	if l.Segs[127].B.Pos != l.Segs[0].A.Pos {
		t.Error("the ellipse is not closed")
	}

	l.Reset()
	pts := []mgl32.Vec3{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}}
	l.Polyline(pts, 2, 5)
	l.Polyline(pts[:1], 2, 5) // one point: no segment
	if len(l.Segs) != 2 || l.Segs[0].B.Pos != pts[1] || l.Segs[1].A.Pos != pts[1] || l.Segs[1].B.Pos != pts[2] || l.Segs[1].Color != 5 {
		t.Errorf("polyline %+v", l.Segs)
	}

	l.Reset()
	l.Grid(mgl32.Vec3{0, 0, 0}, mgl32.Vec3{1, 0, 0}, mgl32.Vec3{0, 0, 2}, 3, 2, 1, 0)
	l.Grid(mgl32.Vec3{}, mgl32.Vec3{1, 0, 0}, mgl32.Vec3{0, 0, 1}, 0, 5, 1, 0) // no cells
	if len(l.Segs) != 4+3 {
		t.Fatalf("grid of %d lines, want 7", len(l.Segs))
	}
	if s := l.Segs[3]; s.A.Pos != (mgl32.Vec3{3, 0, 0}) || s.B.Pos != (mgl32.Vec3{3, 0, 4}) {
		t.Errorf("the grid's last line along v: %v to %v", s.A.Pos, s.B.Pos)
	}
	if s := l.Segs[6]; s.A.Pos != (mgl32.Vec3{0, 0, 4}) || s.B.Pos != (mgl32.Vec3{3, 0, 4}) {
		t.Errorf("the grid's last line along u: %v to %v", s.A.Pos, s.B.Pos)
	}

	l.Reset()
	lo, hi := mgl32.Vec3{-1, -2, -3}, mgl32.Vec3{1, 2, 3}
	l.Box(lo, hi, 1, 0)
	if len(l.Segs) != 12 {
		t.Fatalf("box of %d edges", len(l.Segs))
	}
	seen := map[[2]mgl32.Vec3]bool{}
	for _, s := range l.Segs {
		d := s.B.Pos.Sub(s.A.Pos)
		axes := 0
		for k := range 3 {
			if d[k] != 0 {
				axes++
				if d[k] != hi[k]-lo[k] {
					t.Errorf("edge %v to %v is not a whole edge", s.A.Pos, s.B.Pos)
				}
			}
			for _, p := range []mgl32.Vec3{s.A.Pos, s.B.Pos} {
				if p[k] != lo[k] && p[k] != hi[k] {
					t.Errorf("edge end %v is not a corner", p)
				}
			}
		}
		if axes != 1 || seen[[2]mgl32.Vec3{s.A.Pos, s.B.Pos}] {
			t.Errorf("edge %v to %v: along %d axes, or twice", s.A.Pos, s.B.Pos, axes)
		}
		seen[[2]mgl32.Vec3{s.A.Pos, s.B.Pos}] = true
	}
}

// BenchmarkLinesPublish measures writing a world's lines into a warm
// snapshot: ten orbits of 128 segments and a 64-point trail tied to a
// body, 1 344 segments. 0 allocs/op.
func BenchmarkLinesPublish(b *testing.B) {
	var dst simthread.Snapshot
	trail := make([]mgl32.Vec3, 64)
	write := func() {
		l := &dst.Lines
		l.Reset()
		for i := range 10 {
			r := float32(i + 1)
			l.Ellipse(mgl32.Vec3{}, mgl32.Vec3{r, 0, 0}, mgl32.Vec3{0, 0, 0.8 * r}, 1, 0)
		}
		l.Polyline(trail, 2, 0)
		l.Segment(simthread.LineEnd{Pos: trail[63]}, simthread.LineEnd{OnBody: true}, 2, 0)
	}
	write()
	b.ReportAllocs()
	for b.Loop() {
		write()
	}
}
