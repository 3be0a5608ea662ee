package observe

import (
	"math"
	"slices"
	"sort"
	"time"

	"github.com/tickframe/tickframe/platform/internal/marker"
)

// Grid places a time on the display's vblanks: the first vblank at or
// after t (present.Grid.Next without the MSC). ok is false where the
// display gave no vblanks; the observer then takes the changes' own times.
type Grid func(t time.Duration) (vblank time.Duration, ok bool)

// LogGrid is the display's vblanks as the app's log has them: the vblank
// of the nearest frame the app counted shown, on a grid of period. The
// app took them from the display system's reports (package present), as
// the observer takes its own; comparing the two places each frame was
// seen in the framebuffer on the same vblanks, so that what is compared is
// when each frame got there, not two fits of one noisy clock (Xvfb's
// fake CRTC reports the time its millisecond timer fired, later under
// load). GridOffset measures how far the two fits are apart.
func LogGrid(log []LogFrame, period time.Duration) Grid {
	var at []time.Duration
	for _, f := range log {
		if f.Shown && f.Display > 0 && (len(at) == 0 || f.Display > at[len(at)-1]) {
			at = append(at, f.Display)
		}
	}
	if len(at) == 0 || period <= 0 {
		return nil
	}
	return func(t time.Duration) (time.Duration, bool) {
		j := sort.Search(len(at), func(k int) bool { return at[k] >= t })
		if j == len(at) || (j > 0 && t-at[j-1] < at[j]-t) {
			j = max(j-1, 0)
		}
		k := (t - at[j] + period - 1) / period
		if t <= at[j] {
			k = -((at[j] - t) / period)
		}
		return at[j] + k*period, true
	}
}

// GridOffset is how far grid b's vblanks lie from grid a's over the
// times ts: the median and the largest distance from each of a's vblanks
// to b's nearest, within a period.
func GridOffset(a, b Grid, period time.Duration, ts []time.Duration) (p50, worst time.Duration) {
	if a == nil || b == nil || period <= 0 || len(ts) == 0 {
		return 0, 0
	}
	d := make([]time.Duration, 0, len(ts))
	for _, t := range ts {
		va, _ := a(t)
		vb, _ := b(va - period/2)
		x := absDur(vb - va)
		d = append(d, x)
	}
	s := summarize(d)
	return s.P50, s.Max
}

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
	// never saw in the framebuffer; ObserverOnly frames it saw displayed
	// that the app counted dropped.
	AppOnly, ObserverOnly uint64
	// OtherVblank counts frames both count displayed whose vblank
	// differs (beyond GridShift), and frames the app counts displayed
	// that the observer saw replaced before its vblank.
	OtherVblank uint64
	// Ambiguous counts the frames seen with a vblank between the two
	// polls around their change (the observer cannot tell which vblank
	// they made), and the frames the app counted shown at a vblank that
	// fell in a gap between two polls, unseen: its precision, its poll
	// gaps. They are not counted as disagreements (AppOnly, ObserverOnly,
	// OtherVblank).
	Ambiguous uint64
	// Replaced counts the dropped frames the observer saw in the
	// framebuffer that the next frame replaced before their vblank.
	Replaced uint64
	// Unmatched counts marker changes no logged frame explains.
	Unmatched uint64
	// Unseen counts the frames the observer did not see whose time in the
	// framebuffer (from their swap to the swap after next) overlaps one
	// of its stalls (WatchStats.Stalls): its instrument was blind then.
	// They are left out of every count and pair, on both sides.
	Unseen uint64
	// GridShift is the median distance from the observer's vblank of a
	// frame to the app's, over the frames both count displayed: zero on
	// the app's own vblanks, the phase between the two grids on the
	// observer's fit. OtherVblank counts frames off by more than half a
	// period beyond it.
	GridShift time.Duration
	// GridShiftP90 is the 90th percentile of the same distances (the app's
	// display time minus the observer's): where the app's times lie for
	// the frames nearest the observer's, ahead of them. On a compositor's
	// repaints, where the observer's time is the arrival, a nested Mutter
	// stamps a frame 2 to 4 ms before it arrives, and for stretches of a
	// second reports frames a repaint before their content reached its
	// output (its counter's alarm ahead of XWayland's commit, which waits
	// for a frame callback): the median moves by a repaint there (-20 ms
	// in a quiet run whose stretches covered most of it), this stayed
	// 2 to 5.5 ms ahead of arrival (36 runs). A source that gave each
	// frame its neighbour's feedback moves both by a frame.
	GridShiftP90 time.Duration
	// FrameTime is the time between consecutive displayed frames as seen.
	FrameTime Summary
	// SeenAnimErr is PresentMon's animation error as a viewer saw it:
	// between consecutive displayed frames on one segment of the
	// simulation's timeline, |Δ simulated time shown − Δ display time|,
	// over the frames the observer saw (but those it could not place,
	// Ambiguous). AnimErr and AppAnimErr are the observer's and the
	// app's figure over the same pairs of frames, those that both count
	// displayed one after the other: the comparison.
	SeenAnimErr, AnimErr, AppAnimErr Summary
	// AppSpanAnimErr is the app's animation error over all the pairs of
	// frames it counts displayed one after the other in the span (but
	// those with a frame the observer could not place or did not see):
	// beside SeenAnimErr, the two-sided comparison of the worst frames
	// (the app missing one the observer saw, or inventing one).
	AppSpanAnimErr Summary
	// AppP99Band is the app's error at the ranks the p99 moves to when the
	// frames the two place differently (OtherVblank, ObserverOnly,
	// AppOnly: two pairs each) go the other way.
	AppP99Band [2]time.Duration
	// Period is the display period the repeats are counted in.
	Period time.Duration
	// AppSteps counts the app's pairs of consecutive displayed frames the
	// repeats are counted over; AppOffGrid those whose display times lie
	// more than a quarter period from a whole number of periods apart.
	// On a display system that stamps vblanks these are none (the
	// repeats are whole vblanks); behind a compositor whose presentation
	// times are not vblanks (wp_presentation without its VSYNC flag:
	// Weston's x11 backend presents on a timer, about 21 ms apart at a
	// nominal 60 Hz) most are, and a repeat is a rounding of such a step
	// on either side, not a vblank either could see.
	AppSteps, AppOffGrid uint64
}

