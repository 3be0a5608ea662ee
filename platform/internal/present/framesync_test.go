package present

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// fsCompositor is a synthetic compositing manager in frame sync, as
// Mutter runs it: at each repaint (period, phase on the app's clock) it
// takes every frame the window completed since the last (the counter's
// even values), sends _NET_WM_FRAME_DRAWN for each with the repaint's
// time (CLOCK_MONOTONIC µs, its clock compositorAhead ahead of the
// app's), then, once presented, _NET_WM_FRAME_TIMINGS with the
// presentation's offset from it (drawnToShown) and the refresh interval:
// the same presentation for every frame of one repaint, the last of which
// is the one shown. While hidden it presents nothing: timings without an
// offset. A frame whose alarm comes late (alarmLate) is painted at the
// repaint after its swap and reported with the next one's frames.
type fsCompositor struct {
	period, phase, drawnToShown time.Duration
	hidden                      bool
	// stamp is the compositor's stamp (µs) of a time on the app's
	// clock; nil: CLOCK_MONOTONIC as exactClock has it, compositorAhead
	// ahead.
	stamp    func(time.Duration) int64
	pending  []fsPending
	out      []fsMsg
	carry    []fsPending              // late alarms, reported with the next repaint
	shownAt  map[uint64]time.Duration // ground truth: swap → presentation (app clock)
	notShown map[uint64]bool
}

type fsPending struct {
	n     uint64
	value int64
	at    time.Duration
	// alarmLate: its content is painted at the repaint after its swap,
	// but its counter reaches the compositor after that repaint, and its
	// messages come with the next one's (Mutter's two paths).
	alarmLate bool
}

func (c *fsCompositor) complete(n uint64, value int64, at time.Duration, alarmLate bool) {
	c.pending = append(c.pending, fsPending{n, value, at, alarmLate})
}

// repaint is repaint k.
func (c *fsCompositor) repaint(k int64) {
	at := c.phase + time.Duration(k)*c.period
	var keep []fsPending
	var now []fsPending
	for _, p := range c.pending {
		if p.at < at {
			now = append(now, p)
		} else {
			keep = append(keep, p)
		}
	}
	c.pending = keep
	// A late alarm's frame is shown now and reported with the next
	// repaint; the one reported late from the last repaint comes now.
	late := c.carry
	c.carry = nil
	for _, p := range now {
		if p.alarmLate && !c.hidden {
			c.shownAt[p.n] = at + c.drawnToShown
			c.carry = append(c.carry, p)
		}
	}
	now = slices.DeleteFunc(now, func(p fsPending) bool { return p.alarmLate && !c.hidden })
	us := c.stamp
	if us == nil {
		us = func(d time.Duration) int64 { return int64((d + compositorAhead) / time.Microsecond) }
	}
	// Every frame of the repaint is drawn before any is presented, as
	// Mutter sends them: the late ones with the rest.
	// Mutter reads its clock for each message: a few µs apart; each
	// presentation's offset is from the frame's own drawn time.
	drawn := map[int64]int64{}
	clock := us(at)
	for _, p := range append(append([]fsPending{}, late...), now...) {
		drawn[p.value] = clock
		c.out = append(c.out, fsMsg{kind: fsDrawn, value: p.value, drawnUs: clock})
		clock += 3
	}
	for _, p := range late {
		c.out = append(c.out, fsMsg{kind: fsTimings, value: p.value, offsetUs: int32(us(at+c.drawnToShown) - drawn[p.value]), refreshUs: int32(c.period / time.Microsecond)})
	}
	for _, p := range now {
		if c.hidden {
			c.notShown[p.n] = true
			c.out = append(c.out, fsMsg{kind: fsTimings, value: p.value})
			continue
		}
		shown := at + c.drawnToShown
		c.shownAt[p.n] = shown
		c.out = append(c.out, fsMsg{kind: fsTimings, value: p.value, offsetUs: int32(us(shown) - drawn[p.value]), refreshUs: int32(c.period / time.Microsecond)})
	}
}

// fsTracker is a tracker in frame sync on the clock now, its matchers,
// and the compositor's clock clockOf gives.
func fsTracker(now func() time.Duration, clockOf func(now func() time.Duration) clockMap) (*Tracker, *wlMatcher, *fsMatcher) {
	tr := &Tracker{now: now, source: SourceFrameTimings, completeFrom: ^uint64(0)}
	m := &wlMatcher{clock: clockOf(now), name: SourceFrameTimings, clockID: 1}
	tr.wl = m
	return tr, m, &fsMatcher{}
}

