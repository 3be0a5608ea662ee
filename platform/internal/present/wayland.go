package present

import (
	"strconv"
	"strings"
	"time"
)

// SourceWayland is the compositor's wp_presentation feedback, asked for
// each swap's commit on the window's own wl_surface (the Wayland build).
// The tracker's Source adds the flags the compositor set, and says so
// where the output has no fixed rate.
const SourceWayland = "wayland-presentation"

// VblankWayland is where the vblanks come from on Wayland: the presented
// events' times and sequence numbers (there are none without frames).
const VblankWayland = "wp-presentation"

// The wp_presentation_feedback.presented flags (presentation-time.xml,
// enum kind).
const (
	wlVsync        = 0x1 // shown at a vblank: no tearing
	wlHWClock      = 0x2 // the time is the display hardware's own clock
	wlHWCompletion = 0x4 // the hardware signalled the presentation
	wlZeroCopy     = 0x8 // the client's buffer was scanned out directly
)

// wlEvent is one wp_presentation_feedback event: presented or discarded,
// for the commit of swap number swap (the tracker's count, from 0).
type wlEvent struct {
	swap      uint64
	discarded bool
	sec       uint64 // the presented time on the compositor's clock
	nsec      uint32
	refresh   uint32 // ns between the output's refreshes; 0: no fixed rate
	seq       uint64 // the output's vblank counter; 0: it has none
	flags     uint32
}

// clockMap converts the compositor's clock (the one wp_presentation.clock_id
// names, CLOCK_MONOTONIC_RAW on Weston) to the tracker's: the offset
// between the two is measured by reading the compositor's clock on both
// sides of the tracker's, keeping the reading whose two sides lie
// closest, and measured again every clockRemeasure, since
// CLOCK_MONOTONIC_RAW is not slewed with CLOCK_MONOTONIC (NTP moves them
// apart by up to 500 ppm).
type clockMap struct {
	read   func() time.Duration // the compositor's clock
	now    func() time.Duration // the tracker's
	offset time.Duration        // compositor's minus the tracker's
	// err is half the bracket of the kept reading: how far the offset
	// may be off; errMax the largest over the run.
	err, errMax time.Duration
	first       time.Duration // the first offset, and when, for the drift
	firstAt     time.Duration
	at          time.Duration // when it was last measured (tracker's clock)
	drift       float64       // ppm: the change of the offset over the run
	readings    int
}

// clockRemeasure is how often the offset is measured again: at 500 ppm,
// the most NTP slews, it moves 50 µs in between.
const clockRemeasure = 100 * time.Millisecond

func newClockMap(read, now func() time.Duration) clockMap {
	c := clockMap{read: read, now: now}
	c.measure()
	c.first, c.firstAt = c.offset, c.at
	return c
}

// measure reads the offset again. It does not allocate.
func (c *clockMap) measure() {
	best := time.Duration(1 << 62)
	for range 16 {
		a := c.read()
		t := c.now()
		b := c.read()
		if b-a < best {
			best, c.offset, c.at = b-a, (a+b)/2-t, t
		}
	}
	c.err = best / 2
	c.errMax = max(c.errMax, c.err)
	c.readings++
	if span := c.at - c.firstAt; c.readings > 1 && span > 0 {
		c.drift = float64(c.offset-c.first) / float64(span) * 1e6
	}
}

// maybeMeasure measures again when clockRemeasure has passed.
func (c *clockMap) maybeMeasure() {
	if c.now()-c.at >= clockRemeasure {
		c.measure()
	}
}

// toTracker converts a time on the compositor's clock.
func (c *clockMap) toTracker(sec uint64, nsec uint32) time.Duration {
	return time.Duration(sec)*time.Second + time.Duration(nsec) - c.offset
}

// wlMatcher turns wp_presentation feedback into the tracker's frames: each
// event names the swap whose commit it was asked for, so a frame is the
// swap's own, whatever the order the events come in; presented gives the
// frame's display time (on the tracker's clock), discarded a frame never
// shown (ModeSkip). The presented times with their sequence numbers are
// the display's vblanks (Grid).
type wlMatcher struct {
	clock   clockMap
	clockID uint32 // the compositor's clockid_t
	flags   uint32 // the flags of the last presented event
	named   bool   // the source's name carries flags
	// name is the source's name where it is not wp_presentation (frame
	// timings), which carries no flags; a refresh of 0 there is one the
	// compositor does not know, not a variable rate.
	name    string
	vrr     bool // the last presented event had no refresh
	refresh time.Duration
	// Without the output's counter (seq 0), vblanks are counted from the
	// first presented time at the refresh the compositor gave; under frame
	// timings, from the last presented time (countFrom).
	base    time.Duration
	haveBas bool
	lastAt  time.Duration // the latest presented time counted
	lastMSC uint64        // its count
	// Counts: Presented and Discarded events, and the events for swaps
	// the tracker no longer (or never) had.
	presented, discarded uint64
	// modelled counts the presented times a model placed (frame
	// timings' late alarms, fsMatcher.alarmLate), not the compositor.
	modelled uint64
	// hidden: the newest event was a discard (the compositor shows none
	// of the window's frames: minimised, occluded, another workspace).
	hidden bool
	// discardRun counts the discards since the last presented event of
	// swaps after the last one presented (shownSwap, +1: 0 is none): the
	// feedback of frames swapped while the window was hidden may be
	// discarded after a newer frame was presented, once it is shown again.
	discardRun int
	shownSwap  uint64
	// heard is when the last event came (the tracker's clock; 0: none
	// yet), and heardSwaps how many swaps had been made then.
	heard      time.Duration
	heardSwaps uint64
}