// seen is one frame the observer saw.
type seen struct {
	i         int // index in the log
	display   time.Duration
	ambiguous bool // a vblank fell between the two polls around its change
}

// polledAfter reports whether the observer read the framebuffer at or
// after t and before the next change it saw (the poll before that change
// came at or after t): what it read then was an older frame. Else a poll
// gap spans t, and a frame on the screen only around t may have come and
// gone unseen.
func polledAfter(changes []Change, t time.Duration) bool {
	j := sort.Search(len(changes), func(k int) bool { return changes[k].At >= t })
	return j < len(changes) && changes[j].Prev >= t
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
	return analyze(changes, log, grid, period, nil, false)
}

// analyze is Analyze, leaving out the frames the observer did not see
// whose time in the framebuffer overlaps one of its stalls. With
// repaints (and no grid) each change is one repaint of a compositor's
// output that put its frame out: none is replaced (see
// Comparison.Repaints), and one seen across a stall of the observer's
// cannot be placed.
// compareFault breaks the analysis on purpose, for the test that replays
// the recorded runs (the golden cases) to show that each notices: never
// set outside it.
var compareFault int

const (
	// faultPollTime times a frame's arrival by the poll that saw it,
	// not by the middle of the two polls it came between.
	faultPollTime = 1 + iota
	// faultBlindToStalls ignores the observer's stalls: a frame it could
	// not have seen is counted dropped.
	faultBlindToStalls
	// faultVblankEarly places each frame on the vblank before the one
	// at or after its arrival.
	faultVblankEarly
)