// fsRun swaps 400 frames (some two in one repaint, some late, a stretch
// hidden, a sync request halfway) through a tracker in frame sync and
// returns what it reported.
func fsRun(t *testing.T, clockOf func(now func() time.Duration) clockMap) ([]Frame, *fsCompositor, *Tracker, *fsMatcher) {
	frames, comp, tr, f, _ := fsRunLate(t, clockOf)
	return frames, comp, tr, f
}

// fsRunLate is fsRun, and also returns how many frames the compositor
// showed whose alarm came late.
func fsRunLate(t *testing.T, clockOf func(now func() time.Duration) clockMap) ([]Frame, *fsCompositor, *Tracker, *fsMatcher, int) {
	t.Helper()
	return fsRunOn(t, newFSCompositor(nil), clockOf)
}

// newFSCompositor is a synthetic Mutter repainting at 60 Hz, its stamps
// stamp's (nil: fsCompositor's default).
func newFSCompositor(stamp func(time.Duration) int64) *fsCompositor {
	return &fsCompositor{period: time.Second / 60, phase: 2*time.Millisecond + 31*time.Microsecond, drawnToShown: 40 * time.Microsecond,
		shownAt: map[uint64]time.Duration{}, notShown: map[uint64]bool{}, stamp: stamp}
}

// fsRunOn is fsRunLate under compositor comp.
func fsRunOn(t *testing.T, comp *fsCompositor, clockOf func(now func() time.Duration) clockMap) ([]Frame, *fsCompositor, *Tracker, *fsMatcher, int) {
	t.Helper()
	var clock time.Duration
	tr, m, f := fsTracker(func() time.Duration { return clock }, clockOf)
	var frames []Frame
	lateShown := 0
	id := uint64(100)
	swap := func(at time.Duration, alarmLate bool) {
		clock = at
		tr.Swapped(id, at) // the platform's swapped: the counter set
		n := tr.nSwaps - 1
		comp.complete(n, f.value(n), at, alarmLate)
		id++
	}
	for k := int64(1); k < 400; k++ {
		v := comp.phase + time.Duration(k)*comp.period
		comp.hidden = k >= 250 && k < 270
		switch {
		case k == 200:
			// A resize: the window manager waits for a value 240 ahead.
			f.take(tr, m, fsMsg{kind: fsRequest, value: f.last + 240})
			swap(v-comp.period/2, false)
		case k%13 == 0:
			swap(v+comp.period/3, false) // late: in the next repaint
		case k%7 == 0:
			swap(v-comp.period/2, false)
			swap(v-comp.period/4, false) // replaces the one before
		case k%11 == 0 && (k+1)%13 != 0 && (k+1)%7 != 0:
			// Shown now, reported with the next frame, swapped a period
			// later. (Followed by none in its repaint, it would read a
			// repaint late: nothing tells it from a frame shown then.)
			swap(v-comp.period/2, true)
			if !comp.hidden {
				lateShown++
			}
		default:
			swap(v-comp.period/2, false)
		}
		comp.repaint(k)
		clock = v + comp.period/10
		if k%3 == 0 {
			for _, msg := range comp.out {
				f.take(tr, m, msg)
			}
			comp.out = comp.out[:0]
			for {
				fr, ok := tr.Collect()
				if !ok {
					break
				}
				frames = append(frames, fr)
			}
		}
	}
	return frames, comp, tr, f, lateShown
}

// fsCheck compares the reported frames with the compositor's ground truth.
func fsCheck(frames []Frame, comp *fsCompositor) []string {
	var bad []string
	shown, skipped := 0, 0
	for _, fr := range frames {
		n := fr.ID - 100
		if comp.notShown[n] {
			skipped++
			if fr.Mode != ModeSkip {
				bad = append(bad, fmt.Sprintf("frame %d never presented, reported %v at %v", fr.ID, fr.Mode, fr.Display))
			}
			continue
		}
		want, ok := comp.shownAt[n]
		if !ok {
			bad = append(bad, fmt.Sprintf("frame %d reported, never drawn", fr.ID))
			continue
		}
		shown++
		if d := fr.Display - want; fr.Mode == ModeSkip || d < -2*time.Microsecond || d > 2*time.Microsecond {
			bad = append(bad, fmt.Sprintf("frame %d presented at %v, reported %v at %v", fr.ID, want, fr.Mode, fr.Display))
		}
	}
	if shown < 300 || skipped == 0 {
		bad = append(bad, fmt.Sprintf("%d frames presented, %d not: the run does not test both", shown, skipped))
	}
	return bad
}

