package present

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// wlCompositor is a synthetic Wayland compositor with wp_presentation,
// as the protocol defines it: a feedback request applies to the
// surface's next commit; at each vblank (period, phase on its own clock,
// which runs compositorAhead ahead of the app's) it shows the newest
// committed frame and sends presented for every feedback of that commit,
// and discarded for the feedbacks of commits a newer one replaced. Its
// events are delivered in bursts, in an order shuffled within a burst
// (nothing in the protocol orders two feedbacks' events for the client).
type wlCompositor struct {
	period, phase time.Duration
	refresh       uint32 // sent as refresh; 0 for a variable-rate output
	seq           bool   // send the vblank counter
	flags         uint32
	requested     []uint64 // tags of feedbacks waiting for the next commit
	commits       []wlCommit
	shownAt       map[uint64]time.Duration // ground truth: commit → vblank (app clock)
	discarded     map[uint64]bool
	out           []wlEvent
	rng           *rand.Rand
}

type wlCommit struct {
	n    uint64        // the commit's number (= the swap's)
	at   time.Duration // app clock
	tags []uint64
}

const compositorAhead = 5*time.Second + 123456*time.Nanosecond

func (c *wlCompositor) request(tag uint64) { c.requested = append(c.requested, tag) }

func (c *wlCompositor) commit(n uint64, at time.Duration) {
	c.commits = append(c.commits, wlCommit{n: n, at: at, tags: c.requested})
	c.requested = nil
}

// vblank shows, at vblank k, the newest commit made before it.
func (c *wlCompositor) vblank(k int64) {
	at := c.phase + time.Duration(k)*c.period
	var shown *wlCommit
	keep := c.commits[:0]
	for i := range c.commits {
		cm := c.commits[i]
		if cm.at >= at {
			keep = append(keep, cm)
			continue
		}
		if shown != nil {
			c.discarded[shown.n] = true
			for _, tag := range shown.tags {
				c.out = append(c.out, wlEvent{swap: tag, discarded: true})
			}
		}
		shown = &cm
	}
	c.commits = keep
	if shown == nil {
		return
	}
	c.shownAt[shown.n] = at
	ct := at + compositorAhead
	e := wlEvent{sec: uint64(ct / time.Second), nsec: uint32(ct % time.Second), refresh: c.refresh, flags: c.flags}
	if c.seq {
		e.seq = uint64(k)
	}
	for _, tag := range shown.tags {
		e.swap = tag
		c.out = append(c.out, e)
	}
}

// deliver hands over the events sent so far, shuffled.
func (c *wlCompositor) deliver() []wlEvent {
	out := c.out
	c.rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	c.out = nil
	return out
}

// wlRun drives a tracker through frames paced at the compositor's period
// (a frame in seven replaced before its vblank, one in thirteen swapped
// late), asking for feedback right before each swap with tag, and
// converting the compositor's clock with conv. It returns the frames the
// tracker reported, the compositor (with its ground truth) and the
// tracker.
func wlRun(t *testing.T, comp *wlCompositor, tag func(*Tracker) uint64, conv func(now func() time.Duration) clockMap) ([]Frame, *wlCompositor, *Tracker) {
	t.Helper()
	var clock time.Duration
	now := func() time.Duration { return clock }
	tr := &Tracker{now: now, source: SourceWayland, completeFrom: ^uint64(0)}
	m := &wlMatcher{clock: conv(now)}
	tr.wl = m
	var frames []Frame
	id := uint64(100)
	k := int64(1)
	swap := func(at time.Duration) {
		clock = at
		n := tr.nSwaps
		comp.request(tag(tr)) // right before the swap (Tracker.Swapping)
		comp.commit(n, at)
		tr.Swapped(id, at)
		id++
	}
	for ; k < 400; k++ {
		v := comp.phase + time.Duration(k)*comp.period
		switch {
		case k%13 == 0:
			swap(v + comp.period/3) // late: shown a vblank later
		case k%7 == 0:
			swap(v - comp.period/2)
			swap(v - comp.period/4) // replaces the one before
		default:
			swap(v - comp.period/2)
		}
		comp.vblank(k)
		clock = v + comp.period/10
		if k%3 == 0 {
			for _, e := range comp.deliver() {
				m.take(tr, e)
			}
			for {
				f, ok := tr.Collect()
				if !ok {
					break
				}
				frames = append(frames, f)
			}
		}
	}
	return frames, comp, tr
}