func analyze(changes []Change, log []LogFrame, grid Grid, period time.Duration, stalls []Span, repaints bool) Report {
	if compareFault == faultBlindToStalls {
		stalls = nil
	}
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
		if c.Prev > 0 && c.Prev < c.At && compareFault != faultPollTime {
			t = c.Prev + (c.At-c.Prev)/2
		}
		d := t
		if grid != nil {
			if v, ok := grid(t); ok {
				d = v
				if compareFault == faultVblankEarly {
					d -= period
				}
			}
		}
		amb := false
		switch {
		case grid != nil && c.Prev > 0:
			a, _ := grid(c.Prev)
			b, _ := grid(c.At)
			amb = a != b
		case repaints && c.Prev > 0:
			// Timed by its arrival: seen across a stall of the
			// observer's, it came anywhere in the stall.
			amb = c.At-c.Prev > StallGap
		}
		if amb {
			r.Ambiguous++
		}
		shown = append(shown, seen{i: k, display: d, ambiguous: amb})
		last = k
	}
	// A frame the next one replaced before their vblank was in the
	// framebuffer but never scanned out: dropped, as PresentMon counts it.
	// The frames the observer could not have seen: not seen, their time
	// in the framebuffer overlapping a stall.
	wasSeen := make(map[int]bool, len(shown))
	for _, x := range shown {
		wasSeen[x.i] = true
	}
	blind := make([]int, len(log)+1) // blind[i]: how many of frames 0..i-1 are blind
	for i := range log {
		b := 0
		if !wasSeen[i] && overlaps(stalls, log[i].Swap, windowEnd(log, i, period)) {
			b = 1
		}
		blind[i+1] = blind[i] + b
	}
	isBlind := func(i int) bool { return blind[i+1] > blind[i] }
	between := func(i, j int) bool { return blind[j] > blind[i+1] } // a blind frame strictly between i and j
	kept := shown[:0]
	replacedUnsure := map[int]bool{}
	for n, s := range shown {
		if !repaints && n+1 < len(shown) && shown[n+1].display <= s.display+period/2 {
			r.Replaced++
			if s.ambiguous || shown[n+1].ambiguous {
				replacedUnsure[s.i] = true
			}
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
	unsure := make(map[int]bool)
	for _, s := range shown {
		isSeen[s.i] = s.display
		if s.ambiguous {
			unsure[s.i] = true
		}
	}
	for i := range replacedUnsure {
		unsure[i] = true
	}
	// A frame the app places across a stall of the observer's a period or
	// longer: a stall of the observer's real-time thread is one of the
	// machine's (nothing of its own runs then), and the app's read of
	// that frame's landing (its round trip, its thread back on a CPU)
	// waited through it as well, later by up to its length than the frame
	// got there. Neither side can place it: counted with those the
	// observer could not place.
	for i := first; i <= end; i++ {
		if !unsure[i] && log[i].Shown && log[i].Display > log[i].Swap && longStall(stalls, log[i].Swap, log[i].Display, period) {
			unsure[i] = true
			r.Ambiguous++
		}
	}
	var appShown []seen
	var shifts []time.Duration
	for i := first; i <= end; i++ {
		if isBlind(i) {
			r.Unseen++
			continue
		}
		if d, ok := isSeen[i]; ok && log[i].Shown && !unsure[i] {
			shifts = append(shifts, log[i].Display-d)
		}
	}
	if len(shifts) > 0 {
		slices.Sort(shifts)
		r.GridShift = shifts[len(shifts)/2]
		r.GridShiftP90 = shifts[min(len(shifts)-1, 9*len(shifts)/10)]
	}
	noPoll := map[int]bool{}
	for i := first; i <= end; i++ {
		if isBlind(i) {
			continue
		}
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
			if log[i].Shown && !unsure[i] {
				if wasSeen[i] {
					// Seen in the framebuffer, replaced before the
					// observer's vblank: placed differently, not absent.
					r.OtherVblank++
				} else if polledAfter(changes, log[i].Display) {
					r.AppOnly++
				} else {
					r.Ambiguous++ // no poll while it was there
					noPoll[i] = true
				}
			}
		case unsure[i]:
			// The observer cannot tell which vblank: not a disagreement.
		case !log[i].Shown:
			r.ObserverOnly++
		case period > 0 && absDur(log[i].Display-isSeen[i]-r.GridShift) > period/2, period == 0 && log[i].Display-isSeen[i] != r.GridShift:
			r.OtherVblank++
		}
	}
	r.Displayed = uint64(len(shown))
	// unplaced(i, j): a frame the observer could not place lies in i..j
	// (unsure, or counted displayed by the app while the observer did not
	// poll). A pair of frames around one (the observer's pair across it,
	// the app's pairs through it) is a guess on either side, and counts
	// on neither.
	nUnplaced := make([]int, len(log)+1)
	for i := range log {
		nUnplaced[i+1] = nUnplaced[i]
		if unsure[i] || noPoll[i] {
			nUnplaced[i+1]++
		}
	}
	unplaced := func(i, j int) bool { return nUnplaced[j+1] > nUnplaced[i] }
	var ft []time.Duration
	var seenPairs, appPairs map[[2]int]time.Duration
	r.Repeated, ft, r.SeenAnimErr, seenPairs = walk(shown, log, period, unplaced, between)
	r.FrameTime = summarize(ft)
	var appSteps []time.Duration
	r.AppRepeated, appSteps, r.AppSpanAnimErr, appPairs = walk(appShown, log, period, unplaced, between)
	r.AppSteps = uint64(len(appSteps))
	for _, dt := range appSteps {
		if period > 0 {
			k := (dt + period/2) / period
			if absDur(dt-k*period) > period/4 {
				r.AppOffGrid++
			}
		}
	}
	eo, ea := common(seenPairs, appPairs)
	r.AnimErr, r.AppAnimErr = summarize(eo), summarize(ea)
	// Each frame the two place differently moves the errors of the two
	// pairs it is in: the app's p99 could be any of the values that many
	// ranks either side.
	if n := len(ea); n > 0 {
		k := 2 * int(r.OtherVblank+r.ObserverOnly+r.AppOnly)
		rank := min(n-1, int(math.Ceil(0.99*float64(n)))-1)
		r.AppP99Band = [2]time.Duration{ea[max(rank-k, 0)], ea[min(rank+k, n-1)]}
	}
	return r
}

