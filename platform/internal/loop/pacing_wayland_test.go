package loop

import (
	"context"
	"testing"
	"time"

	"github.com/tickframe/tickframe/platform/internal/present"
	"github.com/tickframe/tickframe/platform/internal/window"
)

// On a Wayland compositor's presentations a low-latency frame starts a
// whole period ahead, at the presentation of the frame before (which it
// waits for), whatever its cost: started its cost before its own
// presentation it would miss the compositor's repaint, which comes well
// before the presentation is stamped (issue 37, defect 6). On other
// vblanks it starts just in time.
func TestLowLatencyLeadOnCompositorPresentations(t *testing.T) {
	const period = 20 * time.Millisecond
	for _, tc := range []struct {
		source string
		whole  bool
	}{{present.VblankWayland, true}, {present.VblankPresentMSC, false}} {
		t.Run(tc.source, func(t *testing.T) {
			var g present.Grid
			g.SetSource(tc.source)
			for k := range 40 {
				g.Observe(time.Second+time.Duration(k)*period, uint64(1000+k))
			}
			clock := &jumpClock{t: time.Second + 40*period}
			pacer, err := window.NewPacer(clock, 50, true)
			if err != nil {
				t.Fatal(err)
			}
			p := pacing{grid: &g, pacer: pacer, onGrid: true, latency: LowLatency}
			for range 3 {
				p.jit.add(2 * time.Millisecond) // cheap frames
			}
			var lead time.Duration
			for range 10 {
				if _, lead, err = p.frameAt(context.Background(), clock, nil); err != nil {
					t.Fatal(err)
				}
			}
			if whole := lead == p.pacer.Period(); whole != tc.whole {
				t.Errorf("lead %v with a period of %v: want a whole period %v", lead, p.pacer.Period(), tc.whole)
			}
		})
	}
}
