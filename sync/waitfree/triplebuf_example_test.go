package waitfree_test

import (
	"fmt"

	"github.com/tickframe/tickframe/sync/waitfree"
)

type snapshot struct {
	tick      uint64
	positions []float32
}

// The simulation fills the back slot in place and publishes it; the renderer
// acquires the newest value and interpolates between the last two it holds.
func ExampleNewTripleBuffer() {
	sim, render, err := waitfree.NewTripleBuffer(3, func(s *snapshot) {
		s.positions = make([]float32, 0, 4) // pre-size: publishing never allocates
	})
	if err != nil {
		panic(err)
	}

	for tick := uint64(1); tick <= 3; tick++ {
		s := sim.Slot()
		s.tick = tick
		s.positions = append(s.positions[:0], float32(tick)*0.5)
		sim.Publish()
		// A renderer slower than the simulation would miss some values;
		// here it acquires after every publish.
		render.Acquire()
	}

	fmt.Println("new snapshot:", render.Acquire()) // nothing published since
	prev, cur := render.History(1), render.History(0)
	fmt.Println("bracket:", prev.tick, cur.tick)
	alpha := float32(0.25)
	fmt.Println("interpolated:", prev.positions[0]+(cur.positions[0]-prev.positions[0])*alpha)
	// Output:
	// new snapshot: false
	// bracket: 2 3
	// interpolated: 1.125
}