// Each frame's two messages are paired and matched to its swap by the
// counter's value, across a sync request's jump; its presentation time is
// the drawn time plus the offset, converted from CLOCK_MONOTONIC to the
// tracker's clock; a frame never presented is reported skipped; frames
// that shared a repaint share its presentation (the caller counts all but
// the last dropped); the presentations and the refresh make the grid.
func TestFrameTimingsMatchFramesByValue(t *testing.T) {
	frames, comp, tr, _, lateShown := fsRunLate(t, exactClock)
	// The times the late-alarm model moved are counted as the model's.
	if c, ok := tr.Clock(); !ok || lateShown == 0 || c.PresentedByModel != uint64(lateShown) {
		t.Errorf("%d presented times counted as the model's, want the %d late alarms shown", c.PresentedByModel, lateShown)
	}
	if bad := fsCheck(frames, comp); len(bad) > 0 {
		t.Fatalf("%d wrong of %d frames reported; first: %s", len(bad), len(frames), strings.Join(bad[:min(5, len(bad))], "; "))
	}
	if n := tr.nSwaps - tr.emitted; n > 8 {
		t.Errorf("%d swaps never reported", n)
	}
	if s := tr.Stats(); s.Unmatched > 0 {
		t.Errorf("%d messages matched no swap", s.Unmatched)
	}
	if g := tr.Grid(); !g.Known() || absDur(g.Period()-comp.period) > time.Microsecond {
		t.Errorf("grid period %v, the compositor's %v", g.Period(), comp.period)
	}
	if tr.Source() != SourceFrameTimings {
		t.Errorf("source %q, want %q", tr.Source(), SourceFrameTimings)
	}
}

// The check has teeth: with the compositor's times taken as the tracker's
// own clock it fails. And a sync request's value is the next swap's, and
// matches it (a matcher that forgot it would give the swap a value the
// window manager did not wait for, and match the compositor's messages to
// no swap).
func TestFrameTimingsBrokenMatchingIsCaught(t *testing.T) {
	frames, comp, _, _ := fsRun(t, func(now func() time.Duration) clockMap { return newClockMap(now, now) })
	if bad := fsCheck(frames, comp); len(bad) == 0 {
		t.Errorf("clock not converted: the check passed %d frames", len(frames))
	}
	// A request the matcher does not follow: the swap gets the value the
	// compositor did not see.
	f := &fsMatcher{}
	tr := &Tracker{now: func() time.Duration { return 0 }}
	tr.nSwaps = 1
	f.value(0)
	f.take(tr, nil, fsMsg{kind: fsRequest, value: 242})
	tr.nSwaps = 2
	if v := f.value(1); v != 242 {
		t.Fatalf("after a request for 242 the next value is %d", v)
	}
	if n, ok := f.swapOf(tr, 242); !ok || n != 1 {
		t.Errorf("value 242 matched swap %d (%v), want 1", n, ok)
	}
}

// A nested compositor repaints on a timer of its own (here 16.700 ms, while
// it reports a refresh of 16.667 ms), a millisecond either way: counted
// from the latest presentation (countFrom), each repaint is the next
// vblank; counted from the first, the phase drifts by a period over the
// run, and where it crosses the rounding's edge two repaints in a row get
// one index (a frame counted dropped that was shown).
func TestFrameTimingsCountVblanksFromTheLast(t *testing.T) {
	const refresh = 16666667 * time.Nanosecond
	const timer = 16700 * time.Microsecond
	rng := rand.New(rand.NewPCG(1, 2))
	m := &wlMatcher{name: SourceFrameTimings, refresh: refresh}
	var base time.Duration
	var fromFirst, fromLast uint64
	var firstSame, lastWrong int
	for k := range 600 {
		at := time.Second + time.Duration(k)*timer + time.Duration(rng.Int64N(int64(2*time.Millisecond))) - time.Millisecond
		if k == 0 {
			base, m.haveBas, m.lastAt, m.lastMSC = at-refresh, true, at, 1
		}
		first := uint64((at - base + refresh/2) / refresh)
		last := m.countFrom(at)
		if k > 0 && first == fromFirst {
			firstSame++
		}
		if k > 0 && last != fromLast+1 {
			lastWrong++
		}
		fromFirst, fromLast = first, last
	}
	if lastWrong != 0 {
		t.Errorf("counted from the latest presentation, %d of 600 repaints were not the next vblank", lastWrong)
	}
	if firstSame == 0 {
		t.Errorf("counted from the first presentation no two repaints shared a vblank: the run does not drift across the rounding's edge")
	}
	// Out of order: a frame reported after a later one counts back from it.
	if got := m.countFrom(m.lastAt - 2*refresh); got != fromLast-2 {
		t.Errorf("a presentation two refreshes before the latest counted %d, want %d", got, fromLast-2)
	}
}

