package instrument

import (
	"testing"
	"time"

	"github.com/tickframe/tickframe/platform/internal/window"
)

// TestCounterJumpIsNoRepeat: frames shown on every vblank of a display
// whose counter jumps (a window moved to another output, whose counter is
// its own; a compositor's count derived from the first presentation at
// the refresh it gives, which restarts lower when the refresh falls) are
// displayed, none dropped, and the jump is counted as a rebase, not as
// repeats; a gap that the time between the frames allows (a window not
// drawn for 2 s) is vblanks that showed the last frame again.
func TestCounterJumpIsNoRepeat(t *testing.T) {
	const (
		p144 = time.Second / 144
		p60  = time.Second / 60
		base = time.Second
	)
	type run struct {
		at, period time.Duration // the first frame's vblank, and the period
		msc        uint64        // its count
		frames     int           // one a vblank
	}
	for _, tc := range []struct {
		name                        string
		runs                        []run
		repeated, rebases, displays uint64
	}{
		{"another output, its counter lower", []run{
			{base, p144, 50000, 1440},
			{base + 1440*p144 + 5*time.Millisecond, p60, 20000, 120},
		}, 0, 1, 1560},
		{"refresh 144 to 60 Hz, counted from the first presentation", []run{
			{base + p144, p144, 1, 1440},
			{base + 601*p60, p60, 601, 120},
		}, 0, 1, 1560},
		{"counter ahead by 400000, the time continuous", []run{
			{base, p144, 1, 1000},
			{base + 1000*p144, p144, 401000, 1000},
		}, 0, 1, 2000},
		{"not drawn for 2 s: the gap the time allows", []run{
			{base + p144, p144, 1, 1000},
			{base + 1288*p144, p144, 1288, 1000},
		}, 287, 0, 2000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pacer, err := window.NewPacer(&virtualClock{}, 144, true)
			if err != nil {
				t.Fatal(err)
			}
			var st frameStats
			track := presentTracker{stats: &st}
			for _, r := range tc.runs {
				for k := range r.frames {
					at := r.at + time.Duration(k)*r.period
					track.shown(shownFrame{valid: true, poll: at - 2*p144, present: at - p144, display: at, msc: r.msc + uint64(k)}, pacer)
				}
			}
			track.finish(track.cand, pacer)
			p := &st.Present
			if p.Displayed != tc.displays || p.Dropped != 0 || p.Repeated != tc.repeated || p.Rebases != tc.rebases {
				t.Errorf("displayed %d, dropped %d, repeated %d, counter rebases %d; want %d, 0, %d, %d",
					p.Displayed, p.Dropped, p.Repeated, p.Rebases, tc.displays, tc.repeated, tc.rebases)
			}
		})
	}
}
