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
// µs on its stamps' clock, stampClock), _NET_WM_FRAME_TIMINGS
// (offsetUs: the presentation's time after the drawing, 0 where the
// frame was not presented; refreshUs: the output's refresh interval, 0
// where unknown), or the window manager's _NET_WM_SYNC_REQUEST (a
// resize: it waits, a second at most, for the counter to reach value).
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
		value, us int64 // us: the drawn stamp as the compositor sent it
		// mono is the drawn time on CLOCK_MONOTONIC (µs), converted
		// with the stamps' offset measured when it came (epoch: that
		// measurement's number, stampClock.measures).
		mono  int64
		epoch uint64
	}
	stamps stampClock
}

// xWrapUs is 2³² ms in µs: the period of the X server's 32-bit
// millisecond clock, and of the stamps Mutter derives from it.
const xWrapUs = 1 << 32 * 1000

// stampSlack widens each frame's bracket of the stamps' offset (µs) on
// both sides, for the error of the clock map that puts the swap on
// CLOCK_MONOTONIC (microseconds; clockMap.err): 1 ms, which a bracket
// a frame or two wide does not notice.
const stampSlack = 1000

// stampClock measures the offset of a compositor's frame-sync stamps from
// CLOCK_MONOTONIC (the stamp minus CLOCK_MONOTONIC, µs), by measurement,
// not by assumption. The stamps are Mutter's "high-resolution X server
// time" (Mutter 43.8 and today's main, read for #37):
// meta_translate_to_high_res_xserver_time (src/compositor/
// compositor-private.h) keeps the low 32 bits of g_get_monotonic_time's
// milliseconds, the X server's own clock, and adds the microseconds back:
// CLOCK_MONOTONIC µs modulo 2³² ms. Mutter as a Wayland compositor (the
// app under its XWayland: meta_compositor_server_monotonic_to_high_res_
// xserver_time, meta-compositor-server.c) always stamps so; on GNOME's X11
// session (meta_compositor_x11_monotonic_to_high_res_xserver_time,
// meta-compositor-x11.c) too where determine_server_clock_source found
// the X server's time within a second of it, and otherwise CLOCK_MONOTONIC
// plus an offset of its own, measured from an X round trip (to the
// millisecond) and again every 10 s. Both senders' drawn times
// (do_send_frame_drawn) and presentations (do_send_frame_timings, sent as
// an offset from the drawn time) are so. The stamps are CLOCK_MONOTONIC
// for the first 2³² ms of uptime (49.7 days) and k·2³² ms behind it after.
//
// Each drawn stamp brackets the offset: the frame was drawn after its
// swap (Mutter draws once the counter set after the swap reached it) and
// before the message was read, so the offset lies between the stamp
// minus the reading's CLOCK_MONOTONIC and the stamp minus the swap's.
// The brackets of successive frames are intersected; a bracket that
// misses the intersection (the stamps jumped: the X server's clock
// wrapped, or the compositor measured its own offset again) starts the
// measurement afresh from it. Where the bracket holds a multiple of
// -2³² ms (0 included), Mutter's relation, that is the offset, to the
// microsecond; elsewhere the bracket's middle, to within half its width.
// The zero value has measured nothing.
type stampClock struct {
	lo, hi   int64 // the offset's bracket, µs
	offset   int64 // the offset in use
	exact    bool  // offset is a multiple of -2³² ms inside the bracket
	measures uint64
}

// observe takes a drawn stamp (µs) of a frame swapped at swapMono and
// read at nowMono (CLOCK_MONOTONIC, µs), and measures the offset with
// it. It does not allocate.
func (c *stampClock) observe(stamp, swapMono, nowMono int64) {
	lo, hi := stamp-nowMono-stampSlack, stamp-swapMono+stampSlack
	if c.measures == 0 || lo > c.hi || hi < c.lo {
		c.lo, c.hi = lo, hi
		c.measures++
	} else {
		c.lo, c.hi = max(c.lo, lo), min(c.hi, hi)
	}
	mid := c.lo + (c.hi-c.lo)/2
	k := (xWrapUs/2 - mid) / xWrapUs // the wraps nearest mid, where mid < 2³¹ ms
	if w := -k * xWrapUs; k >= 0 && w >= c.lo && w <= c.hi {
		c.offset, c.exact = w, true
		return
	}
	c.offset, c.exact = mid, false
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

// take accounts for one message, m the tracker's compositor matcher (its
// clock reads CLOCK_MONOTONIC). Each drawn message measures the stamps'
// offset from CLOCK_MONOTONIC (stampClock), and the frame's times are
// converted with it: a compositor whose stamps are not CLOCK_MONOTONIC is
// measured, never discarded. A message whose value names no swap of the
// last swapRing, whose drawn message is missing, or whose presentation
// lies after now or a second before its swap (not this swap's) is
// counted unmatched (Stats.Unmatched). It does not allocate.
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
	rec := t.swaps[swap%swapRing]
	if msg.kind == fsDrawn {
		if rec.n != swap {
			t.stats.Unmatched++ // its swap's record gone: no bracket
			return
		}
		now := m.clock.read() / time.Microsecond
		f.stamps.observe(msg.drawnUs, int64((rec.at+m.clock.offset)/time.Microsecond), int64(now))
		d.value, d.us = msg.value, msg.drawnUs
		d.mono, d.epoch = msg.drawnUs-f.stamps.offset, f.stamps.measures
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
		mono := d.mono
		if d.epoch == f.stamps.measures {
			mono = d.us - f.stamps.offset // the bracket narrowed since
		}
		at := time.Duration(mono+int64(msg.offsetUs)) * time.Microsecond
		late := f.alarmLate(t, swap, d.us, msg.refreshUs)
		if late {
			at -= time.Duration(msg.refreshUs) * time.Microsecond
		}
		if now := m.clock.read(); at > now+stampSlack*time.Microsecond || (rec.n == swap && at-m.clock.offset < rec.at-time.Second) {
			t.stats.Unmatched++ // not this swap's
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
