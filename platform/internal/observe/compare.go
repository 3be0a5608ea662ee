package observe

import (
	"math"
	"slices"
	"time"
)

// Comparison is what the observer saw of the app's frames, placed two
// ways:
//
//   - Server: on the display system's vblanks as the app had them (the
//     vblank of the frames the app counted shown, LogGrid). It shares the
//     app's definition of when a frame is shown, so it compares when each
//     frame reached the framebuffer, free of two fits of one noisy clock;
//     it cannot catch an error in that definition.
//   - Own: on a grid the observer fitted to the framebuffer's changes
//     alone (FitChanges: their rate, and the phase at which the fewest
//     frames arrive), from the arrival time of each frame. It owes the
//     app nothing: a fake CRTC at another rate than the app paces, or a
//     vblank phase that puts frames a vblank late that reached the
//     framebuffer in time, shows here as a disagreement.
//   - Repaints: on the framebuffer's changes as they came, each one a
//     repaint of a compositor's output. Behind a compositor nested in
//     the observer's X server (a Mutter, a Weston), the framebuffer is
//     the compositor's output window, which it draws into on a clock of
//     its own, not on that server's vblanks, and which nothing scans out:
//     each change is a repaint the compositor put out. The time it
//     stamps a presentation with is its own reading, which the frame
//     reaches the framebuffer before or after (a nested Mutter's stamp
//     comes 2 to 4 ms before the frame when quiet, up to 30 ms before
//     when starved of a CPU, now and then a millisecond after), so on
//     the app's vblanks (the first at or after the arrival) a frame
//     lands one side of its stamp or the other at random and a late
//     repaint reads as a drop (7 of 409 frames in a run under -stress 4
//     that agree here). Here a frame is displayed when it reached the
//     framebuffer, dropped when it never did, and shown from its
//     arrival: the frame times, repeats and animation error are the
//     arrivals'. It owes the app nothing but the period (the observer's
//     own, from the display's vblanks). A frame seen across a stall of
//     the observer's is not placed.
//
// All three leave out the frames the observer could not see (Report.Unseen:
// not seen, with a stall of its polling thread over their time in the
// framebuffer) and count apart the frames it could not place
// (Report.Ambiguous).
type Comparison struct {
	Server, Own, Repaints Report
	// Fit is the observer's own grid; Own is empty where it is not
	// Determined, or where OffRate.
	Fit Fit
	// OffRate: the fit is determined but its period is a whole multiple
	// (2 or more, within 5 %) of the vblanks' the app's frames are placed
	// on (LogPeriod). The content then changed on a multiple of the
	// display's period (an app that kept up with every other vblank fits
	// at half the rate), and a grid of that multiple is not the display's:
	// no frames are placed on it. Any other fit is kept: faster than the
	// app's vblanks, the content changed more often than the app says the
	// display scans (a 60 Hz fake CRTC under an app paced at 144 Hz);
	// slower but no multiple, the output's cadence is not the rate stated
	// (Weston's x11 backend repaints at 44 to 50 Hz for a stated 60): the
	// disagreements the own placement is there to show.
	OffRate bool
	// GridOffsetP50 and GridOffsetMax are how far the observer's own fit
	// of the display system's vblanks (Result.Grid) lies from the app's
	// (GridOffset).
	GridOffsetP50, GridOffsetMax time.Duration
	// Floor is the observer's measured floor for a figure made of two
	// placements (a frame time, an animation error): twice its poll
	// gap's p99. An agreement bound tighter than that asks more of the
	// instrument than it measured of itself.
	Floor time.Duration
	// Stalled is the observer's blind time (the sum of its stalls).
	Stalled time.Duration
}

