package instrument

import (
	"testing"
	"time"

	"github.com/tickframe/tickframe/platform/loop"
)

// The present fault, as a hook, drops every third frame: the frame after
// a dropped one takes the dropped one's display time at once, and the one
// its successor replaces asks for a whole period ahead.
func TestPresentFaultAsAHook(t *testing.T) {
	var h loop.Hook = &fault{cfg: PresentFault{DropEvery: 3}}
	var aheads, takes int
	at, lastAhead := time.Duration(0), -2
	for i := range 10 {
		got, take, ahead := h.BeforePace()
		if take {
			takes++
			if lastAhead != i-1 {
				t.Errorf("frame %d taken at once, but the frame before it did not start ahead", i)
			}
			if got != at {
				t.Errorf("frame %d takes %v, want the dropped frame's %v", i, got, at)
			}
		} else {
			at = time.Duration(i) * time.Millisecond
		}
		if ahead {
			aheads++
			lastAhead = i
		}
		h.Paced(&loop.Frame{At: at})
	}
	if takes != 3 || aheads != 3 {
		t.Errorf("%d frames taken at once and %d a period ahead in 10, want 3 and 3", takes, aheads)
	}
}
