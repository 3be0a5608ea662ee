package sim_test

import (
	"fmt"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/platform/internal/sim"
	"github.com/tickframe/tickframe/simthread"
)

// setSpeed is the one input kind the walker world understands.
const setSpeed = 1

// ms is a millisecond, for the tests' times.
const ms = time.Millisecond

// walker is a world of one body walking along x.
type walker struct{ x, speed float64 }

func (w *walker) Step(tick uint64, dt float64, inputs []simthread.Input) {
	for _, in := range inputs {
		if in.Kind == setSpeed {
			w.speed = in.X
		}
	}
	w.x += w.speed * dt
}

func (w *walker) Snapshot(dst *simthread.Snapshot) {
	dst.Bodies = append(dst.Bodies[:0], simthread.Body{
		Pos: mgl32.Vec3{float32(w.x), 0, 0}, Scale: simthread.UniformScale(1), Rot: mgl32.QuatIdent(), Color: 0xFFFFFFFF,
	})
}

// Drive a Sim by hand on a virtual clock: each Wake runs the ticks due by
// the clock's time and publishes one snapshot, which the render side then
// acquires. The app runs the same Sim on a RealClock with Start instead,
// and the renderer acquires on its own thread.
func ExampleSim_Wake() {
	clock := new(sim.VirtualClock)
	s, err := sim.New(simthread.Tuning{Timing: simthread.Timing{Rate: 10}}, &walker{speed: 1}, clock)
	if err != nil {
		fmt.Println(err)
		return
	}
	view := s.Snapshots() // the render side

	next, _ := s.Wake() // starts the timeline and publishes tick 0
	fmt.Println("next tick due at", next)

	s.Send(simthread.Input{Kind: setSpeed, X: 2}) // applied at the start of tick 1
	clock.Set(250 * time.Millisecond)             // a wake 150 ms late
	next, err = s.Wake()
	if err != nil {
		fmt.Println(err)
		return
	}

	fmt.Println("acquired:", view.Acquire())
	snap := view.History(0)
	fmt.Printf("tick %d of time %v, published at %v: x = %.1f m\n", snap.Tick, snap.Time, snap.Published, snap.Bodies[0].Pos.X())
	fmt.Println("next tick due at", next)
	// Output:
	// next tick due at 100ms
	// acquired: true
	// tick 2 of time 200ms, published at 250ms: x = 0.4 m
	// next tick due at 300ms
}
