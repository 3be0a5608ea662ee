package present_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tickframe/tickframe/platform/internal/present"
)

// TestGridKeepsItsPeriodAcrossAReset: a starved server's late reports
// (40 in a row, 0.4 period late) start a new fit; its first reports
// include the late one that ended the run, and its slope from two of
// them was 40 % off, which a pacer following the grid then slept by.
// The grid keeps the last period until the new fit has settled, and its
// vblanks stay on the display's.
func TestGridKeepsItsPeriodAcrossAReset(t *testing.T) {
	const period = 6944 * time.Microsecond
	for seed := range uint64(20) {
		gridAcrossAReset(t, seed, period)
	}
}

func gridAcrossAReset(t *testing.T, seed uint64, period time.Duration) {
	var g present.Grid
	rng := rand.New(rand.NewPCG(seed, 7))
	at := func(msc uint64) time.Duration { return time.Second + time.Duration(msc)*period }
	msc := uint64(1)
	for ; msc < 1000; msc++ {
		g.Observe(at(msc)+time.Duration(rng.Int64N(int64(500*time.Microsecond))), msc)
	}
	for end := msc + 40; msc < end; msc++ {
		g.Observe(at(msc)+period*4/10, msc)
	}
	for end := msc + 200; msc < end; msc++ {
		g.Observe(at(msc)+time.Duration(rng.Int64N(int64(500*time.Microsecond))), msc)
		if d := g.Period() - period; d > period/100 || d < -period/100 {
			t.Fatalf("seed %d: vblank %d after the late run: period %v, want %v within 1 %%", seed, msc, g.Period(), period)
		}
		v, m, _ := g.Next(at(msc) + period/2)
		if v < at(m)-period/4 || v > at(m)+period/2 {
			t.Fatalf("seed %d: vblank %d after the late run: next vblank %v (MSC %d), the display's is %v", seed, msc, v, m, at(m))
		}
	}
}

// TestGridMeasuresTheRateThroughLateRuns: a 360 Hz fake CRTC reported
// for every second or third vblank (an app at 144 Hz), up to a
// millisecond late (the server's timer), with bursts of 40 to 60 reports
// up to 3 ms late (a server starved beside a build loop). The late runs
// restart the fit again and again; each young fit's slope, from a few
// dozen reports some of them late, read the rate up to 1.9 % slow (a
// make test run failed on 352.7 Hz for Xvfb's 360). The period over the
// whole run does not move with them: within 0.1 % on every seed.
func TestGridMeasuresTheRateThroughLateRuns(t *testing.T) {
	const period = 2777 * time.Microsecond // Xvfb -fakescreenfps 360
	for seed := range uint64(200) {
		var g present.Grid
		rng := rand.New(rand.NewPCG(seed, 9))
		at := func(msc uint64) time.Duration { return time.Second + time.Duration(msc)*period }
		msc := uint64(1)
		for range 320 {
			if rng.IntN(40) == 0 {
				for range 40 + rng.IntN(20) {
					msc += 2 + uint64(rng.IntN(2))
					g.Observe(at(msc)+time.Duration(rng.Int64N(int64(3*time.Millisecond))), msc)
				}
			}
			msc += 2 + uint64(rng.IntN(2))
			g.Observe(at(msc)+time.Duration(rng.Int64N(int64(time.Millisecond))), msc)
		}
		if d := g.Period() - period; d > period/1000 || d < -period/1000 {
			t.Errorf("seed %d: period %v (%.2f Hz), want %v (%.2f Hz) within 0.1 %%", seed, g.Period(), g.Hz(), period, 1e9/float64(period))
		}
	}
}
