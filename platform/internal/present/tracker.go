package present

import (
	"errors"
	"strings"
	"time"
)

// Options configures a Tracker.
type Options struct {
	// Now is the caller's clock, on which every time is given. Required.
	Now func() time.Duration
	// Display is the X display the tracker connects to for its events
	// ("" means $DISPLAY).
	Display string
	// VblanksOnly follows the display's vblanks and nothing else: no
	// window, no swaps (an observer outside the app).
	VblanksOnly bool
}

// Tracker follows the frames an app swaps to the display and says when
// each was shown, from the best source the platform has (see the package
// doc). Open, Swapped, Collect and Close must be called on the render
// thread, the one whose GL context is current; Grid may be read anywhere.
type Tracker struct {
	now    func() time.Duration
	grid   Grid
	ring   ring
	source string
	plat   platform

	swaps  [swapRing]swapRecord
	nSwaps uint64
	// firstSwap is when the first frame was swapped (the tracker's clock).
	firstSwap time.Duration
	// The PresentCompleteNotify matching: the first completion's serial
	// is the first swap's; completions of swaps before completeFrom were
	// reported another way (see probeSwaps).
	serial0      uint32
	haveSerial   bool
	completeFrom uint64
	probing      int
	completions  uint64

	out        [outSize]Frame
	outH, outT uint64
	emitted    uint64 // frames reported, Collected or not
	// reported is the newest swap the display system reported, plus
	// one: the swaps before it are done with, whether or not each had a
	// report of its own (a compositor's messages lost, or never sent).
	reported uint64

	// The software path's server stamps (see Swapped): frames whose round
	// trip returned wait in rt, in swap order from rtHead, for the stamp
	// that says when the server processed their image.
	stamps  ring
	stamped bool // stamps asked for after software swaps (see Swapped)
	rt      [swapRing]rtFrame
	rtHead  uint64
	rtPend  int

	stats Stats
	wl    *wlMatcher // the compositor's feedback (Wayland, frame timings); nil elsewhere
	fb    fallback
}

// fallback is where a tracker stands while the compositor's feedback
// (wl) has fallen silent: see Tracker.Fallback.
type fallback struct {
	silent string // the silent source's name; "" while it reports
	// resumed is the swap count when it last came back: its reports of
	// swaps before it are the fallback's, and dropped.
	resumed uint64
}

// fallbackFrames and fallbackSilence bound how long the compositor's
// feedback may say nothing before the tracker stops waiting for it: that
// many frames swapped since its last word, and that long. A compositor
// late under load stays (a nested Mutter beside a build loop stalled 145
// ms at a stretch); one that never answers (a _NET_SUPPORTED a dead window
// manager left, one that lists frame sync and does not composite, a
// surface with no role) is left within a quarter second: before, such
// silence counted as a hidden window and paused the world (issue 37).
const (
	fallbackFrames  = 8
	fallbackSilence = 250 * time.Millisecond
)

// SourceSwapModel is the last fallback, where the display system's
// feedback fell silent and nothing else reports the frames: each frame is
// put at the first vblank after its swap returned, as SourceDWM does.
const SourceSwapModel = "model: vblank after swap"

// swapModelWhy is why SourceSwapModel is a model.
const swapModelWhy = "the display system's feedback fell silent: each frame is put at the first vblank after its swap returned"

// fallbackOpen, where the platform sets it (X11), opens the next source
// for t, whose frame timings fell silent: X11 Present, the round trip
// after each swap and the MSC grid. It reports false where there is none.
// fallbackClose closes it when they speak again.
var (
	fallbackOpen  func(t *Tracker) bool
	fallbackClose func(t *Tracker)
)