// walk counts the repeats between consecutive displayed frames, their
// frame times and their animation error. A pair with a frame the
// observer could not place at either end or between them (unplaced: a
// vblank between the polls around its change, as after a stall of the
// observer, whose change spans the stall) counts none of them, on either
// side: the frame's time is a guess within that span.
func walk(s []seen, log []LogFrame, period time.Duration, unplaced, between func(i, j int) bool) (repeated uint64, ft []time.Duration, anim Summary, pairs map[[2]int]time.Duration) {
	var errs []time.Duration
	pairs = make(map[[2]int]time.Duration, len(s))
	for n := 1; n < len(s); n++ {
		a, b := s[n-1], s[n]
		if between(a.i, b.i) {
			continue // a frame between them the observer could not see
		}
		if unplaced(a.i, b.i) {
			continue // a frame the observer could not place on a vblank
		}
		dt := b.display - a.display
		ft = append(ft, dt)
		if period > 0 {
			if v := int64((dt + period/2) / period); v > 1 {
				repeated += uint64(v - 1)
			}
		}
		fa, fb := &log[a.i], &log[b.i]
		if fa.HasSim && fb.HasSim && math.Abs(fa.Seg-fb.Seg) < 1e-6 && dt > 0 {
			e := time.Duration(math.Abs((fb.Sim-fa.Sim)-dt.Seconds()) * 1e9)
			errs = append(errs, e)
			pairs[[2]int{a.i, b.i}] = e
		}
	}
	return repeated, ft, summarize(errs), pairs
}

// windowEnd bounds the time frame i of the log can have spent in the
// framebuffer: each frame is there before the next one's swap starts
// (the app's round trip after each swap), so frame i+1 has replaced it
// by the swap after next; and it is there at least until the vblank the
// app says showed it, and a period after.
func windowEnd(log []LogFrame, i int, period time.Duration) time.Duration {
	end := log[i].Swap + 2*period
	if i+2 < len(log) {
		end = max(end, log[i+2].Swap)
	}
	if log[i].Display > 0 {
		end = max(end, log[i].Display+period)
	}
	return end
}

// longStall reports whether a span (in time order) of at least least meets
// [from, to].
func longStall(spans []Span, from, to, least time.Duration) bool {
	for j := sort.Search(len(spans), func(k int) bool { return spans[k].To >= from }); j < len(spans) && spans[j].From <= to; j++ {
		if spans[j].To-spans[j].From >= least {
			return true
		}
	}
	return false
}

// overlaps reports whether any of the spans (in time order) meets
// [from, to].
func overlaps(spans []Span, from, to time.Duration) bool {
	j := sort.Search(len(spans), func(k int) bool { return spans[k].To >= from })
	return j < len(spans) && spans[j].From <= to
}

// common returns the errors of the pairs both a and b have, a's and b's.
func common(a, b map[[2]int]time.Duration) (ea, eb []time.Duration) {
	for k, v := range a {
		if w, ok := b[k]; ok {
			ea, eb = append(ea, v), append(eb, w)
		}
	}
	return ea, eb
}
