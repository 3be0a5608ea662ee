package loop

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func TestJITLeadFollowsTheFrameCost(t *testing.T) {
	var j jit
	period := time.Second / 144
	if got := j.next(period); got != period/2 {
		t.Fatalf("before any frame: lead %v, want half a period", got)
	}
	ms := time.Millisecond
	// Frames of 3 ms, one in twenty of 4 ms: the 95th percentile is 4 ms.
	var lead time.Duration
	for i := 0; i < 400; i++ {
		c := 3 * ms
		if i%20 == 0 {
			c = 4 * ms
		}
		j.add(c)
		prev := lead
		lead = j.next(period)
		if i > 0 && (lead-prev > leadRise || prev-lead > leadFall) {
			t.Fatalf("frame %d: lead moved %v → %v, faster than allowed", i, prev, lead)
		}
	}
	// The window of 64 holds three or four 4 ms frames: the 95th
	// percentile is 3 or 4 ms, and the lead glides between them.
	if lo, hi := 3*ms+leadMargin, 4*ms+leadMargin; lead < lo || lead > hi {
		t.Errorf("lead %v, want the 95th percentile of the costs plus the margin (%v to %v)", lead, lo, hi)
	}
	// A frame cost beyond the period caps the lead at the period.
	for i := 0; i < 200; i++ {
		j.add(20 * ms)
		lead = j.next(period)
	}
	if lead != period {
		t.Errorf("lead %v with 20 ms frames, want the period %v", lead, period)
	}
	if n := testing.AllocsPerRun(100, func() { j.add(3 * ms); j.next(period) }); n != 0 {
		t.Errorf("next allocates %.1f times", n)
	}
}

func TestParseLatency(t *testing.T) {
	for _, s := range []string{"low", "throughput"} {
		m, err := ParseLatency(s)
		if err != nil || m.String() != s {
			t.Errorf("%q: %v, %v", s, m, err)
		}
	}
	if _, err := ParseLatency("fast"); err == nil {
		t.Error("fast: no error")
	}
}

// The lead's quantile, kept in one pass, is what a sort of the costs
// gives, at the lead's index and at indices past the pass's reach.
func TestJitQuantileMatchesASort(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 20000; trial++ {
		var j jit
		m := 1 + r.IntN(costWindow)
		for i := 0; i < m; i++ {
			j.costs[i] = time.Duration(r.IntN(20)) * time.Millisecond / 4
		}
		q := min(int(leadQuantile*float64(m)), m-1)
		s := slices.Clone(j.costs[:m])
		slices.Sort(s)
		for _, qq := range []int{q, max(0, m-8), max(0, m-9), m - 1} {
			if got := j.quantile(m, qq); got != s[qq] {
				t.Fatalf("m %d q %d: %v, want %v (%v)", m, qq, got, s[qq], s)
			}
		}
	}
}