// Stats are the tracker's own counts.
type Stats struct {
	// RoundTrips counts the round trips made after swaps; RoundTripMax is
	// the longest, RoundTripTotal their sum. Stamped counts the frames
	// placed by the server's stamp (the others by the round trip's
	// return).
	RoundTrips     uint64
	RoundTripMax   time.Duration
	RoundTripTotal time.Duration
	Stamped        uint64
	// SyncedSwaps counts the software-path swaps that returned with
	// every request on the app's connection processed (the swap's own
	// round trip): those frames were in the framebuffer when the swap
	// returned, an earlier bound than a stamp sent after it.
	SyncedSwaps uint64
	// Fallbacks counts the times the compositor's feedback fell silent
	// and the tracker went on with the next source; Returns the times
	// it spoke again and the tracker went back to it (Fallback).
	Fallbacks, Returns uint64
	// Completions counts PresentCompleteNotify events for the window's
	// pixmaps; Unmatched those no swap matched; Lost the frames whose
	// report did not fit the queue.
	Completions, Unmatched, Lost uint64
}

// swapRing is how many swaps wait for their completion: a display queues
// at most a few frames, a stalled event thread a few dozen.
const swapRing = 128

// outSize is how many reported frames wait for Collect.
const outSize = 64

// probeSwaps is how many swaps the tracker waits for PresentCompleteNotify
// before it decides that the swap does not go through Present. Those
// first frames are reported by the round trip.
const probeSwaps = 8

// rtFrame is a software-path frame waiting for its server stamp.
type rtFrame struct {
	f                Frame
	n                uint64
	pending, stamped bool
	stamp            time.Duration
}

// swapSynced, where the platform sets it (X11), reports whether the
// swap that just returned left every request on the app's connection
// processed: it ended with a round trip.
var swapSynced func(p *platform) bool

// stampSerial marks the stamps asked for on the app's connection after a
// software swap (serial stampSerial | swap number mod 2¹⁶).
const stampSerial = 0x7acf0000

// stampWait is how long a frame waits for its server stamp before the
// round trip's return stands for it: a stamp comes within a round trip of
// the server's, but the tracker's thread may be late to read it (a
// loaded machine delays it by tens of milliseconds), and the frame is on
// the screen meanwhile. 200 ms is 29 frames at 144 Hz, within what the
// app keeps waiting.
const stampWait = 200 * time.Millisecond

// stampFrames is how many later swaps a frame's stamp may also take: a
// render thread that wakes from a long stall before the tracker's thread
// does must not give up on stamps that are already on their way.
const stampFrames = 8

type swapRecord struct {
	id, n uint64
	at    time.Duration
}

// ErrNoClock is returned by Open without Options.Now.
var ErrNoClock = errors.New("present: Options.Now is required")

// Open starts a tracker for the window whose GL context is current (or,
// with VblanksOnly, for the display's vblanks alone). A platform without
// any display feedback gives a tracker whose Source is SourceModel and
// whose Collect reports nothing; the error says why the display system's
// own feedback is not there.
func Open(o Options) (*Tracker, error) {
	if o.Now == nil {
		return nil, ErrNoClock
	}
	t := &Tracker{now: o.Now, source: SourceModel, completeFrom: ^uint64(0)}
	err := t.plat.open(t, o)
	return t, err
}

// ReadEvents reads the display system's feedback that waits on the
// window's own connection, where the window's event loop would drop it
// (the compositor's frame timings under X11 frame sync): call it on the
// render thread right before the window's events are polled. Elsewhere it
// does nothing. It does not allocate.
func (t *Tracker) ReadEvents() {
	if t.wl != nil {
		t.plat.pump(t)
	}
}

// Source names where the frames' display times come from.
func (t *Tracker) Source() string { return t.source }

// Measured reports whether the tracker reports the frames from the
// display system's feedback (any source but SourceModel). SourceDWM is
// such feedback applied by a model: see Model.
func (t *Tracker) Measured() bool { return t.source != SourceModel }

// Model reports whether the frames' display times are a model: the
// caller's own (SourceModel) or the display system's timing applied by
// one (SourceDWM). Such a source's name starts with "model".
func (t *Tracker) Model() bool { return strings.HasPrefix(t.source, SourceModel) }