// hiddenDiscards is how many frames in a row the compositor must discard
// before the window counts as hidden (Tracker.Hidden): a compositor that
// repaints discards the frames a newer one replaced before its repaint,
// but it presents one per repaint; eight in a row, none presented, are a
// window it does not show.
const hiddenDiscards = 8

// Hidden reports whether the compositor says that it shows none of the
// window's frames (Wayland, where no event says that a window was
// minimised or unmapped; frame timings): it has discarded the last
// hiddenDiscards frames and presented none since. Silence is not such a
// word: a compositor that says nothing of the frames (a surface with no
// role, a window manager that lists frame sync and never answers) makes
// the tracker fall back to the next source (Fallback), never a hidden
// window. The window's next presented frame ends it. False where the
// display system is not such a compositor. It does not allocate.
func (t *Tracker) Hidden() bool {
	m := t.wl
	if m == nil {
		return false
	}
	t.plat.pump(t)
	return t.fb.silent == "" && m.discardRun >= hiddenDiscards
}

// reportWait bounds a wait for reports (WaitReported) by two of the
// display's periods on Wayland: a compositor keeps the feedback of a
// commit it does not show (a minimised or hidden window) until the next
// commit replaces it, so a frame not reported by then will not be before
// the next frame is swapped, and waiting longer only slows the loop.
// While the compositor discards the window's frames (its newest event a
// discard), or has fallen silent (Fallback), nothing will be reported
// before the next swap, and the wait is none: the loop keeps its pace.
func (t *Tracker) reportWait(timeout time.Duration) time.Duration {
	if t.wl != nil && (t.wl.hidden || t.fb.silent != "" || t.Hidden()) {
		return 0
	}
	if p := t.grid.Period(); t.wl != nil && p > 0 {
		return min(timeout, 2*p)
	}
	return timeout
}

// nextCommit is the swap whose commit a feedback asked for now follows:
// the one about to be made. A feedback request applies to the surface's
// next commit, and the swap commits; asked for right before swap n
// (Swapping), it reports swap n, whose number is the count of swaps made.
func nextCommit(t *Tracker) uint64 { return t.nSwaps }

// wlFeedback, where the platform sets it (Wayland), asks for the
// presentation feedback of the surface's next commit, for swap
// nextCommit(t).
var wlFeedback func(t *Tracker)

// Swapping tells the tracker that a frame is about to be swapped: call it
// on the render thread right before the swap, with no window events
// handled in between. On Wayland it asks there for the feedback of the
// swap's own commit: any commit of the window's surface takes the
// feedback asked for before it, and GLFW commits the surface between
// swaps too (its libdecor path, at a configure that does not resize the
// window), so feedback asked for earlier (after the swap before) would
// report that commit as this frame. Elsewhere it does nothing. It does
// not allocate.
func (t *Tracker) Swapping() {
	if wlFeedback != nil && t.wl != nil && t.source != SourceModel {
		wlFeedback(t)
	}
}

// take accounts for one event. It does not allocate, except to rename
// the tracker's source when the compositor's flags change.
func (m *wlMatcher) take(t *Tracker, e wlEvent) {
	if t.answered(e.swap) {
		return // the fallback reported that swap (Tracker.Fallback)
	}
	t.completions++
	t.stats.Completions++
	m.hidden = e.discarded // whatever swap it names, the compositor's now
	m.heard, m.heardSwaps = t.now(), t.nSwaps
	switch {
	case !e.discarded:
		m.discardRun, m.shownSwap = 0, max(m.shownSwap, e.swap+1)
	case e.swap+1 > m.shownSwap:
		m.discardRun++
	}
	rec := t.swaps[e.swap%swapRing]
	if e.swap >= t.nSwaps || rec.n != e.swap {
		t.stats.Unmatched++
		return
	}
	if e.discarded {
		m.discarded++
		f := Frame{ID: rec.id, Swap: rec.at, Landed: rec.at, Display: rec.at, Mode: ModeSkip}
		if at, msc, ok := t.grid.Next(rec.at); ok {
			f.Display, f.MSC = at, msc
		}
		t.emit(f)
		t.reported = max(t.reported, e.swap+1)
		return
	}
	m.presented++
	at := m.clock.toTracker(e.sec, e.nsec)
	m.refresh = time.Duration(e.refresh)
	msc := e.seq
	if msc == 0 && e.refresh > 0 {
		// No counter: the repaints counted from the latest presented
		// one (countFrom), so that the grid's rate is the cadence the
		// compositor presents at, not the refresh it states (Weston's
		// x11 backend states 60 Hz and repaints every 20 to 23 ms).
		if !m.haveBas {
			m.base, m.haveBas = at-time.Duration(e.refresh), true
			m.lastAt, m.lastMSC = at, 1
		}
		msc = m.countFrom(at)
	}
	if e.refresh > 0 && msc > 0 {
		t.grid.Observe(at, msc)
	}
	mode := ModeCopy
	if e.flags&wlZeroCopy != 0 {
		mode = ModeFlip
	}
	t.emit(Frame{ID: rec.id, Swap: rec.at, Landed: at, Display: at, MSC: msc, Mode: mode})
	t.reported = max(t.reported, e.swap+1)
	if vrr := e.refresh == 0; !m.named || e.flags != m.flags || vrr != m.vrr {
		m.flags, m.vrr, m.named = e.flags, vrr, true
		switch {
		case m.name == "":
			t.source = wlSourceName(e.flags, vrr)
		case vrr:
			t.source = m.name + " (no refresh interval)"
		default:
			t.source = m.name
		}
	}
}