// A frame whose frame timings never come is not in flight once a later
// frame is reported: the low-latency wait (WaitReported(0)) would
// otherwise wait its full timeout before every frame after it. Under a
// nested Mutter one frame's messages of 185 never came, and the app ran
// at a third of the display's rate from then on.
func TestLostReportDoesNotHoldTheFrameLoop(t *testing.T) {
	const period = time.Second / 60
	var clock time.Duration
	tr, m, f := fsTracker(func() time.Duration { return clock }, exactClock)
	swapAt := func(n uint64) time.Duration { return time.Second + time.Duration(n)*period }
	for n := range uint64(3) {
		clock = swapAt(n)
		tr.Swapped(100+n, clock)
		f.value(n)
	}
	clock = swapAt(3)
	if u := tr.Unreported(); u != 3 {
		t.Fatalf("%d frames unreported before any message, want 3", u)
	}
	// Frames 0 and 2 presented at the repaint after their swap; frame
	// 1's messages lost.
	for _, n := range []uint64{0, 2} {
		shown := swapAt(n) + period/2
		drawnUs := int64((shown - 40*time.Microsecond + compositorAhead) / time.Microsecond)
		f.take(tr, m, fsMsg{kind: fsDrawn, value: f.values[n], drawnUs: drawnUs})
		f.take(tr, m, fsMsg{kind: fsTimings, value: f.values[n], offsetUs: 40, refreshUs: int32(period / time.Microsecond)})
		if n == 0 {
			if u := tr.Unreported(); u != 2 {
				t.Errorf("%d frames unreported after frame 0's report, want 2", u)
			}
		}
	}
	if u := tr.Unreported(); u != 0 {
		// (WaitReported would wait for ever on this clock, which only
		// the test moves.)
		t.Fatalf("%d frames unreported after the last frame's report: frame 1, whose report was lost, holds the low-latency wait", u)
	}
	if w := tr.WaitReported(0, time.Second); w != 0 {
		t.Errorf("WaitReported(0) waited %v with every frame reported or given up", w)
	}
	clock = swapAt(4)
	tr.Swapped(103, clock)
	f.value(3)
	if u := tr.Unreported(); u != 1 {
		t.Errorf("%d frames unreported after a new swap, want 1", u)
	}
}

// xserverTime is Mutter's "high-resolution X server time" of a
// CLOCK_MONOTONIC time in µs (meta_translate_to_high_res_xserver_time:
// the milliseconds' low 32 bits, the microseconds kept).
func xserverTime(us int64) int64 { return (us/1000&0xffffffff)*1000 + us%1000 }

// uptimeClock is CLOCK_MONOTONIC on a machine up for uptime when the
// app's clock reads 0.
func uptimeClock(uptime time.Duration) func(now func() time.Duration) clockMap {
	return func(now func() time.Duration) clockMap {
		return newClockMap(func() time.Duration { return now() + uptime }, now)
	}
}

// mutterStamps are Mutter's stamps on that machine.
func mutterStamps(uptime time.Duration) func(time.Duration) int64 {
	return func(d time.Duration) int64 { return xserverTime(int64((d + uptime) / time.Microsecond)) }
}

// xWrap is 2³² ms, the X server's clock's period.
const xWrap = xWrapUs * time.Microsecond