// ModelWhy says why a source that reports the frames is a model ("" for
// a measured one).
func (t *Tracker) ModelWhy() string {
	switch t.source {
	case SourceDWM:
		return DWMModelWhy
	case SourceSwapModel:
		return swapModelWhy
	}
	return ""
}

// Fallback names the source that fell silent while the tracker reports
// the frames from the next one ("" while the first reports): a
// compositor's feedback (frame timings, wp_presentation) that said
// nothing of fallbackFrames frames swapped over fallbackSilence. The
// next source is, on X11, Present (the round trip after each swap, on
// the MSC grid), else SourceSwapModel; Source names it. The first
// source's next word brings the tracker back to it. Stats counts both.
func (t *Tracker) Fallback() string { return t.fb.silent }

// Grid returns the measured vblank timeline.
func (t *Tracker) Grid() *Grid { return &t.grid }

// Stats returns the tracker's counts.
func (t *Tracker) Stats() Stats {
	s := t.stats
	s.Lost += t.ring.dropped.Load()
	return s
}

// Swapped records that frame id was swapped at swapAt; call it right after
// the swap returns. On the round-trip path it makes the round trip, which
// blocks the caller for as long as the server takes to process the
// swap's image (and no longer): when it returns the frame is in the
// server's framebuffer. Before it, on the same connection, it asks for a
// Present completion at once (PresentNotifyMSC, target 0), which the
// server answers when it processes it, right after the image: its UST is
// the server's own time of that moment on a fake CRTC (Xvfb), and the
// last vblank before it on a real one, so the next vblank after it is the
// frame's either way, whenever the app's thread gets to run again. It
// does not allocate.
func (t *Tracker) Swapped(id uint64, swapAt time.Duration) {
	n := t.nSwaps
	if n == 0 {
		t.firstSwap = t.now()
	}
	t.nSwaps++
	t.swaps[n%swapRing] = swapRecord{id: id, n: n, at: swapAt}
	defer t.watchSilence()
	if t.source == SourceSwapModel {
		t.modelSwap(id, swapAt)
	}
	if t.source != SourceRoundTrip {
		if t.source != SourceModel {
			t.plat.swapped(t, id, swapAt)
		}
		return
	}
	if t.fb.silent != "" {
		// Fallen back from frame timings: the compositor is still asked
		// for them (the counter set), to hear when it speaks again.
		defer t.plat.swapped(t, id, swapAt)
	}
	start := t.now()
	sync := swapSynced != nil && swapSynced(&t.plat)
	if t.stamped {
		t.plat.stamp(stampSerial | uint32(n&0xffff))
	}
	t.plat.roundTrip()
	landed := t.now()
	d := landed - start
	t.stats.RoundTrips++
	t.stats.RoundTripTotal += d
	t.stats.RoundTripMax = max(t.stats.RoundTripMax, d)
	if sync {
		// The swap ended with a round trip of its own (Mesa's drisw
		// does one after its XShmPutImage): the image was in the
		// framebuffer when it returned, before the stamp below was even
		// sent (a render thread descheduled in between, or a server
		// that served others first, stamps it later than that).
		t.stats.SyncedSwaps++
		landed = start
	}
	f := Frame{ID: id, Swap: swapAt, Landed: landed, Display: landed, Mode: ModeLanded}
	if at, msc, ok := t.grid.Next(landed); ok {
		f.Display, f.MSC = at, msc
	}
	if t.stamped {
		t.rt[n%swapRing] = rtFrame{f: f, n: n, pending: true}
		t.rtPend++
		t.drainStamps(false)
	} else {
		t.emit(f)
	}
	if t.probing > 0 {
		t.probing--
		if t.probing == 0 && t.completions >= probeSwaps/2 {
			// The swaps go through Present: its completions from now on.
			t.drainStamps(true)
			t.source, t.completeFrom, t.stamped = SourceComplete, t.nSwaps, false
		}
	}
}