// Compare joins what a session saw with the app's frame log, on the
// app's vblanks and on the observer's own.
func Compare(res Result, log []LogFrame) Comparison {
	c := Comparison{Floor: 2 * res.Watch.GapP99}
	for _, s := range res.Watch.Stalls {
		c.Stalled += s.To - s.From
	}
	c.Fit = FitChanges(res.Changes, StallGap)
	own := c.Fit.Period
	sp := LogPeriod(log, res.Period)
	lg := LogGrid(log, sp)
	if lg == nil {
		sp = own // no vblanks from the display: the arrival times
	}
	c.Server = analyze(res.Changes, log, lg, sp, res.Watch.Stalls, false)
	rp := res.Period // the observer's own measure of the refresh
	if rp <= 0 {
		rp = sp
	}
	c.Repaints = analyze(res.Changes, log, nil, rp, res.Watch.Stalls, true)
	c.OffRate = c.Fit.Determined() && sp > 0 && subRate(own, sp)
	if c.Fit.Determined() && !c.OffRate {
		c.Own = analyze(res.Changes, log, c.Fit.Grid(), own, res.Watch.Stalls, false)
	}
	ts := make([]time.Duration, 0, len(log))
	for _, f := range log {
		ts = append(ts, f.Swap)
	}
	c.GridOffsetP50, c.GridOffsetMax = GridOffset(lg, res.Grid, res.Period, ts)
	return c
}

// subRate reports whether period p is a whole multiple of base, 2 or
// more, within 5 % of it.
func subRate(p, base time.Duration) bool {
	r := float64(p) / float64(base)
	k := math.Round(r)
	return k >= 2 && math.Abs(r-k) <= 0.05*k
}

// LogPeriod is the period of the vblanks the app's log puts its frames
// on: the display's, period (as the observer measured it), where the
// log's display times step by it; else the step of those times, where the
// app's figures are on vblanks of another rate (an emulated display
// beside a fake CRTC at another rate): the median of the shortest steps
// that recur (at least 3 times and 1 % of the steps, within 10 %: frames
// shown one vblank apart; a frame that missed its vblank steps by more)
// and on whose multiples 4 in 5 of the steps lie (within a tenth of it),
// or a half, third or quarter of it where the steps lie on its multiples
// instead (an app that never showed two frames a vblank apart). A
// cluster of short steps that is no grid is passed over: a vblank stamped
// late and the next on time step by less than a period (5.47 ms steps,
// 1 % of those of a 144 Hz fake CRTC that a build loop delayed, were once
// taken for the period, and every frame between read repeated).
// With fewer than 16 steps it is period.
func LogPeriod(log []LogFrame, period time.Duration) time.Duration {
	var steps []time.Duration
	var last time.Duration
	for _, f := range log {
		if !f.Shown || f.Display <= 0 {
			continue
		}
		if last > 0 && f.Display > last {
			steps = append(steps, f.Display-last)
		}
		last = f.Display
	}
	if len(steps) < 16 {
		return period
	}
	slices.Sort(steps)
	need := max(3, len(steps)/100)
	var clusters []time.Duration // the median of each cluster, shortest first
	for i := 0; i < len(steps); {
		s := steps[i]
		j := i
		for j < len(steps) && steps[j] <= s+s/10 {
			j++
		}
		if j-i < need {
			i++
			continue
		}
		clusters = append(clusters, steps[i+(j-i)/2])
		i = j
	}
	// A cluster is the grid's period, or, where no cluster is, a whole
	// multiple of it: an app that never showed two frames a vblank apart
	// (at a third of an emulated 360 Hz the shortest steps that recur are
	// 5.56 ms, and its 8.33 ms steps lie on no multiple of them). Every
	// cluster is tried whole before any is divided, so that a cluster of
	// late stamps' short steps is not divided into a grid fine enough for
	// anything.
	for k := time.Duration(1); k <= 4; k++ {
		for _, c := range clusters {
			p := c / k
			if p < time.Millisecond || !onMultiples(steps, p, 0.8) {
				continue
			}
			if period > 0 && absDur(p-period) <= period/50 {
				return period
			}
			return p
		}
	}
	return period
}

// onMultiples reports whether at least share of steps lie within a tenth
// of p of a whole multiple of p.
func onMultiples(steps []time.Duration, p time.Duration, share float64) bool {
	n := 0
	for _, s := range steps {
		k := math.Round(float64(s) / float64(p))
		if k >= 1 && math.Abs(float64(s)-k*float64(p)) <= float64(p)/10 {
			n++
		}
	}
	return float64(n) >= share*float64(len(steps))
}
