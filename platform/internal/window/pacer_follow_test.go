package window_test

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/tickframe/tickframe/platform/internal/window"
)

// display is a virtual display whose vblanks are at origin + m·period,
// re-anchored at each change of period on its last vblank.
type display struct {
	origin time.Duration
	period time.Duration
}

// next returns the display's first vblank at or after t.
func (d *display) next(t time.Duration) time.Duration {
	m := int64(math.Ceil(float64(t-d.origin) / float64(d.period)))
	return d.origin + time.Duration(m)*d.period
}

// setPeriod changes the period from the vblank at or after t on.
func (d *display) setPeriod(t, period time.Duration) {
	d.origin, d.period = d.next(t), period
}

// TestFollowKeepsTheIndexOverALongRun runs a software pacer that follows a
// display's measured vblanks (as platform/app does every frame) for ten
// minutes, then changes the display's period a little (as measurement
// noise, drift or a grid's new fit does): every frame still shows at the
// display's next vblank after its work, waits at most two periods, and
// counts no missed vblank. Computed from the pacer's first origin, the
// vblank index moved by K·ΔP/P after K vblanks: +60 µs ten minutes into a
// 60 Hz run slept 2.17 s.
func TestFollowKeepsTheIndexOverALongRun(t *testing.T) {
	for _, tc := range []struct {
		hz     float64
		change time.Duration
	}{
		{60, 60 * time.Microsecond}, {60, time.Microsecond}, {60, -time.Microsecond},
		{60, -60 * time.Microsecond}, {144, 70 * time.Microsecond}, {144, -500 * time.Microsecond},
		{60, 1100 * time.Microsecond}, // a young fit's period, two reports a millisecond off
	} {
		t.Run(fmt.Sprintf("%vHz%+v", tc.hz, tc.change), func(t *testing.T) {
			period := time.Duration(math.Round(1e9 / tc.hz))
			d := &display{origin: 3 * time.Millisecond, period: period}
			c := &fakeClock{now: 5 * time.Millisecond}
			p, err := window.NewPacer(c, tc.hz, true)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			lead := 2 * time.Millisecond
			work := time.Millisecond
			end := 10*time.Minute + 10*time.Second
			changed := false
			for frame := 0; c.now < end; frame++ {
				if !changed && c.now >= 10*time.Minute {
					changed = true
					d.setPeriod(c.now, period+tc.change)
				}
				if frame > 0 {
					p.Follow(d.next(c.now), d.period)
				}
				before := c.now
				at, err := p.FrameAt(ctx, lead)
				if err != nil {
					t.Fatal(err)
				}
				if frame > 0 {
					if at != d.next(at) {
						t.Fatalf("frame %d at %v: not a vblank of the display (next is %v)", frame, at, d.next(at))
					}
					if wait := c.now - before; wait > 2*d.period {
						t.Fatalf("frame %d at %v: waited %v, more than two periods of %v", frame, before, wait, d.period)
					}
					if at-lead < before {
						t.Fatalf("frame %d: starts at %v, after its vblank %v minus the lead", frame, before, at)
					}
				}
				c.now += work
			}
			if p.Missed() != 0 {
				t.Fatalf("%d vblanks counted missed; frames always made their vblank", p.Missed())
			}
		})
	}
}

// TestFollowCountsMissedVblanksOnTheNewPeriod: after a change of period,
// a frame that is late skips the display's vblanks it missed, counted in
// the display's new period.
func TestFollowCountsMissedVblanksOnTheNewPeriod(t *testing.T) {
	c := &fakeClock{}
	p, _ := window.NewPacer(c, 100, true) // 10 ms
	ctx := context.Background()
	p.FrameAt(ctx, 0)
	for range 1000 {
		c.now += time.Millisecond
		p.FrameAt(ctx, 0)
	}
	// The display turns 50 Hz at the last vblank (10 s); the next frame
	// comes 75 ms late: it misses the vblanks at 10.02 … 10.08 s.
	last := c.now
	c.now += 85 * time.Millisecond
	p.Follow(last+100*time.Millisecond, 20*time.Millisecond)
	at, _ := p.FrameAt(ctx, 0)
	if at != last+100*time.Millisecond || p.Missed() != 4 {
		t.Fatalf("frame at %v missed %d, want %v missed 4", at, p.Missed(), last+100*time.Millisecond)
	}
}
