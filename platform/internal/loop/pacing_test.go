package loop

import (
	"context"
	"testing"
	"time"

	"github.com/tickframe/tickframe/platform/internal/present"
)

// jumpClock is a clock whose sleeps jump to their end.
type jumpClock struct{ t time.Duration }

func (c *jumpClock) Now() time.Duration { return c.t }

func (c *jumpClock) SleepUntil(_ context.Context, t time.Duration) error {
	c.t = max(c.t, t)
	return nil
}

// Pacing chosen before the display system reported a vblank (measuring
// the swaps, or unpaced) takes its vblanks once they come, as choose
// takes them when they are known from the start: a present source that
// fell silent hands over to X11's vblanks (issue 37: the app stayed on
// "swaps unpaced; emulated" at its own 60 Hz).
func TestPacingTakesVblanksThatComeLate(t *testing.T) {
	for _, source := range []string{"measuring", "unpaced"} {
		t.Run(source, func(t *testing.T) {
			var g present.Grid
			g.SetSource(present.VblankPresentMSC)
			clock := &jumpClock{t: time.Second}
			p := pacing{grid: &g, source: source, late: true}
			if _, _, err := p.frameAt(context.Background(), clock, nil); err != nil {
				t.Fatal(err)
			}
			if p.source != source || p.pacer != nil {
				t.Fatalf("with no vblanks yet: source %q, pacer %v", p.source, p.pacer)
			}
			const period = time.Second / 75
			for k := range 20 {
				g.Observe(time.Second+time.Duration(k)*period, uint64(1000+k))
			}
			clock.t = time.Second + 20*period
			at, _, err := p.frameAt(context.Background(), clock, nil)
			if err != nil {
				t.Fatal(err)
			}
			if p.source != present.VblankPresentMSC || !p.onGrid || p.pacer == nil || !p.pacer.Software() || p.hz < 74.9 || p.hz > 75.1 {
				t.Fatalf("after the vblanks came: source %q, on the grid %v, %.2f Hz; want %q at 75 Hz",
					p.source, p.onGrid, p.hz, present.VblankPresentMSC)
			}
			// The pacer's first frame is lead from now; the next on the
			// display's vblanks.
			if at, _, err = p.frameAt(context.Background(), clock, nil); err != nil {
				t.Fatal(err)
			}
			if v, _, _ := g.Next(at - period/2); (at - v).Abs() > time.Microsecond {
				t.Errorf("frame at %v, not on the display's vblank %v", at, v)
			}
		})
	}
}