func newWLCompositor(seed uint64) *wlCompositor {
	period := time.Second / 60
	return &wlCompositor{period: period, phase: 3*time.Millisecond + 17*time.Microsecond, refresh: uint32(period), seq: true,
		flags: wlVsync | wlHWClock, shownAt: map[uint64]time.Duration{}, discarded: map[uint64]bool{}, rng: rand.New(rand.NewPCG(seed, 7))}
}

// exactClock is the compositor's clock as wlCompositor keeps it:
// compositorAhead ahead of the app's, read exactly.
func exactClock(now func() time.Duration) clockMap {
	return newClockMap(func() time.Duration { return now() + compositorAhead }, now)
}

// wlCheck compares the tracker's frames with the compositor's ground
// truth and returns what is wrong.
func wlCheck(frames []Frame, comp *wlCompositor) []string {
	var bad []string
	shown, dropped := 0, 0
	for _, f := range frames {
		n := f.ID - 100 // the swap number: ids start at 100
		if comp.discarded[n] {
			dropped++
			if f.Mode != ModeSkip {
				bad = append(bad, fmt.Sprintf("frame %d was discarded, reported %v at %v", f.ID, f.Mode, f.Display))
			}
			continue
		}
		want, ok := comp.shownAt[n]
		if !ok {
			bad = append(bad, fmt.Sprintf("frame %d reported but never shown", f.ID))
			continue
		}
		shown++
		if f.Mode == ModeSkip {
			bad = append(bad, fmt.Sprintf("frame %d was shown at %v, reported discarded", f.ID, want))
		} else if d := f.Display - want; d < -time.Microsecond || d > time.Microsecond {
			bad = append(bad, fmt.Sprintf("frame %d shown at %v, reported at %v", f.ID, want, f.Display))
		}
	}
	if shown == 0 || dropped == 0 {
		bad = append(bad, fmt.Sprintf("%d frames shown, %d discarded: the run does not test both", shown, dropped))
	}
	return bad
}

// Each frame's feedback is matched to that frame, whatever the order the
// events come in; its presented time is converted from the compositor's
// clock to the tracker's; a discarded frame is reported so; and the
// presented times with the compositor's counter (or, without one, its
// refresh) make the vblank grid.
func TestWaylandFeedbackMatchesFramesByCommit(t *testing.T) {
	for _, seq := range []bool{true, false} {
		t.Run(fmt.Sprintf("seq=%v", seq), func(t *testing.T) {
			comp := newWLCompositor(1)
			comp.seq = seq
			frames, comp, tr := wlRun(t, comp, nextCommit, exactClock)
			if bad := wlCheck(frames, comp); len(bad) > 0 {
				t.Fatalf("%d wrong of %d frames reported; first: %s", len(bad), len(frames), strings.Join(bad[:min(5, len(bad))], "; "))
			}
			if n := tr.nSwaps - tr.emitted; n > 8 {
				t.Errorf("%d swaps never reported", n)
			}
			if s := tr.Stats(); s.Unmatched > 0 {
				t.Errorf("%d feedback events matched no swap", s.Unmatched)
			}
			g := tr.Grid()
			if !g.Known() || math.Abs(float64(g.Period()-comp.period)) > 1e3 {
				t.Errorf("grid period %v, the compositor's %v", g.Period(), comp.period)
			}
			if v, _, ok := g.Next(comp.phase + 50*comp.period - time.Millisecond); !ok || absDur(v-(comp.phase+50*comp.period)) > 10*time.Microsecond {
				t.Errorf("grid puts vblank 50 at %v, the compositor at %v", v, comp.phase+50*comp.period)
			}
			if want := "wayland-presentation (vsync,hw-clock)"; tr.Source() != want {
				t.Errorf("source %q, want %q", tr.Source(), want)
			}
		})
	}
}

