package observe

import (
	"math"
	"slices"
	"time"
)

// Fit is a vblank grid the observer fitted to the framebuffer's changes
// alone, without the display system's reports or the app's log: the
// rate at which the content changes and the phase at which it changes
// least. It is the observer's own definition of when the display scans,
// independent of the one the app uses, so that an error in the app's
// definition (a fake CRTC at another rate than the app paces, a phase
// taken from a late timer) shows as a disagreement.
//
// The period is the least-squares slope of the changes' arrival times
// against their cycle numbers (late arrivals, more than a quarter period
// off the line, left out). The phase is where the fewest frames arrive:
// the vblank is put in the middle of the emptiest stretch of the cycle
// (64 bins, smoothed over 3), so that moving it within that stretch moves
// no frame from one vblank to another. A display scanning at that phase
// tears or misses the fewest of the frames as they arrived; frames that
// arrive later than the bulk cross it and count late.
type Fit struct {
	// Period is the fitted period; zero when there were too few changes.
	Period time.Duration
	// Phase is a vblank of the fitted grid (any one: the grid is Phase +
	// k·Period).
	Phase time.Duration
	// Arrivals is how many changes the fit used; OffLine how many of
	// them lay more than a quarter period off the fitted line (late, or
	// early: the frames whose placement is least certain).
	Arrivals, OffLine int
	// Emptiest is the share of arrivals within ±1/64 period of the
	// fitted vblank (0: none crossed it).
	Emptiest float64
}

// Known reports whether the fit has a period.
func (f Fit) Known() bool { return f.Period > 0 }

// Grid places a time on the fitted vblanks: the first at or after t.
func (f Fit) Grid() Grid {
	if !f.Known() {
		return nil
	}
	return func(t time.Duration) (time.Duration, bool) {
		k := (t - f.Phase) / f.Period
		v := f.Phase + k*f.Period
		for v < t {
			v += f.Period
		}
		for v-f.Period >= t {
			v -= f.Period
		}
		return v, true
	}
}

// minFitArrivals is the fewest changes a fit is made from: a quarter of a
// second at 60 Hz.
const minFitArrivals = 16

// FitChanges fits the observer's own vblank grid to the arrival times of
// the changes (the middle of the two polls around each). Changes whose
// polls lie more than maxGap apart (an observer stall: the arrival time
// is not known) are left out; maxGap ≤ 0 keeps all.
func FitChanges(changes []Change, maxGap time.Duration) Fit {
	var at []time.Duration
	for _, c := range changes {
		if c.Prev <= 0 || c.At < c.Prev || (maxGap > 0 && c.At-c.Prev > maxGap) {
			continue
		}
		at = append(at, c.Prev+(c.At-c.Prev)/2)
	}
	if len(at) < minFitArrivals {
		return Fit{}
	}
	// A first period: the median time between changes. Most frames
	// change the content once a vblank; replaced frames (two changes
	// close together) and repeats (a gap of two periods) are the tails.
	dts := make([]time.Duration, 0, len(at)-1)
	for i := 1; i < len(at); i++ {
		if d := at[i] - at[i-1]; d > 0 {
			dts = append(dts, d)
		}
	}
	if len(dts) < minFitArrivals/2 {
		return Fit{}
	}
	slices.Sort(dts)
	p := dts[len(dts)/2]
	// Refine: number each arrival's cycle against the line fitted so far
	// (a period off by a part in a thousand would otherwise misnumber
	// them after a few hundred cycles), then fit the line to the arrivals
	// within a quarter period of it; twice.
	a := at[0]
	for range 3 {
		var n, sk, st, skk, skt float64
		for _, t := range at {
			k := math.Round(float64(t-a) / float64(p))
			r := float64(t-a) - k*float64(p)
			if math.Abs(r) > float64(p)/4 {
				continue
			}
			n++
			sk += k
			st += float64(t - a)
			skk += k * k
			skt += k * float64(t-a)
		}
		den := n*skk - sk*sk
		if n < minFitArrivals || den <= 0 {
			break
		}
		slope := (n*skt - sk*st) / den
		icpt := (st - slope*sk) / n
		if slope <= 0 {
			break
		}
		a += time.Duration(icpt)
		p = time.Duration(slope)
	}
	f := Fit{Period: p, Arrivals: len(at)}
	// The phase: the emptiest stretch of the cycle.
	const bins = 64
	var h [bins]int
	for _, t := range at {
		ph := float64((t-a)%p) / float64(p)
		if ph < 0 {
			ph++
		}
		k := math.Round(float64(t-a) / float64(p))
		if r := float64(t-a) - k*float64(p); math.Abs(r) > float64(p)/4 {
			f.OffLine++
		}
		h[min(int(ph*bins), bins-1)]++
	}
	var s [bins]int
	for i := range bins {
		s[i] = h[(i+bins-1)%bins] + h[i] + h[(i+1)%bins]
	}
	low := slices.Min(s[:])
	// The longest circular run of bins at the minimum; its middle.
	bestStart, bestLen := 0, 0
	for i := range bins {
		if s[i] != low || s[(i+bins-1)%bins] == low {
			continue // not where a run starts
		}
		n := 0
		for n < bins && s[(i+n)%bins] == low {
			n++
		}
		if n > bestLen {
			bestStart, bestLen = i, n
		}
	}
	if bestLen == 0 { // every bin at the minimum: a uniform spread
		bestLen = bins
	}
	mid := (float64(bestStart) + float64(bestLen)/2) / bins
	f.Phase = a + time.Duration(mid*float64(p))
	f.Emptiest = float64(h[int(mid*bins)%bins]) / float64(len(at))
	return f
}
