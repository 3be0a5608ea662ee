package simthread_test

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/simthread"
)

// lamps is a world of a body on a circle that carries a lamp, with a
// turning sun and a row of lamps whose colours change every tick.
type lamps struct {
	tick  uint64
	naive bool // build the points as a new slice each tick (allocates: the check must see it)
}

func (w *lamps) Step(tick uint64, dt float64, _ []simthread.Input) { w.tick = tick }

func (w *lamps) Snapshot(dst *simthread.Snapshot) {
	s, c := math.Sincos(float64(w.tick) * 0.05)
	dst.Bodies = append(dst.Bodies[:0], simthread.NewBody(mgl32.Vec3{float32(3 * c), 1, float32(3 * s)}))
	l := &dst.Lights
	l.Reset()
	if w.naive {
		l.Points = nil
	}
	l.Sun = simthread.DirLight{Dir: mgl32.Vec3{float32(c), 1, float32(s)}, Color: mgl32.Vec3{1, 0.9, 0.8}, Intensity: 1.5}
	l.SkyDim = 0.5
	l.Points = append(l.Points, simthread.PointLight{Pos: mgl32.Vec3{0, 0.5, 0}, OnBody: true, Intensity: 4, Range: 10})
	for i := range simthread.MaxPointLights - 1 {
		g := float32((w.tick+uint64(i))%10) / 10
		l.Points = append(l.Points, simthread.PointLight{Pos: mgl32.Vec3{float32(i) * 2, 3, -4}, Color: mgl32.Vec3{1, g, 0}, Intensity: 2})
	}
}

// TestLightsDoNotAllocate: a world that writes a turning sun, a lamp tied
// to its body and a row of changing lamps into every snapshot allocates
// nothing per tick once the slots are warm, and the snapshot holds what it
// wrote. A world that drops the slot's memory each tick is counted.
func TestLightsDoNotAllocate(t *testing.T) {
	w := &lamps{}
	a, snap := publishAllocs(t, w)
	if a != 0 {
		t.Fatalf("a tick that writes lights allocates %.1f times", a)
	}
	l := &snap.Lights
	if len(l.Points) != simthread.MaxPointLights || !l.Points[0].OnBody || l.Points[0].Range != 10 || l.SkyDim != 0.5 || l.Sun.Intensity != 1.5 {
		t.Fatalf("lights %+v", *l)
	}
	if a, _ := publishAllocs(t, &lamps{naive: true}); a < 1 {
		t.Errorf("points rebuilt each tick allocated %.1f times a tick: the measurement misses allocations", a)
	}
}

// TestLightsReset: Reset is the zero Lights, the default look, with the
// memory kept.
func TestLightsReset(t *testing.T) {
	l := simthread.Lights{Sun: simthread.DefaultSun(), SkyDim: 1, Points: make([]simthread.PointLight, 3, 5)}
	l.Reset()
	if l.Sun != (simthread.DirLight{}) || l.SkyDim != 0 || len(l.Points) != 0 || cap(l.Points) != 5 {
		t.Errorf("after Reset: %+v (cap %d)", l, cap(l.Points))
	}
}