// Mutter stamps frames in the X server's time, CLOCK_MONOTONIC modulo
// 2³² ms: after 49.7 days of uptime 2³² ms behind CLOCK_MONOTONIC. The
// offset is measured from the stamps, and every frame is matched and
// placed to the microsecond, as before the wrap. (Before #37 every
// message past the wrap was taken for another clock's and counted
// unmatched: nothing was reported, and the window counted hidden.)
func TestFrameTimingsAfterTheXServersClockWrapped(t *testing.T) {
	for _, c := range []struct {
		name   string
		uptime time.Duration
		offset int64 // the stamps' offset, µs
	}{
		{"uptime=4300000s", 4_300_000 * time.Second, -xWrapUs},
		{"uptime=46d", 46 * 24 * time.Hour, 0},
		{"uptime=3wraps", 3*xWrap + 5*time.Hour, -3 * xWrapUs},
	} {
		t.Run(c.name, func(t *testing.T) {
			frames, comp, tr, f, _ := fsRunOn(t, newFSCompositor(mutterStamps(c.uptime)), uptimeClock(c.uptime))
			if bad := fsCheck(frames, comp); len(bad) > 0 {
				t.Errorf("%d wrong of %d frames reported; first: %s", len(bad), len(frames), strings.Join(bad[:min(5, len(bad))], "; "))
			}
			if s := tr.Stats(); s.Unmatched > 0 {
				t.Errorf("%d messages matched no swap", s.Unmatched)
			}
			if tr.Hidden() {
				t.Errorf("the window counts hidden")
			}
			if s := f.stamps; s.offset != c.offset || !s.exact || s.measures != 1 {
				t.Errorf("stamps' offset %d µs (exact %v, %d measurements), want %d µs, exact, 1", s.offset, s.exact, s.measures, c.offset)
			}
		})
	}
}

// The stamps jump mid-run: the X server's clock wraps (the offset becomes
// -2³² ms), or a compositor measures an offset of its own again (Mutter's
// X11 session where the X server's clock is not CLOCK_MONOTONIC). The
// first frame stamped on the new clock measures the offset afresh:
// nothing is counted unmatched, and the frames are placed from the next
// repaints on, to the microsecond where the offset is Mutter's relation,
// to within a third of a refresh (the brackets' width here) where not.
func TestFrameTimingsFollowTheStampsAcrossAJump(t *testing.T) {
	const jumpAt = 3010 * time.Millisecond // between two repaints: no frame's presentation straddles it
	for _, c := range []struct {
		name   string
		uptime time.Duration
		stamp  func(time.Duration) int64
		offset int64
		exact  bool
	}{
		{"wrap", xWrap - jumpAt, mutterStamps(xWrap - jumpAt), -xWrapUs, true},
		{"own-offset", time.Hour, func(d time.Duration) int64 {
			us := int64((d + time.Hour) / time.Microsecond)
			if d >= jumpAt {
				us += 1_234_567
			}
			return us
		}, 1_234_567, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			frames, comp, tr, f, _ := fsRunOn(t, newFSCompositor(c.stamp), uptimeClock(c.uptime))
			if s := tr.Stats(); s.Unmatched > 0 {
				t.Errorf("%d messages matched no swap", s.Unmatched)
			}
			if tr.Hidden() {
				t.Errorf("the window counts hidden")
			}
			s := f.stamps
			if s.measures != 2 || s.exact != c.exact || (c.exact && s.offset != c.offset) || absDur(time.Duration(s.offset-c.offset)*time.Microsecond) > comp.period/3 {
				t.Errorf("stamps' offset %d µs (exact %v, %d measurements), want %d µs (exact %v), 2", s.offset, s.exact, s.measures, c.offset, c.exact)
			}
			// Past a jump to an offset that is not Mutter's relation,
			// the first two repaints' frames may be placed by a bracket
			// a frame or two wide, and the rest by a narrower one.
			tol := func(at time.Duration) time.Duration {
				switch {
				case c.exact || at < jumpAt:
					return 2 * time.Microsecond
				case at < jumpAt+2*comp.period:
					return 3 * comp.period
				}
				return comp.period / 3
			}
			var bad []string
			placed := 0
			for _, fr := range frames {
				n := fr.ID - 100
				want, shown := comp.shownAt[n]
				switch {
				case comp.notShown[n]:
					if fr.Mode != ModeSkip {
						bad = append(bad, fmt.Sprintf("frame %d never presented, reported %v", fr.ID, fr.Mode))
					}
				case !shown:
					bad = append(bad, fmt.Sprintf("frame %d reported, never drawn", fr.ID))
				case fr.Mode == ModeSkip:
					bad = append(bad, fmt.Sprintf("frame %d presented at %v, reported skipped", fr.ID, want))
				case absDur(fr.Display-want) > tol(want):
					bad = append(bad, fmt.Sprintf("frame %d presented at %v, reported at %v", fr.ID, want, fr.Display))
				default:
					placed++
				}
			}
			if len(bad) > 0 || placed < 300 {
				t.Errorf("%d frames placed; %d wrong of %d; first: %s", placed, len(bad), len(frames), strings.Join(bad[:min(5, len(bad))], "; "))
			}
		})
	}
}