// modelSwap reports swap id as SourceSwapModel does: shown at the first
// vblank after the swap returned.
func (t *Tracker) modelSwap(id uint64, swapAt time.Duration) {
	landed := t.now()
	f := Frame{ID: id, Swap: swapAt, Landed: landed, Display: landed, Mode: ModeLanded}
	if at, msc, ok := t.grid.Next(landed); ok {
		f.Display, f.MSC = at, msc
	}
	t.emit(f)
	t.reported = t.nSwaps
}

// silence reports whether the compositor's feedback has said nothing of
// fallbackFrames swaps over fallbackSilence (since the first swap, if it
// never said anything).
func (t *Tracker) silence() bool {
	m := t.wl
	if m == nil || t.nSwaps == 0 {
		return false
	}
	heard, heardSwaps := m.heard, m.heardSwaps
	if heard == 0 {
		heard, heardSwaps = t.firstSwap, 0
	}
	return t.nSwaps-heardSwaps >= fallbackFrames && t.now()-heard >= fallbackSilence
}

// watchSilence falls back to the next source once the compositor's
// feedback is silent (see Fallback). The frames it never reported are
// given up: nothing waits for them.
func (t *Tracker) watchSilence() {
	if t.fb.silent != "" || !t.silence() {
		return
	}
	t.fb.silent = t.source
	t.stats.Fallbacks++
	t.reported = t.nSwaps
	if fallbackOpen == nil || !fallbackOpen(t) {
		t.source = SourceSwapModel
	}
}

// answered is called for each word of the compositor's feedback, about
// swap: after a fallback it brings the tracker back to it. It reports
// whether the word is to be dropped: about a swap from before the return,
// which the fallback reported.
func (t *Tracker) answered(swap uint64) (drop bool) {
	if t.fb.silent != "" {
		t.resume()
	}
	return swap < t.fb.resumed
}

// resume goes back to the compositor's feedback, which spoke again: the
// swaps from now on are its to report. Its vblank count goes on from the
// grid's (a Grid takes only a count that grows).
func (t *Tracker) resume() {
	if t.rtPend > 0 {
		t.drainStamps(true)
	}
	if fallbackClose != nil {
		fallbackClose(t)
	}
	m := t.wl
	t.source, t.fb.silent, t.stamped = t.fb.silent, "", false
	t.stats.Returns++
	t.fb.resumed, t.reported = t.nSwaps, max(t.reported, t.nSwaps)
	m.heard, m.heardSwaps, m.named = t.now(), t.nSwaps, false
	if p := t.grid.Period(); p > 0 {
		if at, msc, ok := t.grid.Next(t.now() - p + 1); ok {
			m.haveBas, m.base, m.lastAt, m.lastMSC = true, at-p, at, msc
		}
	}
}

// drainStamps takes the server stamps in and reports, in swap order, the
// software-path frames that have theirs, or have waited stampWait (all of
// them if force).
func (t *Tracker) drainStamps(force bool) {
	for {
		c, ok := t.stamps.pop()
		if !ok {
			break
		}
		if t.nSwaps == 0 {
			continue
		}
		last := t.nSwaps - 1
		n := last - ((last - uint64(c.serial&0xffff)) & 0xffff) // the latest swap of that number
		if r := &t.rt[n%swapRing]; r.n == n && r.pending && !r.stamped {
			r.stamped, r.stamp = true, c.at
		}
	}
	for t.rtHead < t.nSwaps {
		r := &t.rt[t.rtHead%swapRing]
		if r.n != t.rtHead || !r.pending {
			t.rtHead++ // not a software-path frame, or lost to the ring
			continue
		}
		if !r.stamped && !force && (t.now()-r.f.Landed < stampWait || t.nSwaps-r.n <= stampFrames) {
			return
		}
		if r.stamped {
			t.stats.Stamped++
			if r.stamp >= r.f.Swap && r.stamp < r.f.Landed {
				r.f.Landed = r.stamp // the server's own time of it
			}
			if at, msc, ok := t.grid.Next(r.stamp + 1); ok && at <= r.f.Display {
				r.f.Display, r.f.MSC = at, msc
			}
		}
		r.pending = false
		t.rtPend--
		t.rtHead++
		t.emit(r.f)
	}
}

