package loop_test

import (
	"context"
	"fmt"
	"log"
	"math"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/platform"
	"github.com/tickframe/tickframe/platform/internal/loop"
	"github.com/tickframe/tickframe/platform/internal/sim"
	"github.com/tickframe/tickframe/platform/internal/window"
	"github.com/tickframe/tickframe/simthread"
)

// spinner is a world: one cube going round a circle, a radian a second.
type spinner struct{ angle float64 }

func (w *spinner) Step(_ uint64, dt float64, _ []simthread.Input) { w.angle += dt }

func (w *spinner) Snapshot(dst *simthread.Snapshot) {
	s, c := math.Sincos(w.angle)
	dst.Bodies = append(dst.Bodies[:0], simthread.NewBody(mgl32.Vec3{3 * float32(c), 1, 3 * float32(s)}))
}

// swaps is a hook that implements only the seams it needs (loop.NoHook
// has the others): it keeps the run's view, counts the frames drawn and
// keeps the longest time between two swaps.
type swaps struct {
	loop.NoHook
	run     *loop.View
	drawn   int
	longest time.Duration
}

func (s *swaps) Started(v *loop.View) { s.run = v }

func (s *swaps) Swapped(f *loop.Frame) {
	if f.Drawn {
		s.drawn++
	}
	s.longest = max(s.longest, f.Interval)
}

// The runtime alone, with a hook of its user's own: a window, the
// simulation and the frame loop on the main thread, and nothing measuring
// the run but the hook. Package app's Main is this with the instruments
// attached and the flags every app has (app.Run with app.Bare is this
// without the hook: platform/app/testdata/alone). In a program this is
// main's body, whose goroutine is on the main thread; a test, on a
// goroutine of its own, runs it there through window.Call, with the
// test binary's TestMain serving window.Main.
func Example() {
	window.Call(func() {
		var s swaps
		a, err := loop.New(loop.Config{Title: "spinner", Settings: loop.Settings{Duration: 2 * time.Second}}, &spinner{}, &s)
		if err != nil {
			log.Fatal(err)
		}
		defer a.Close()
		if err := a.Run(context.Background()); err != nil {
			log.Print(err)
		}
		p := s.run.Pacing()
		fmt.Printf("%d frames drawn at %.0f Hz (%s), the longest %v apart\n", s.drawn, p.Hz, p.Source, s.longest)
	})
}

// Frames planned by hand, with no window: the simulation on a virtual
// clock, stepped up to each display time of a 60 Hz display, and the
// window's events handed to the App as its input step would. A frame
// shows its display time less the render delay, between the two newest
// snapshots it acquired around it (at 120 Hz ticks and 60 Hz frames, a
// snapshot every other tick).
func ExampleNewHeadless() {
	clock := new(sim.VirtualClock)
	a, err := loop.NewHeadless(loop.Config{}, &spinner{}, clock)
	if err != nil {
		fmt.Println(err)
		return
	}
	next, _ := a.Sim().Wake()
	for frame := 1; frame <= 30; frame++ {
		at := time.Duration(frame) * time.Second / 60
		for next <= at {
			clock.Set(next)
			next, _ = a.Sim().Wake()
		}
		if plan := a.Pipeline().Plan(at); frame%10 == 0 {
			fmt.Printf("frame %d at %v: between the snapshots of ticks %d and %d, alpha %.2f\n", frame, at.Round(time.Millisecond), plan.Prev.Tick, plan.Next.Tick, plan.Alpha)
		}
	}
	a.Handle([]platform.Event{{Kind: platform.KeyEvent, Key: platform.KeySpace, Action: platform.Press}})
	fmt.Println("Space pressed: paused", a.Paused())
	// Output:
	// frame 10 at 167ms: between the snapshots of ticks 18 and 19, alpha 0.93
	// frame 20 at 333ms: between the snapshots of ticks 37 and 39, alpha 0.97
	// frame 30 at 500ms: between the snapshots of ticks 57 and 60, alpha 0.65
	// Space pressed: paused true
}
