package present_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tickframe/tickframe/platform/internal/present"
)

// A display whose reports are exact gives them back exactly; one whose
// reports come up to a millisecond late (a server's timer and wake-ups)
// gives its period to within a microsecond and every vblank at the lower
// envelope of its reports, within a tenth of their scatter.
func TestGridFitsTheReports(t *testing.T) {
	const period = 6944 * time.Microsecond // Xvfb -fakescreenfps 144
	for _, tc := range []struct {
		name            string
		scatter         time.Duration
		wantPeriod, pos time.Duration
	}{
		{"exact", 0, 1, 1},
		{"late", time.Millisecond, time.Microsecond, 100 * time.Microsecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var g present.Grid
			rng := rand.New(rand.NewPCG(1, 2))
			const msc0 = 1000
			origin := 5 * time.Second
			at := func(msc uint64) time.Duration { return origin + time.Duration(msc-msc0)*period }
			if g.Known() {
				t.Fatal("an empty grid is known")
			}
			for msc := uint64(msc0); msc < msc0+1440; msc++ {
				var jitter time.Duration
				if tc.scatter > 0 {
					jitter = time.Duration(rng.Int64N(int64(tc.scatter)))
				}
				g.Observe(at(msc)+jitter, msc)
			}
			if d := g.Period() - period; d > tc.wantPeriod || d < -tc.wantPeriod {
				t.Errorf("period %v, want %v ± %v", g.Period(), period, tc.wantPeriod)
			}
			for _, msc := range []uint64{msc0 + 1440, msc0 + 2000} {
				probe := at(msc) - period/3
				v, m, ok := g.Next(probe)
				if !ok || m != msc {
					t.Fatalf("Next(%v) = MSC %d (ok %v), want %d", probe, m, ok, msc)
				}
				if d := v - at(msc); d > tc.pos || d < -tc.pos {
					t.Errorf("vblank %d at %v, want %v ± %v", msc, v, at(msc), tc.pos)
				}
			}
			if v, m, _ := g.Next(at(msc0 + 1500)); tc.scatter == 0 && (v != at(msc0+1500) || m != msc0+1500) {
				t.Errorf("Next of a vblank's own time = %v (MSC %d), want the vblank itself", v, m)
			}
		})
	}
}

// A report off the grid (a starved server's late answer) is left out; three
// in a row are a new display, which the grid follows.
func TestGridRejectsOutliersAndFollowsAChange(t *testing.T) {
	var g present.Grid
	p := 10 * time.Millisecond
	for msc := uint64(1); msc <= 100; msc++ {
		g.Observe(time.Duration(msc)*p, msc)
	}
	g.Observe(101*p+p/2, 101) // half a period late
	if g.Period() != p {
		t.Fatalf("one outlier moved the period to %v", g.Period())
	}
	if v, _, _ := g.Next(101*p - p/4); v != 101*p {
		t.Fatalf("one outlier moved the grid: next vblank at %v, want %v", v, 101*p)
	}
	// The display switches to 60 Hz with another phase.
	q := time.Second / 60
	base := 200*p + 3*time.Millisecond
	for k := uint64(0); k < 60; k++ {
		g.Observe(base+time.Duration(k)*q, 500+k)
	}
	if d := g.Period() - q; d > time.Microsecond || d < -time.Microsecond {
		t.Fatalf("after the switch the period is %v, want %v", g.Period(), q)
	}
	if v, m, _ := g.Next(base + 59*q + q/2); v != base+60*q || m != 560 {
		t.Fatalf("after the switch the next vblank is %v (MSC %d), want %v (560)", v, m, base+60*q)
	}
}

func TestGridDoesNotAllocate(t *testing.T) {
	var g present.Grid
	msc := uint64(1)
	if n := testing.AllocsPerRun(100, func() {
		g.Observe(time.Duration(msc)*time.Millisecond, msc)
		g.Next(time.Duration(msc) * time.Millisecond)
		msc++
	}); n != 0 {
		t.Fatalf("%v allocations per vblank", n)
	}
}
