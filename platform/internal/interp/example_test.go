package interp_test

import (
	"fmt"
	"time"

	"github.com/tickframe/tickframe/platform/internal/interp"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/simthread"
	"github.com/tickframe/tickframe/sync/waitfree"
)

// Alpha places a render time between the nominal times of two snapshots.
// Outside them it clamps instead of extrapolating, and says so.
func ExampleAlpha() {
	ta, tb := 40*time.Millisecond, 60*time.Millisecond
	for _, t := range []time.Duration{45 * time.Millisecond, 55 * time.Millisecond, 70 * time.Millisecond} {
		a, clamped := interp.Alpha(t, ta, tb)
		fmt.Printf("%v between %v and %v: alpha %.2f, clamped %v\n", t, ta, tb, a, clamped)
	}
	// Output:
	// 45ms between 40ms and 60ms: alpha 0.25, clamped false
	// 55ms between 40ms and 60ms: alpha 0.75, clamped false
	// 70ms between 40ms and 60ms: alpha 1.00, clamped true
}

// A simulation at 50 Hz publishes a snapshot every 20 ms; each frame, the
// planner acquires the newest and picks the pair whose tick times bracket
// the frame time minus the render delay. Here the delay is fixed at 25 ms,
// so the frame at 75 ms shows the simulation as it was at 50 ms: halfway
// from tick 2 (40 ms) to tick 3 (60 ms).
func ExamplePlanner() {
	const step = 20 * time.Millisecond
	sim, view, err := waitfree.NewTripleBuffer[simthread.Snapshot](simthread.DefaultHistory, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	planner := interp.NewPlanner(view, interp.NewFixedDelay(step, 25*time.Millisecond))

	var plan renderer.Plan
	for tick := range uint64(4) {
		s := sim.Slot()
		s.Tick, s.Time = tick, time.Duration(tick)*step
		s.Published = s.Time + time.Millisecond // the simulation wakes and steps a little late
		sim.Publish()
		plan = planner.Plan(s.Time + 15*time.Millisecond) // a frame between two publishes
	}

	prev, next := plan.Prev, plan.Next
	fmt.Printf("render time %v: ticks %d (%v) and %d (%v), alpha %.2f\n",
		plan.RenderTime, prev.Tick, prev.Time, next.Tick, next.Time, plan.Alpha)
	fmt.Printf("shows tick %.2f; new snapshot this frame: %v, late: %v\n", plan.SimTick, plan.Acquired, plan.Late)
	// Output:
	// render time 50ms: ticks 2 (40ms) and 3 (60ms), alpha 0.50
	// shows tick 2.50; new snapshot this frame: true, late: false
}
