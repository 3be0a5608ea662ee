package present

import "time"

// SourceFrameTimings is the compositing manager's frame timings for an
// X11 window that takes part in frame sync (_NET_WM_FRAME_DRAWN and
// _NET_WM_FRAME_TIMINGS, as Mutter sends them, under XWayland in a GNOME
// session and on GNOME's X11 session alike): for each frame, when the
// compositor drew it and when that drawing was presented. The X server's
// own figures there (XWayland's Present) say when the X server took the
// frame, not when the compositor showed it (docs/platforms.md).
const SourceFrameTimings = "x11-frame-timings"

// VblankFrameTimings is where the vblanks come from with frame timings:
// the presentation times and the refresh interval the compositor gave.
const VblankFrameTimings = "frame-timings"

// fsKind is what a frame-sync message is.
type fsKind uint8

const (
	fsDrawn   fsKind = iota // _NET_WM_FRAME_DRAWN
	fsTimings               // _NET_WM_FRAME_TIMINGS
	fsRequest               // _NET_WM_SYNC_REQUEST
)

// fsMsg is one frame-sync message about the extended counter's value:
// _NET_WM_FRAME_DRAWN (drawnUs: the compositor's drawing of the frame,
// CLOCK_MONOTONIC µs), _NET_WM_FRAME_TIMINGS (offsetUs: the presentation's
// time after the drawing, 0 where the frame was not presented; refreshUs:
// the output's refresh interval, 0 where unknown), or the window
// manager's _NET_WM_SYNC_REQUEST (a resize: it waits, a second at most,
// for the counter to reach value).
type fsMsg struct {
	value               int64
	drawnUs             int64
	offsetUs, refreshUs int32
	kind                fsKind
}

// fsMatcher gives each swap its counter value and pairs each frame's two
// messages into the compositor's feedback for its swap (wlMatcher's
// events: the same matching, clock and grid as wp_presentation's). The
// values are even (a frame complete) and grow by 2 a swap, or jump to
// the value a sync request waits for. The drawn time waits for the
// timings; a frame the compositor never presented (a hidden window's: its
// timings carry no offset) is discarded; a frame superseded before a
// repaint is presented with the one that replaced it, at the same time,
// and the caller's rule (a frame overtaken within its vblank was dropped)
// counts it dropped.
type fsMatcher struct {
	values [swapRing]int64 // each swap's counter value
	last   int64           // the last value given
	wait   int64           // a sync request's value, not reached yet
	drawn  [swapRing]struct {
		value, us int64
	}
}

// value gives swap n (the next, from 0) its counter value.
func (f *fsMatcher) value(n uint64) int64 {
	v := f.last + 2
	if f.wait > v {
		v = f.wait + f.wait%2
	}
	f.wait = 0
	f.values[n%swapRing], f.last = v, v
	return v
}

// swapOf returns the swap whose counter value is v, among the last
// swapRing of t's.
func (f *fsMatcher) swapOf(t *Tracker, v int64) (uint64, bool) {
	for k := uint64(0); k < min(t.nSwaps, swapRing); k++ {
		n := t.nSwaps - 1 - k
		switch w := f.values[n%swapRing]; {
		case w == v:
			return n, true
		case w < v:
			return 0, false // the values grow: none older matches
		}
	}
	return 0, false
}

// alarmLate reports whether swap n, drawn at drawnUs in the same repaint
// as the swap after it, was shown at the repaint before. Mutter learns of
// a frame's counter through an X alarm and of its content through
// XWayland's commit of the window's surface, two paths with no order
// between them: a frame whose content it painted before its alarm came is
// reported drawn at the next repaint, with the frame after it, though it
// was shown at the one before (the observer saw 29 such frames of 588 in a
// quiet run, each in the framebuffer a repaint before the one reported).
// Two frames swapped less than half a refresh apart are the ones
// XWayland merges into one commit (the first never shown): the first is
// left to the caller's rule (a frame overtaken within its vblank was
// dropped). This is a model of the two paths, not a measurement of which
// repaint showed the frame; the observer's agreement is its check
// (TestUnderMutter).
func (f *fsMatcher) alarmLate(t *Tracker, n uint64, drawnUs int64, refreshUs int32) bool {
	if refreshUs <= 0 || n+1 >= t.nSwaps {
		return false
	}
	next := &f.drawn[(n+1)%swapRing]
	// Mutter reads its clock for each frame's message of one repaint:
	// microseconds apart, a refresh from any other repaint's.
	if d := next.us - drawnUs; next.value != f.values[(n+1)%swapRing] || d < -1000 || d > 1000 {
		return false // not drawn with the next one (or not known yet)
	}
	a, b := t.swaps[n%swapRing], t.swaps[(n+1)%swapRing]
	return a.n == n && b.n == n+1 && b.at-a.at >= time.Duration(refreshUs)*time.Microsecond/2
}

// take accounts for one message, m the tracker's compositor matcher. A
// message whose value names no swap of the last swapRing, whose drawn
// message is missing, or whose time lies after now or a second before its
// swap (not on CLOCK_MONOTONIC after all) is counted unmatched
// (Stats.Unmatched). It does not allocate.
func (f *fsMatcher) take(t *Tracker, m *wlMatcher, msg fsMsg) {
	if msg.kind == fsRequest {
		f.wait = max(f.wait, msg.value)
		return
	}
	swap, ok := f.swapOf(t, msg.value)
	if !ok {
		t.stats.Unmatched++
		return
	}
	d := &f.drawn[swap%swapRing]
	if msg.kind == fsDrawn {
		d.value, d.us = msg.value, msg.drawnUs
		return
	}
	if d.value != msg.value {
		t.stats.Unmatched++ // its drawn message lost (read by another event loop) or overwritten
		return
	}
	ev := wlEvent{swap: swap}
	if msg.offsetUs == 0 {
		ev.discarded = true // never presented: the compositor sends no time
	} else {
		at := time.Duration(d.us+int64(msg.offsetUs)) * time.Microsecond
		late := f.alarmLate(t, swap, d.us, msg.refreshUs)
		if late {
			at -= time.Duration(msg.refreshUs) * time.Microsecond
		}
		rec := t.swaps[swap%swapRing]
		if now := m.clock.read(); at > now+time.Millisecond || (rec.n == swap && at-m.clock.offset < rec.at-time.Second) {
			t.stats.Unmatched++ // not on CLOCK_MONOTONIC, or not this swap's
			return
		}
		if late {
			m.modelled++ // the report says how many times are the model's
		}
		ev.sec, ev.nsec = uint64(at/time.Second), uint32(at%time.Second)
		if msg.refreshUs > 0 {
			ev.refresh = uint32(msg.refreshUs) * 1000
		}
	}
	m.take(t, ev)
}
