package present_test

import (
	"testing"
	"time"

	"github.com/tickframe/tickframe/platform/internal/present"
)

// TestGridRebasesOnACounterJump: a display's vblanks reported exactly,
// then a report whose count cannot follow the last (Discontinuous): the
// grid starts again on the new count and is counted, and follows the new
// display's vblanks, its phase and count at once and a new rate from its
// fourth report on. A 144 Hz grid kept on a 60 Hz output was 8 ms off its
// phase; a jump ahead whose vblanks were taken for missed ones counted
// 399 999 repeats. A gap the time allows (a window not drawn for 2 s) is
// vblanks that passed: the grid goes on.
func TestGridRebasesOnACounterJump(t *testing.T) {
	const (
		p144 = time.Second / 144
		p60  = time.Second / 60
		base = time.Second
	)
	type run struct {
		at, period time.Duration // the first report's vblank, and the period
		msc        uint64        // its count
		reports    int           // one a vblank
	}
	for _, tc := range []struct {
		name    string
		before  run
		after   run
		rebases uint64
		follow  int // the grid is on the new vblanks from this report of after on (1: the first)
	}{
		{"another output, its counter lower",
			run{base, p144, 50000, 1440}, run{base + 1440*p144 + 5*time.Millisecond, p60, 20000, 60}, 1, 4},
		{"refresh 144 to 60 Hz, counted from the first presentation",
			run{base + p144, p144, 1, 1440}, run{base + 601*p60, p60, 601, 60}, 1, 4},
		{"counter ahead by 400000, the time continuous",
			run{base, p144, 1, 1000}, run{base + 1000*p144, p144, 401000, 60}, 1, 1},
		{"not drawn for 2 s: the gap the time allows",
			run{base + p144, p144, 1, 1000}, run{base + 1288*p144, p144, 1288, 60}, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var g present.Grid
			r := tc.before
			for k := range r.reports {
				g.Observe(r.at+time.Duration(k)*r.period, r.msc+uint64(k))
			}
			r = tc.after
			for k := range r.reports {
				at, msc := r.at+time.Duration(k)*r.period, r.msc+uint64(k)
				g.Observe(at, msc)
				if k+1 < tc.follow {
					continue
				}
				if d := g.Period() - r.period; d > time.Microsecond || d < -time.Microsecond {
					t.Fatalf("report %d after the jump: period %v, want %v", k+1, g.Period(), r.period)
				}
				if v, m, _ := g.Next(at + r.period/2); m != msc+1 || (v-at-r.period).Abs() > 10*time.Microsecond {
					t.Fatalf("report %d after the jump: next vblank %v (count %d), want %v (%d)", k+1, v, m, at+r.period, msc+1)
				}
			}
			if g.Rebases() != tc.rebases {
				t.Errorf("%d rebases, want %d", g.Rebases(), tc.rebases)
			}
		})
	}
}

// TestDiscontinuous: the bound between a gap of vblanks that passed and a
// counter that jumped.
func TestDiscontinuous(t *testing.T) {
	const p = time.Second / 144
	for _, tc := range []struct {
		name     string
		from, to uint64
		dt, p    time.Duration
		want     bool
	}{
		{"the next vblank", 100, 101, p, p, false},
		{"the same vblank again", 100, 100, p / 10, p, false},
		{"back, the time on", 1440, 601, p, p, true},
		{"back by one, the time on", 1440, 1439, p, p, true},
		{"back, an earlier report that came late", 1440, 1439, -p, p, false},
		{"back, no period yet", 1440, 601, p, 0, true},
		{"ahead by 400000 in a vblank", 1000, 401000, p, p, true},
		{"ahead, no period yet", 1000, 401000, p, 0, false},
		{"2 s not drawn", 1000, 1288, 288 * p, p, false},
		{"2 s at twice the rate", 1000, 1576, 288 * p, p, false},
		{"ahead by 2 s and a second's worth, in 2 s", 1000, 1000 + 2*288 + 2*144 + 1, 288 * p, p, true},
	} {
		if got := present.Discontinuous(tc.from, tc.to, tc.dt, tc.p); got != tc.want {
			t.Errorf("%s: Discontinuous(%d, %d, %v, %v) = %v, want %v", tc.name, tc.from, tc.to, tc.dt, tc.p, got, tc.want)
		}
	}
}
