package observe

import (
	"math"
	"slices"
	"sort"
	"time"

	"github.com/tickframe/tickframe/renderer/marker"
)

// Grid places a time on the display's vblanks: the first vblank at or
// after t (present.Grid.Next without the MSC). ok is false where the
// display gave no vblanks; the observer then takes the changes' own times.
type Grid func(t time.Duration) (vblank time.Duration, ok bool)

// Summary is the p50, p99 and max of a set of durations, exact (sorted,
// not bucketed), and their count.
type Summary struct {
	N             int
	P50, P99, Max time.Duration
}

func summarize(d []time.Duration) Summary {
	if len(d) == 0 {
		return Summary{}
	}
	slices.Sort(d)
	return Summary{N: len(d), P50: d[len(d)/2], P99: d[min(len(d)-1, int(math.Ceil(0.99*float64(len(d))))-1)], Max: d[len(d)-1]}
}

// Report is what the observer saw, beside what the app's log says of the
// same frames (the span from the first frame the observer saw to the
// last).
type Report struct {
	// FirstID and LastID bound the span compared.
	FirstID, LastID uint64
	// Displayed frames the observer saw; Dropped frames drawn in the span
	// it never saw; Repeated vblanks that showed the previous frame again.
	Displayed, Dropped, Repeated uint64
	// The app's own counts over the same span, from its log.
	AppDisplayed, AppDropped, AppRepeated uint64
	// AppOnly counts frames the app counted displayed that the observer
	// never saw; ObserverOnly frames it saw that the app counted dropped.
	AppOnly, ObserverOnly uint64
	// OtherVblank counts frames both saw whose vblank differs.
	OtherVblank uint64
	// Replaced counts the dropped frames the observer saw in the
	// framebuffer that the next frame replaced before their vblank.
	Replaced uint64
	// Unmatched counts marker changes no logged frame explains.
	Unmatched uint64
	// FrameTime is the time between consecutive displayed frames as seen.
	FrameTime Summary
	// AnimErr is PresentMon's animation error on the frames seen, and
	// AppAnimErr on the frames the app counted displayed, with its times:
	// between consecutive displayed frames on one segment of the
	// simulation's timeline, |Δ simulated time shown − Δ display time|.
	AnimErr, AppAnimErr Summary
	// Period is the display period the repeats are counted in.
	Period time.Duration
}

// seen is one frame the observer saw.
type seen struct {
	i       int // index in the log
	display time.Duration
}

func absDur(d time.Duration) time.Duration { return max(d, -d) }

// Analyze joins the marker changes with the app's log. A change of colour
// c seen at time t is the newest logged frame of colour c swapped before
// t: a frame cannot reach the screen before its swap, and each frame is in
// the framebuffer before the next one's swap starts (the app's round trip
// after each swap), so it is that frame unless the observer fell 16
// frames behind. Its display time is the first vblank after it reached
// the framebuffer (the middle of the two polls around the change); a
// frame the next one replaced before that vblank was never scanned out.
func Analyze(changes []Change, log []LogFrame, grid Grid, period time.Duration) Report {
	r := Report{Period: period}
	var shown []seen
	last := -1
	for _, c := range changes {
		if len(log) == 0 || c.At < log[0].Swap {
			continue // from before the log
		}
		j := sort.Search(len(log), func(k int) bool { return log[k].Swap > c.At }) - 1
		k := j
		for k > last && k > j-len(marker.Palette) && uint8(log[k].ID%uint64(len(marker.Palette))) != c.Index {
			k--
		}
		if k <= last || uint8(log[k].ID%uint64(len(marker.Palette))) != c.Index {
			r.Unmatched++
			continue
		}
		// The frame reached the framebuffer between the two polls: the
		// middle is the estimate, off by at most half a poll interval.
		t := c.At
		if c.Prev > 0 && c.Prev < c.At {
			t = c.Prev + (c.At-c.Prev)/2
		}
		d := t
		if grid != nil {
			if v, ok := grid(t); ok {
				d = v
			}
		}
		shown = append(shown, seen{i: k, display: d})
		last = k
	}
	// A frame the next one replaced before their vblank was in the
	// framebuffer but never scanned out: dropped, as PresentMon counts it.
	kept := shown[:0]
	for n, s := range shown {
		if n+1 < len(shown) && shown[n+1].display <= s.display+period/2 {
			r.Replaced++
			continue
		}
		kept = append(kept, s)
	}
	shown = kept
	if len(shown) == 0 {
		return r
	}
	first, end := shown[0].i, shown[len(shown)-1].i
	r.FirstID, r.LastID = log[first].ID, log[end].ID
	isSeen := make(map[int]time.Duration, len(shown))
	for _, s := range shown {
		isSeen[s.i] = s.display
	}
	var appShown []seen
	for i := first; i <= end; i++ {
		_, ok := isSeen[i]
		if log[i].Shown {
			r.AppDisplayed++
			appShown = append(appShown, seen{i: i, display: log[i].Display})
		} else {
			r.AppDropped++
		}
		switch {
		case !ok:
			r.Dropped++
			if log[i].Shown {
				r.AppOnly++
			}
		case !log[i].Shown:
			r.ObserverOnly++
		case period > 0 && absDur(log[i].Display-isSeen[i]) > period/2, period == 0 && log[i].Display != isSeen[i]:
			r.OtherVblank++
		}
	}
	r.Displayed = uint64(len(shown))
	var ft []time.Duration
	r.Repeated, ft, r.AnimErr = walk(shown, log, period)
	r.FrameTime = summarize(ft)
	r.AppRepeated, _, r.AppAnimErr = walk(appShown, log, period)
	return r
}

// walk counts the repeats between consecutive displayed frames, their
// frame times and their animation error.
func walk(s []seen, log []LogFrame, period time.Duration) (repeated uint64, ft []time.Duration, anim Summary) {
	var errs []time.Duration
	for n := 1; n < len(s); n++ {
		a, b := s[n-1], s[n]
		dt := b.display - a.display
		ft = append(ft, dt)
		if period > 0 {
			if v := int64((dt + period/2) / period); v > 1 {
				repeated += uint64(v - 1)
			}
		}
		fa, fb := &log[a.i], &log[b.i]
		if fa.HasSim && fb.HasSim && math.Abs(fa.Seg-fb.Seg) < 1e-6 && dt > 0 {
			e := (fb.Sim - fa.Sim) - dt.Seconds()
			errs = append(errs, time.Duration(math.Abs(e)*1e9))
		}
	}
	return repeated, ft, summarize(errs)
}