// countFrom counts a frame-timings presentation's vblank from the latest
// one counted: the refreshes between them, rounded, and the same vblank
// for two frames less than half a refresh apart (one repaint). A nested
// compositor's repaints come from a timer of its own, not locked to any
// vblank: counted from the first presentation, a repaint late by a third
// of a refresh and the next on time rounded to one index (a frame counted
// dropped) and the gap after to two (a repeat counted), 12 of each in 478
// frames of a quiet run under a nested Mutter, none of which the observer
// saw in the framebuffer. Frames reported out of order count back from
// the latest.
func (m *wlMatcher) countFrom(at time.Duration) uint64 {
	d := at - m.lastAt
	steps := int64((d.Abs() + m.refresh/2) / m.refresh)
	if d < 0 {
		return uint64(max(int64(m.lastMSC)-steps, 1))
	}
	m.lastAt, m.lastMSC = at, m.lastMSC+uint64(steps)
	return m.lastMSC
}

// wlSourceName is SourceWayland with the compositor's flags, and
// "variable-rate" where the output's refresh is 0.
func wlSourceName(flags uint32, vrr bool) string {
	var b strings.Builder
	b.WriteString(SourceWayland)
	b.WriteString(" (")
	names := [...]struct {
		bit  uint32
		name string
	}{{wlVsync, "vsync"}, {wlHWClock, "hw-clock"}, {wlHWCompletion, "hw-completion"}, {wlZeroCopy, "zero-copy"}}
	n := 0
	for _, f := range names {
		if flags&f.bit != 0 {
			if n > 0 {
				b.WriteString(",")
			}
			b.WriteString(f.name)
			n++
		}
	}
	if n == 0 {
		b.WriteString("no flags")
	}
	if vrr {
		b.WriteString("; variable-rate output")
	}
	b.WriteString(")")
	return b.String()
}

// ClockStats says how the compositor's times were converted to the
// tracker's clock (Wayland): the clock the compositor named, the offset
// measured, how far it may be off (half the narrowest bracket of a
// reading; the largest over the run), and how the offset moved over the
// run (ppm).
type ClockStats struct {
	Clock       string
	Offset      time.Duration
	Err, ErrMax time.Duration
	DriftPPM    float64
	Readings    int
	Refresh     time.Duration // the output's refresh as the compositor gave it; 0: variable rate or none yet
	Presented   uint64
	Discarded   uint64
	// PresentedByModel is how many of the Presented times a model put a
	// repaint earlier than the compositor said (frame timings: a frame
	// whose alarm came after its content, fsMatcher.alarmLate); 0 on
	// Wayland, where every time is the compositor's.
	PresentedByModel uint64
	VariableRate     bool
	PresentedFlag    uint32 // the last presented event's flags
}

func (m *wlMatcher) stats(clock string) ClockStats {
	return ClockStats{Clock: clock, Offset: m.clock.offset, Err: m.clock.err, ErrMax: m.clock.errMax,
		DriftPPM: m.clock.drift, Readings: m.clock.readings, Refresh: m.refresh,
		Presented: m.presented, Discarded: m.discarded, PresentedByModel: m.modelled, VariableRate: m.vrr && m.presented > 0, PresentedFlag: m.flags}
}

// clockName names a clockid_t as the compositor gives it.
func clockName(id uint32) string {
	switch id {
	case 0:
		return "CLOCK_REALTIME"
	case 1:
		return "CLOCK_MONOTONIC"
	case 4:
		return "CLOCK_MONOTONIC_RAW"
	case 7:
		return "CLOCK_BOOTTIME"
	}
	return "clock " + strconv.Itoa(int(id))
}

// Clock says how the compositor's times were converted to the tracker's
// clock; ok is false where the source is not the compositor's (only the
// Wayland build has one).
func (t *Tracker) Clock() (c ClockStats, ok bool) {
	if t.wl == nil {
		return ClockStats{}, false
	}
	return t.wl.stats(clockName(t.wl.clockID)), true
}