// The check above has teeth: a tracker that attributes each feedback to
// the swap before the one it was asked for, or to the one after, or that
// takes the compositor's times as its own clock's, fails it.
func TestWaylandBrokenMatchingIsCaught(t *testing.T) {
	for _, tc := range []struct {
		name string
		tag  func(*Tracker) uint64
		conv func(func() time.Duration) clockMap
	}{
		{"feedback attributed to the frame before", func(t *Tracker) uint64 { return max(t.nSwaps, 1) - 1 }, exactClock},
		{"feedback attributed to the frame after", func(t *Tracker) uint64 { return t.nSwaps + 1 }, exactClock},
		{"clock not converted", nextCommit, func(now func() time.Duration) clockMap { return newClockMap(now, now) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			frames, comp, _ := wlRun(t, newWLCompositor(2), tc.tag, tc.conv)
			if bad := wlCheck(frames, comp); len(bad) < len(frames)/2 {
				t.Errorf("the broken tracker passed: %d of %d frames found wrong", len(bad), len(frames))
			}
		})
	}
}

// A variable-rate output (refresh 0) gives no grid, and the source says
// what the output is; discarded frames are still reported.
func TestWaylandVariableRate(t *testing.T) {
	comp := newWLCompositor(3)
	comp.refresh, comp.seq, comp.flags = 0, false, wlVsync|wlHWCompletion|wlZeroCopy
	frames, comp, tr := wlRun(t, comp, nextCommit, exactClock)
	if bad := wlCheck(frames, comp); len(bad) > 0 {
		t.Fatalf("%d wrong; first: %s", len(bad), bad[0])
	}
	if tr.Grid().Known() {
		t.Error("a grid from a variable-rate output")
	}
	if want := "wayland-presentation (vsync,hw-completion,zero-copy; variable-rate output)"; tr.Source() != want {
		t.Errorf("source %q, want %q", tr.Source(), want)
	}
	for _, f := range frames {
		if f.Shown() && f.Mode != ModeFlip {
			t.Fatalf("zero-copy frame reported %v, want flip", f.Mode)
		}
	}
	if c, ok := tr.Clock(); !ok || !c.VariableRate || c.Discarded == 0 || c.Presented == 0 {
		t.Errorf("clock stats %+v", c)
	}
}

// The offset between the compositor's clock and the tracker's is measured
// within the error it reports, where each reading of the compositor's
// clock costs time (a system call) and is sometimes preempted, and the
// two clocks drift apart by 200 ppm (CLOCK_MONOTONIC_RAW against an
// NTP-slewed CLOCK_MONOTONIC).
func TestWaylandClockConversion(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	var real time.Duration // the true time; the tracker's clock reads it
	const off = 7*time.Second + 333*time.Microsecond
	const ppm = 200
	comp := func() time.Duration {
		real += 300*time.Nanosecond + time.Duration(rng.IntN(200)) // a system call's cost
		if rng.IntN(10) == 0 {
			real += 50 * time.Microsecond // preempted
		}
		return off + real + real*ppm/1e6
	}
	now := func() time.Duration {
		real += 40 * time.Nanosecond
		return real
	}
	real = time.Second
	c := newClockMap(comp, now)
	for i := range 50 {
		real += 100 * time.Millisecond
		c.maybeMeasure()
		want := off + c.at*ppm/1e6
		if d := absDur(c.offset - want); d > c.err+time.Microsecond || c.err > 2*time.Microsecond {
			t.Fatalf("reading %d: offset %v, true %v (%v off), error bound %v", i, c.offset, want, d, c.err)
		}
		// A time read on the compositor's clock now converts to now.
		at := now()
		ct := off + at + at*ppm/1e6
		if d := absDur(c.toTracker(uint64(ct/time.Second), uint32(ct%time.Second)) - at); d > c.err+time.Microsecond {
			t.Fatalf("a compositor time converted %v off", d)
		}
	}
	if math.Abs(c.drift-ppm) > 5 {
		t.Errorf("drift %.1f ppm, true %d", c.drift, ppm)
	}
	if c.readings != 51 {
		t.Errorf("%d readings, want 51", c.readings)
	}
}

// While the compositor discards the window's frames, a wait for reports
// is none (a hidden window's frame loop keeps its pace); once it presents
// one again, the wait is two periods, as for any frame on Wayland.
func TestWaylandHiddenWindowWaitsForNoReport(t *testing.T) {
	comp := newWLCompositor(3)
	_, _, tr := wlRun(t, comp, nextCommit, exactClock)
	if !tr.Grid().Known() {
		t.Fatal("no grid from the run")
	}
	p := tr.Grid().Period()
	m := tr.wl
	rec := tr.swaps[(tr.nSwaps-1)%swapRing]
	m.take(tr, wlEvent{swap: rec.n, discarded: true})
	if w := tr.reportWait(time.Second); w != 0 {
		t.Errorf("after a discard the wait is %v, want none", w)
	}
	m.take(tr, wlEvent{swap: tr.nSwaps + 5, refresh: uint32(p)}) // names no swap: counted unmatched, grid untouched
	if w := tr.reportWait(time.Second); w != 2*p {
		t.Errorf("after a presented frame the wait is %v, want two periods (%v)", w, 2*p)
	}
}

