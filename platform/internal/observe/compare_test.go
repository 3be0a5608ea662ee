package observe_test

import (
	"testing"
	"time"

	"github.com/tickframe/tickframe/platform/internal/observe"
)

// nested builds a run behind a compositor nested in the observer's X
// server, as a Mutter's is: it repaints on a timer of its own (a refresh
// of 16.667 ms, ±1 ms, every 37th repaint 8 ms late), one app frame a
// repaint, and stamps each presentation about when the frame reaches the
// framebuffer: from 1.5 ms after it to 10 ms before (measured: 2 to 4 ms
// before quiet, up to 30 ms starved, now and then after). The app's log
// is what frame timings give: every frame shown, at its stamp, but those
// in dropped. gone lists frames the compositor never put out; twin lists
// frames followed within a quarter refresh by the next (a starved
// compositor catching up: two repaints in one refresh).
func nested(n int, gone, twin, dropped map[int]bool) (observe.Result, []observe.LogFrame) {
	const p = 16667 * time.Microsecond
	seed := uint32(1)
	rnd := func() time.Duration { // 0 to 1 ms
		seed = seed*1664525 + 1013904223
		return time.Duration(seed>>22) * time.Microsecond
	}
	res := observe.Result{Period: p, Watch: observe.WatchStats{GapP99: 250 * time.Microsecond}}
	var log []observe.LogFrame
	stamp := time.Second
	for i := range n {
		stamp += p + rnd() - 500*time.Microsecond
		if i%37 == 36 {
			stamp += 8 * time.Millisecond
		}
		if twin[i-1] {
			stamp = log[i-1].Display + p/4
		}
		swap := stamp - 5*time.Millisecond
		log = append(log, observe.LogFrame{ID: uint64(i + 1), Swap: swap, Display: stamp,
			Sim: stamp.Seconds(), HasSim: true, Shown: !dropped[i]})
		if !gone[i] {
			at := stamp - 1500*time.Microsecond + 23*rnd()/2
			res.Changes = append(res.Changes, observe.Change{Prev: at - 100*time.Microsecond, At: at + 100*time.Microsecond, Index: uint8((i + 1) % 16)})
		}
	}
	return res, log
}

// Behind a nested compositor the frames are placed on its repaints as
// they reached the framebuffer: there the app's frame timings agree
// with what came, a starved compositor's two repaints in one refresh
// included, where on the app's vblanks (the first at or after a frame's
// arrival, either side of the compositor's stamp) frames land a vblank
// or the other of their stamp at random and late repaints read as
// drops. A frame the compositor never put out that the app counted
// displayed is caught, and so is one it put out that the app counted
// dropped.
func TestRepaintsPlaceANestedCompositorsFrames(t *testing.T) {
	const n = 600
	res, log := nested(n, nil, map[int]bool{200: true, 400: true}, nil)
	c := observe.Compare(res, log)
	r := c.Repaints
	if r.Displayed != n || r.AppDisplayed != n || r.Dropped != 0 || r.AppOnly != 0 || r.Unmatched != 0 || r.OtherVblank != 0 {
		t.Errorf("on the repaints: %d displayed (app %d), %d dropped, %d never seen, %d unmatched, %d a refresh off: want %d, none else",
			r.Displayed, r.AppDisplayed, r.Dropped, r.AppOnly, r.Unmatched, r.OtherVblank, n)
	}
	if s := c.Server; s.Dropped == 0 && s.OtherVblank < n/10 {
		t.Errorf("on the app's vblanks %d dropped and %d a vblank off: the placement the repaints are there for now agrees (see Comparison)", s.Dropped, s.OtherVblank)
	}
	// The observer stalled 150 ms across frame 250's arrival: it cannot
	// tell when that frame came, and no pair through it counts (timed at
	// the stall's middle, it made an animation error of 75 ms).
	res, log = nested(n, nil, nil, nil)
	res.Changes[250].Prev = res.Changes[250].At - 150*time.Millisecond
	r = observe.Compare(res, log).Repaints
	if r.Ambiguous != 1 || r.SeenAnimErr.Max > 20*time.Millisecond || r.Displayed != n {
		t.Errorf("a frame seen across a 150 ms stall: %d not placed, animation error max %v as seen, %d displayed: want 1, under 20 ms, %d", r.Ambiguous, r.SeenAnimErr.Max, r.Displayed, n)
	}
	// Broken on purpose: frame 100 never reached the framebuffer but the
	// app counted it displayed; frame 300 did, and the app counted it
	// dropped.
	res, log = nested(n, map[int]bool{100: true}, nil, map[int]bool{300: true})
	r = observe.Compare(res, log).Repaints
	if r.AppOnly != 1 || r.ObserverOnly != 1 || r.Dropped != 1 || r.AppDropped != 1 || r.Displayed != n-1 {
		t.Errorf("with a frame never put out counted displayed and one put out counted dropped: %d never seen, %d seen and counted dropped, %d dropped (app %d), %d displayed: want 1, 1, 1 (1), %d",
			r.AppOnly, r.ObserverOnly, r.Dropped, r.AppDropped, r.Displayed, n-1)
	}
}
