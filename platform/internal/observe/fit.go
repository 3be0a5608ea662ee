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
// The period is the one at which the arrivals' phases agree best (a
// periodogram), refined by the least-squares slope of the arrival times
// against their cycle numbers (arrivals more than a quarter period off
// the line left out). The phase is where the fewest frames arrive: the
// middle of the emptiest stretch of the cycle (64 bins, each counted with
// its neighbours), so that moving the vblank within that stretch moves
// no frame from one vblank to another. A display scanning at that phase
// tears or misses the fewest of the frames as they arrived; frames that
// arrive later than the bulk cross it and count late, and a frame and
// the one that replaces it a millisecond later stay on one vblank (a
// phase chosen to make the frames read one a vblank split such pairs,
// and hid the drops of -breakpresent).
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
	// fitted vblank (0: none arrived close to it).
	Emptiest float64
}

// Known reports whether the fit has a period.
func (f Fit) Known() bool { return f.Period > 0 }

// Determined reports whether the changes show the grid: at least two
// thirds of the arrivals lie within a quarter period of the fitted line.
// Where fewer do (an app drawing a frame every two, three, four vblanks
// at random, under load), the content does not change on a grid the
// observer can see, and a grid fitted to it says nothing of the display.
func (f Fit) Determined() bool { return f.Known() && 3*f.OffLine <= f.Arrivals }

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
	// A first period: the median time between changes (most frames
	// change the content once a vblank; replaced frames, two changes
	// close together, and repeats, a gap of two periods, are the tails),
	// then the period within 15 % of it at which the arrivals' phases
	// agree best (under load the arrivals wander and the median with
	// them: 7.4 ms on a 6.94 ms grid was seen). A half or a double of the
	// period lies outside that range, and the phases agree as well on a
	// half: the range is what picks the one.
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
	head := at[:min(len(at), fitHead)]
	p := coherentPeriod(head, dts[len(dts)/2])
	// Refine: number each arrival's cycle on that period, then fit the
	// line to the arrivals within a quarter period of it, over ever
	// longer stretches of the run (each fit numbers the next stretch's
	// cycles without slipping one), and once more over the whole.
	a := at[0] + phaseOf(head, p)
	for n := len(head); ; n = min(4*n, len(at)) {
		a, p = lineFit(at[:n], a, p)
		if n == len(at) {
			a, p = lineFit(at, a, p)
			break
		}
	}
	f := Fit{Period: p, Arrivals: len(at)}
	// The phase: the middle of the emptiest stretch of the cycle.
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
	// The arrivals near each phase (a bin and its neighbours): the
	// vblank goes where the fewest are.
	var score [bins]int
	for i := range bins {
		score[i] = h[(i+bins-1)%bins] + h[i] + h[(i+1)%bins]
	}
	low := slices.Min(score[:])
	// The longest circular run of bins at the minimum; its middle.
	bestStart, bestLen := 0, 0
	for i := range bins {
		if score[i] != low || score[(i+bins-1)%bins] == low {
			continue // not where a run starts
		}
		n := 0
		for n < bins && score[(i+n)%bins] == low {
			n++
		}
		if n > bestLen {
			bestStart, bestLen = i, n
		}
	}
	if bestLen == 0 { // every bin at the minimum: a uniform spread
		bestLen = bins
	}
	mid := (float64(bestStart) + float64(bestLen-1)/2) / bins
	f.Phase = a + time.Duration(mid*float64(p))
	near := 0
	for _, t := range at {
		if d := absDur((t - f.Phase) % p); d <= p/bins || p-d <= p/bins {
			near++
		}
	}
	f.Emptiest = float64(near) / float64(len(at))
	return f
}

// coherentPeriod is the period within 15 % of p0 at which the phases of
// the times at agree best (the length of the mean of their unit phasors,
// a periodogram): late and replaced frames spread their phases, the
// frames on time pile theirs up, however many cycles the run spans.
func coherentPeriod(at []time.Duration, p0 time.Duration) time.Duration {
	span := float64(at[len(at)-1] - at[0])
	// Steps small enough that the phase drifts a twentieth of a cycle
	// over the run between two candidates.
	step := float64(p0) * float64(p0) / (20 * max(span, float64(p0)))
	best, bestC := p0, -1.0
	try := func(p float64) {
		if c := coherence(at, p); c > bestC {
			best, bestC = time.Duration(p), c
		}
	}
	for p := 0.85 * float64(p0); p <= 1.15*float64(p0); p += step {
		try(p)
	}
	lo := float64(best) - step
	for p := lo; p <= lo+2*step; p += step / 20 {
		try(p)
	}
	return best
}

// coherence is the length of the mean of the unit phasors of the times
// at on a cycle of period p: 1 when all share a phase, near 0 when they
// spread over the cycle.
func coherence(at []time.Duration, p float64) float64 {
	var sx, sy float64
	for _, t := range at {
		th := 2 * math.Pi * math.Mod(float64(t-at[0]), p) / p
		sx += math.Cos(th)
		sy += math.Sin(th)
	}
	return math.Hypot(sx, sy) / float64(len(at))
}

// phaseOf is the time from at[0] to the mean phase of the times at on
// a cycle of period p, within (-p/2, p/2].
func phaseOf(at []time.Duration, p time.Duration) time.Duration {
	var sx, sy float64
	for _, t := range at {
		th := 2 * math.Pi * float64((t-at[0])%p) / float64(p)
		sx += math.Cos(th)
		sy += math.Sin(th)
	}
	return time.Duration(math.Atan2(sy, sx) / (2 * math.Pi) * float64(p))
}

// fitHead is how many arrivals the periodogram looks at: 14 s at 144 Hz
// (its cost grows with the square of the span: 0.2 s here).
const fitHead = 2048

// lineFit fits the line t = a + k·p to the times at within a quarter
// period of the line given, numbering their cycles k on it.
func lineFit(at []time.Duration, a, p time.Duration) (time.Duration, time.Duration) {
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
		return a, p
	}
	slope := (n*skt - sk*st) / den
	if slope <= 0 {
		return a, p
	}
	return a + time.Duration((st-slope*sk)/n), time.Duration(slope)
}