// A window counts as hidden once the compositor has discarded
// hiddenDiscards frames in a row and presented none; one presented frame
// ends it. A compositor that replaces frames within a repaint (a discard,
// then a presented frame, as under load) never makes it hidden, nor does
// a run of fewer discards.
func TestWaylandHiddenAfterDiscardsInARow(t *testing.T) {
	comp := newWLCompositor(3)
	_, _, tr := wlRun(t, comp, nextCommit, exactClock)
	m := tr.wl
	if tr.Hidden() {
		t.Fatal("hidden after a run the compositor showed")
	}
	last := tr.swaps[(tr.nSwaps-1)%swapRing].n
	for range 50 {
		// Replaced within a repaint, then shown: the normal case.
		m.take(tr, wlEvent{swap: last, discarded: true})
		m.take(tr, wlEvent{swap: last, refresh: 16_666_667})
	}
	if tr.Hidden() {
		t.Error("hidden after discards each followed by a presented frame")
	}
	for i := range hiddenDiscards {
		if tr.Hidden() {
			t.Fatalf("hidden after %d discards in a row, want %d", i, hiddenDiscards)
		}
		m.take(tr, wlEvent{swap: last + 1 + uint64(i), discarded: true}) // frames after the one shown
	}
	if !tr.Hidden() {
		t.Errorf("not hidden after %d discards in a row", hiddenDiscards)
	}
	m.take(tr, wlEvent{swap: last + 1 + hiddenDiscards, refresh: 16_666_667})
	if tr.Hidden() {
		t.Error("still hidden after a presented frame")
	}
}

// Shown again, a window's compositor may discard the feedback of the
// frames swapped while it was hidden after it presented a newer one: those
// stale discards do not make it hidden again.
func TestWaylandStaleDiscardsDoNotHide(t *testing.T) {
	comp := newWLCompositor(3)
	_, _, tr := wlRun(t, comp, nextCommit, exactClock)
	m := tr.wl
	last := tr.swaps[(tr.nSwaps-1)%swapRing].n
	m.take(tr, wlEvent{swap: last, refresh: 16_666_667})
	for i := range 2 * hiddenDiscards {
		m.take(tr, wlEvent{swap: last - 1 - uint64(i), discarded: true})
	}
	if tr.Hidden() {
		t.Errorf("hidden by %d discards of frames older than the one presented", 2*hiddenDiscards)
	}
}

// A compositor without a vblank counter (seq 0) that repaints at a
// cadence of its own, slower than the refresh it states (Weston's x11
// backend: 60 Hz stated, a repaint every 20 to 23 ms), gives a grid at
// that cadence, not at the stated refresh (issue 37, defect 6): the
// repaints are counted from the latest presented one, a gap of two
// repaints' time as two.
func TestWaylandGridFollowsTheCadenceNotTheStatedRefresh(t *testing.T) {
	var clock time.Duration
	tr := &Tracker{now: func() time.Duration { return clock }, source: SourceWayland, completeFrom: ^uint64(0)}
	m := &wlMatcher{clock: exactClock(tr.now)}
	tr.wl = m
	rng := rand.New(rand.NewPCG(6, 6))
	at := time.Second
	for n := range uint64(300) {
		at += 20*time.Millisecond + time.Duration(rng.IntN(3000))*time.Microsecond // 20 to 23 ms
		if n%50 == 49 {
			at += 21 * time.Millisecond // a repaint with no frame
		}
		clock = at - 15*time.Millisecond
		tr.Swapped(100+n, clock)
		ct := at + compositorAhead
		m.take(tr, wlEvent{swap: n, sec: uint64(ct / time.Second), nsec: uint32(ct % time.Second), refresh: 16_666_667})
	}
	if hz := tr.Grid().Hz(); hz < 1000/23.5 || hz > 1000/20.0 {
		t.Errorf("grid at %.2f Hz; the compositor repainted at 43.5 to 50 Hz (stated 60)", hz)
	}
}