// Flush waits up to timeout for the server stamps of the frames swapped
// so far, then reports them all: call it once the last frame is swapped.
func (t *Tracker) Flush(timeout time.Duration) {
	for start := t.now(); t.rtPend > 0 && t.now()-start < timeout; {
		t.drainStamps(false)
		if t.rtPend > 0 {
			time.Sleep(200 * time.Microsecond)
		}
	}
	t.drainStamps(true)
	t.plat.flush(t, timeout)
}

// Collect returns the next frame whose display the display system has
// reported, in swap order, and false when none is waiting. It does not
// allocate.
func (t *Tracker) Collect() (Frame, bool) {
	t.plat.pump(t)
	if t.rtPend > 0 {
		t.drainStamps(false)
	}
	for {
		c, ok := t.ring.pop()
		if !ok {
			break
		}
		t.complete(c)
	}
	if t.outH == t.outT {
		return Frame{}, false
	}
	f := t.out[t.outH%outSize]
	t.outH++
	return f, true
}

// complete matches one PresentCompleteNotify to its swap.
func (t *Tracker) complete(c completion) {
	t.completions++
	t.stats.Completions++
	if !t.haveSerial {
		t.serial0, t.haveSerial = c.serial, true
	}
	n := uint64(c.serial - t.serial0)
	if n < t.completeFrom {
		return // reported by the round trip while probing
	}
	rec := t.swaps[n%swapRing]
	if rec.n != n || n >= t.nSwaps {
		t.stats.Unmatched++
		return
	}
	t.emit(Frame{ID: rec.id, Swap: rec.at, Landed: c.at, Display: c.at, MSC: c.msc, Mode: c.mode})
	t.reported = max(t.reported, n+1)
}

func (t *Tracker) emit(f Frame) {
	if t.outT-t.outH == outSize {
		t.outH++ // the oldest is lost rather than the newest
		t.stats.Lost++
	}
	t.out[t.outT%outSize] = f
	t.outT++
	t.emitted++
}

// Unreported is how many swapped frames the display system has not
// reported yet: frames in flight, not yet on the screen. A frame swapped
// before one it reported is not in flight, whether or not its own report
// ever comes: under a nested Mutter one frame's frame timings now and
// then never came (one of 185 frames, early in the run; the observer
// saw it on the screen), and counted in flight for ever it made every
// later low-latency frame wait its full timeout, two refreshes: the app
// ran at a third of the display's rate from then on. It does not
// allocate.
func (t *Tracker) Unreported() int {
	t.plat.pump(t)
	for {
		c, ok := t.ring.pop()
		if !ok {
			break
		}
		t.complete(c)
	}
	// A software-path frame waiting for its stamp is on the screen.
	done := max(min(t.emitted+uint64(t.rtPend), t.nSwaps), min(t.reported, t.nSwaps))
	return int(t.nSwaps - done)
}

// WaitReported waits until at most n swapped frames are unreported, or
// for timeout, and returns how long it waited: with n 0 before a frame's
// work starts, every earlier frame is on the screen (low latency: one
// frame not yet on the screen, the one about to be drawn). It polls every
// 100 µs and does not allocate.
func (t *Tracker) WaitReported(n int, timeout time.Duration) time.Duration {
	if t.Unreported() <= n {
		return 0
	}
	timeout = t.reportWait(timeout)
	start := t.now()
	for t.Unreported() > n {
		if t.now()-start >= timeout {
			break
		}
		time.Sleep(100 * time.Microsecond)
	}
	return t.now() - start
}

// Close stops the tracker's thread and closes its connection.
func (t *Tracker) Close() error { return t.plat.close() }
