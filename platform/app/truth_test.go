package app

import (
	"math"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/platform/internal/instrument"
	"github.com/tickframe/tickframe/platform/internal/loop"
	"github.com/tickframe/tickframe/platform/internal/refworld"
	"github.com/tickframe/tickframe/platform/internal/sim"
	"github.com/tickframe/tickframe/simthread"
)

// speckWorld is the reference world with a speck published before its
// bodies, as issue 38's viewer did: its reference body is at index 1.
type speckWorld struct{ *refworld.World }

func (w speckWorld) Snapshot(dst *simthread.Snapshot) {
	w.World.Snapshot(dst)
	dst.Bodies = append(dst.Bodies, simthread.Body{})
	copy(dst.Bodies[1:], dst.Bodies)
	dst.Bodies[0] = simthread.Body{Pos: mgl32.Vec3{3, 40, -7}, Scale: simthread.UniformScale(0.01)}
}

// TestTruthOnAnyBody measures the same motion twice on a virtual clock,
// frame by frame: the reference world with its reference body at index 0
// (Tools.TruthBody 0), and the same world with a speck before it and
// Tools.TruthBody 1. The app's wiring must hand the meter that body, so
// every frame's position error is the same, bit for bit.
func TestTruthOnAnyBody(t *testing.T) {
	type run struct {
		a     *loop.App
		clock *sim.VirtualClock
		next  time.Duration
	}
	start := func(world simthread.World, body int) *run {
		set := Settings{Tools: Tools{Truth: refworld.RefPosition, TruthSpeed: refworld.RefSpeed, TruthBody: body}}
		clock := new(sim.VirtualClock)
		a, err := loop.NewHeadless(runtimeConfig(&Config{}, &set), world, clock, instrument.New(instruments(&set)))
		if err != nil {
			t.Fatal(err)
		}
		r := &run{a: a, clock: clock}
		r.next, _ = a.Sim().Wake()
		return r
	}
	w0, err := refworld.New(8, 1)
	if err != nil {
		t.Fatal(err)
	}
	w1, err := refworld.New(8, 1)
	if err != nil {
		t.Fatal(err)
	}
	runs := []*run{start(w0, 0), start(speckWorld{w1}, 1)}
	measured := 0
	for i := 1; i <= 3*144; i++ {
		at := time.Duration(i) * time.Second / 144
		var pos [2]float64
		for k, r := range runs {
			for r.next <= at {
				r.clock.Set(r.next)
				r.next, _ = r.a.Sim().Wake()
			}
			plan := r.a.Pipeline().Plan(at)
			r.a.Pipeline().Measure(at, &plan)
			pos[k] = r.a.Pipeline().Meter().LastPos
		}
		if pos[0] != pos[1] && !(math.IsNaN(pos[0]) && math.IsNaN(pos[1])) {
			t.Fatalf("frame %d: position error %v ticks with the reference body first, %v with it at index 1", i, pos[0], pos[1])
		}
		if !math.IsNaN(pos[0]) {
			measured++
		}
	}
	m0, m1 := runs[0].a.Pipeline().Meter(), runs[1].a.Pipeline().Meter()
	if measured < 144 || m0.PosErr().Count() != m1.PosErr().Count() || m0.PosErrTicks(0.99) != m1.PosErrTicks(0.99) {
		t.Fatalf("%d frames measured; %d and %d in the histograms, p99 %v and %v ticks",
			measured, m0.PosErr().Count(), m1.PosErr().Count(), m0.PosErrTicks(0.99), m1.PosErrTicks(0.99))
	}
}
