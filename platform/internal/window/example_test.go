package window_test

import (
	"context"
	"fmt"
	"time"

	"github.com/tickframe/tickframe/platform/internal/window"
)

// fakeClock is a clock on which sleeping only moves time forward, so the
// example runs instantly and prints the same times on every machine.
type fakeClock struct{ now time.Duration }

func (c *fakeClock) Now() time.Duration { return c.now }

func (c *fakeClock) SleepUntil(ctx context.Context, t time.Duration) error {
	c.now = max(c.now, t)
	return ctx.Err()
}

// A software pacer emulates a 100 Hz display: each Frame sleeps until the
// next vblank, 10 ms after the last, and returns its time, whatever time the
// drawing took. A frame that takes too long misses its vblank and shows at
// the next one, as on a real display.
func ExamplePacer() {
	clock := &fakeClock{now: 3 * time.Millisecond}
	p, err := window.NewPacer(clock, 100, true)
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, draw := range []time.Duration{4 * time.Millisecond, 4 * time.Millisecond, 14 * time.Millisecond, 4 * time.Millisecond} {
		t, err := p.Next(context.Background())
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("frame %d shows at %v, draws for %v\n", i, t, draw)
		clock.now += draw
	}
	fmt.Println("missed vblanks:", p.Missed())
	// Output:
	// frame 0 shows at 3ms, draws for 4ms
	// frame 1 shows at 13ms, draws for 4ms
	// frame 2 shows at 23ms, draws for 14ms
	// frame 3 shows at 43ms, draws for 4ms
	// missed vblanks: 1
}
