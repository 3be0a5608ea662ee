package instrument

import (
	"time"

	"github.com/tickframe/tickframe/platform/internal/framelog"
	"github.com/tickframe/tickframe/platform/internal/interp"
	"github.com/tickframe/tickframe/platform/internal/loop"
	"github.com/tickframe/tickframe/platform/internal/present"
	"github.com/tickframe/tickframe/platform/internal/sched"
	"github.com/tickframe/tickframe/platform/internal/window"
	"github.com/tickframe/tickframe/renderer"
)

// swapRing is how many drawn frames' present times are kept for their
// read-backs, which come a few frames later (at most the renderer's 32
// queued records behind).
const swapRing = 64

// swapRecord is when a drawn frame was presented (the swap called) and
// when the swap returned, what it showed (for the frame log), and, once
// the display system has said, when it was shown.
type swapRecord struct {
	id                  uint64
	poll, present, done time.Duration
	sim                 simShown
	known               bool // the display system reported it
	display             time.Duration
	msc                 uint64
	mode                present.Mode
	landed              time.Duration // when it was in the display server (ModeLanded: its framebuffer)
}

// simShown is the simulated time a frame shows (s) and its segment of the
// simulation's timeline, when ok: what the frame log carries.
type simShown struct {
	at, seg float64
	ok      bool
}

// shownFrame is a drawn frame whose display time is known.
type shownFrame struct {
	valid   bool
	probe   renderer.Probe
	poll    time.Duration
	present time.Duration
	display time.Duration
	msc     uint64 // the display's vblank count, 0 without one
	sim     simShown
}

// presentTracker accounts for when each drawn frame reached the display,
// as PresentMon does, into frameStats.Present and frameStats.InputAge, and hands the
// meter what each shown frame drew and when. It belongs to the render
// thread and does not allocate.
//
// Where the display system reports when frames were shown (src, package
// present), those reports are the display times; elsewhere they are the
// model below, and frameStats.Present.Source says so.
type presentTracker struct {
	stats     *frameStats
	meter     *interp.WarmMeter // nil: no meter
	src       *present.Tracker  // nil, or not Measured: the model
	err       string            // why the display system says nothing, if so
	log       *framelog.Log     // nil: no frame log
	vblankHz  float64           // the display's rate at the end (logVblanks)
	mono      time.Duration     // CLOCK_MONOTONIC minus the app's clock, for the log
	swaps     [swapRing]swapRecord
	waiting   [swapRing]renderer.Probe // read-backs whose display is not reported yet
	wHead     uint64
	wTail     uint64
	cand      shownFrame    // the last frame known shown, not yet final
	lastShown time.Duration // the display time of the last frame shown
	lastMSC   uint64
	rates     rateFigures        // the display system's rate against the paced one
	pacing    func() loop.Pacing // whether its pacer emulates a display of its own (nil: never)
	wait      *sched.ThreadWait  // the render thread's wait for a CPU (nil: not kept here)
	handOff   bool               // the display system is XWayland's: its times are the hand-over to a compositor
}

// rateFigures is what the present figures say of a display system whose
// vblanks run at another rate than the one the app paces (see
// docs/present.md, "Which vblanks the figures are on").
type rateFigures struct {
	// emulated counts the frames that reached the display server's
	// framebuffer and were placed on the pacer's vblanks, the display the
	// app emulates, because the display system's own ran at another rate;
	// landed all the frames that reached it (the software path).
	emulated, landed uint64
	// onDisplay counts the frames that were in the framebuffer at one of
	// the display system's own vblanks (a frame per vblank that had a new
	// one): what its vblanks showed, where its CRTC is a real scanout.
	onDisplay uint64
	dispMSC   uint64 // the display system's vblank the latest frame was there at
}

// flushWait bounds the wait for the last frames' reports at the end of Run.
const flushWait = 250 * time.Millisecond

// measured reports whether the display system reports the frames.
func (t *presentTracker) measured() bool { return t.src != nil && t.src.Measured() }

// waited reads the render thread's wait for a CPU so far.
func (t *presentTracker) waited() time.Duration { return t.wait.Read() }

// hidden reports whether the display system shows none of the window's
// frames (present.Tracker.Hidden).
func (t *presentTracker) hidden() bool { return t.src != nil && t.src.Hidden() }

// swapped records that drawn frame id, showing sim, was presented at
// present after polling its input at poll, and that its swap returned at
// done.
func (t *presentTracker) swapped(id uint64, poll, present, done time.Duration, sim simShown) {
	t.swaps[id%swapRing] = swapRecord{id: id, poll: poll, present: present, done: done, sim: sim}
}

// reports takes the display system's reports into the swap records.
func (t *presentTracker) reports() {
	for {
		f, ok := t.src.Collect()
		if !ok {
			return
		}
		rec := &t.swaps[f.ID%swapRing]
		if rec.id == f.ID {
			rec.known, rec.display, rec.msc, rec.mode, rec.landed = true, f.Display, f.MSC, f.Mode, f.Landed
		}
	}
}

// collect takes the renderer's finished read-backs and accounts for when
// each frame reached the display. Where the display system reports it
// (src), a frame is shown when it says (and a frame it skipped was
// dropped); the model is PresentMon's: a frame is shown at the first
// vblank (of pacer, when frames are paced) after the GPU finished it (the
// GPU timestamp, where the driver gives one; else when the swap
// returned). Either way a frame overtaken by the next one within the same
// vblank was dropped, never shown. The last frame stays pending until
// final is set.
func (t *presentTracker) collect(rend *renderer.Renderer, pacer *window.Pacer, final bool) {
	if t.measured() {
		if final {
			t.src.Flush(flushWait) // the last frames' server stamps
		}
		t.reports()
		t.logVblanks(final)
	}
	for {
		p, ok := rend.Probed()
		if !ok {
			break
		}
		rec := t.swaps[p.Frame%swapRing]
		if rec.id != p.Frame {
			t.stats.Present.Unknown++
			continue
		}
		if t.measured() {
			if t.wTail-t.wHead == swapRing {
				t.wHead++ // never reported: the oldest is given up
				t.stats.Present.Unknown++
			}
			t.waiting[t.wTail%swapRing] = p
			t.wTail++
			continue
		}
		done := rec.done
		if p.HasGPUTime {
			// The image is complete when the GPU has finished and the
			// present has been issued.
			done = max(p.GPUDone, rec.present)
		}
		display := done
		if pacer != nil {
			display = pacer.DisplayAt(done)
		}
		t.shown(shownFrame{valid: true, probe: p, poll: rec.poll, present: rec.present, display: display, sim: rec.sim}, pacer)
	}
	t.collectReported(pacer, final)
	if final && t.cand.valid {
		t.finish(t.cand, pacer)
		t.cand.valid = false
	}
	if final && t.measured() {
		// Named at the end, when the vblanks' source is known.
		t.stats.Present.Source = t.sourceName()
	}
}

// collectReported accounts, in order, for the read-backs whose display
// the display system has reported; at the end (final), those it never
// reported are unknown.
func (t *presentTracker) collectReported(pacer *window.Pacer, final bool) {
	for t.wHead < t.wTail {
		p := t.waiting[t.wHead%swapRing]
		rec := &t.swaps[p.Frame%swapRing]
		if rec.id != p.Frame {
			t.wHead++
			t.stats.Present.Unknown++
			continue
		}
		if !rec.known {
			if !final {
				return
			}
			t.wHead++
			t.stats.Present.Unknown++
			continue
		}
		t.wHead++
		s := shownFrame{valid: true, probe: p, poll: rec.poll, present: rec.present, display: rec.display, msc: rec.msc, sim: rec.sim}
		if rec.mode == present.ModeSkip {
			// The display system reported the frame before it as shown:
			// it is final, and is logged first, so that the frame log
			// stays in frame order.
			if t.cand.valid {
				t.finish(t.cand, pacer)
				t.cand.valid = false
			}
			t.dropped(s)
			continue
		}
		if rec.mode == present.ModeLanded {
			t.placeLanded(&s, rec, pacer)
		}
		t.shown(s, pacer)
	}
}

// placeLanded puts a frame that reached the display server's framebuffer
// (the software path) on the vblanks the figures are on. Where the display
// system's vblanks run at the rate the app paces, they are its own: the
// tracker's placement stands (the next vblank after the server's stamp).
// Where they run at another rate (Xvfb's fake CRTC at 60 Hz under an app
// emulating 144 Hz), so that the software pacer keeps a grid of its own
// (loop.Pacing.Emulating), they are not the display the app shows on: the frame
// is shown at the pacer's first vblank after it landed, and dropped only
// if the next frame landed before that vblank. Either way it counts
// toward the frames the display system's own vblanks found new
// (rateFigures.onDisplay).
func (t *presentTracker) placeLanded(s *shownFrame, rec *swapRecord, pacer *window.Pacer) {
	r := &t.rates
	r.landed++
	if rec.msc > r.dispMSC {
		r.onDisplay++
		r.dispMSC = rec.msc
	}
	if pacer == nil || t.pacing == nil || !t.pacing().Emulating {
		return
	}
	r.emulated++
	s.display, s.msc = pacer.DisplayAt(rec.landed), 0
}

// emulatedMost reports whether most of the frames that reached the
// framebuffer were placed on the emulated display's vblanks.
func (r *rateFigures) emulatedMost() bool { return r.emulated > 0 && 2*r.emulated >= r.landed }

// rateMismatch reports whether the display system's vblanks ran at
// another rate than the one frames were paced at (more than 1 % apart),
// and that rate (0: the display system reports none).
func (t *presentTracker) rateMismatch(pacedHz float64) (displayHz float64, mismatch bool) {
	if !t.measured() || !t.src.Grid().Known() {
		return 0, false
	}
	g := t.src.Grid()
	if pacedHz <= 0 {
		return g.Hz(), false
	}
	return g.Hz(), !loop.RatesAgree(g.Period(), time.Duration(1e9/pacedHz))
}

// sameVblank reports whether b is shown at a's vblank or before (so that b
// replaced a): by the display's count where it has one.
func sameVblank(a, b *shownFrame) bool {
	switch {
	case a.msc == 0 || b.msc == 0:
		return b.display <= a.display
	case b.msc < a.msc && b.display > a.display:
		// A count that went back while the time went on is a new counter
		// (present.Discontinuous), not an earlier vblank.
		return false
	}
	return b.msc <= a.msc
}

// dropped accounts for a frame that was never shown.
func (t *presentTracker) dropped(s shownFrame) {
	t.stats.Present.Dropped++
	if t.meter != nil {
		// What it drew still counts; it was never shown.
		t.meter.Shown(interp.Shown{Frame: s.probe.Frame, Pos: s.probe.Pos, HasPos: s.probe.Valid})
	}
	t.logFrame(&s, false)
}

// logVblanks moves the vblank reports the display system's grid took
// into the frame log, on CLOCK_MONOTONIC. At the end (final) it adds the
// count of those its ring had no room for, and reads the display's rate
// (vblankHz, the report's) from the fit of exactly the reports logged,
// so that a replay of the log gives that rate again, bit for bit.
func (t *presentTracker) logVblanks(final bool) {
	g := t.src.Grid()
	for try := 0; ; try++ {
		for {
			v, ok := g.NextReport()
			if !ok {
				break
			}
			if t.log != nil {
				t.log.AddVblank(framelog.Vblank{At: v.At + t.mono, MSC: v.MSC})
			}
		}
		if !final {
			return
		}
		t.vblankHz = g.Hz()
		if _, more := g.PeekReport(); !more || try == 3 {
			break // none came while the rate was read
		}
	}
	if t.log != nil {
		t.log.CountLostVblanks(g.ReportsLost())
	}
}

// logFrame adds a frame's verdict to the frame log, on CLOCK_MONOTONIC.
func (t *presentTracker) logFrame(s *shownFrame, shown bool) {
	if t.log == nil {
		return
	}
	t.log.Add(framelog.Frame{ID: s.probe.Frame, Swap: s.present + t.mono, Display: s.display + t.mono,
		Sim: s.sim.at, Seg: s.sim.seg, HasSim: s.sim.ok, Shown: shown})
}

// shown takes the next frame known shown: the previous one is final now,
// displayed unless this one replaced it within the same vblank.
func (t *presentTracker) shown(s shownFrame, pacer *window.Pacer) {
	st := &t.stats.Present
	if st.Source == "" {
		st.Source = t.source(&s, pacer)
	}
	if t.cand.valid {
		if (pacer != nil || t.measured()) && sameVblank(&t.cand, &s) {
			t.dropped(t.cand)
		} else {
			t.finish(t.cand, pacer)
		}
	}
	t.cand = s
}

// finish accounts for a frame that was displayed.
func (t *presentTracker) finish(s shownFrame, pacer *window.Pacer) {
	st := &t.stats.Present
	st.Displayed++
	st.UntilDisplayed.Record(int64(s.display - s.present))
	t.stats.InputAge.Record(int64(s.display - s.poll))
	if t.lastShown > 0 {
		st.BetweenDisplayChange.Record(int64(s.display - t.lastShown))
		switch {
		case s.msc > 0 && t.lastMSC > 0:
			// Vblanks in between showed the previous frame again: the
			// display's own count says how many, unless it jumped
			// (another output's counter): then it says nothing.
			if present.Discontinuous(t.lastMSC, s.msc, s.display-t.lastShown, t.period(pacer)) {
				st.Rebases++
			} else if s.msc > t.lastMSC+1 {
				st.Repeated += s.msc - t.lastMSC - 1
			}
		case pacer != nil:
			period := pacer.Period()
			if gap := int64((s.display - t.lastShown + period/2) / period); gap > 1 {
				st.Repeated += uint64(gap - 1)
			}
		}
	}
	t.lastShown, t.lastMSC = s.display, s.msc
	t.logFrame(&s, true)
	if t.meter != nil {
		t.meter.Shown(interp.Shown{Frame: s.probe.Frame, Pos: s.probe.Pos, HasPos: s.probe.Valid, At: s.display})
	}
}

// period is the display's period as its vblanks measured it, else the
// pacer's (0: neither).
func (t *presentTracker) period(pacer *window.Pacer) time.Duration {
	if t.measured() {
		if p := t.src.Grid().Period(); p > 0 {
			return p
		}
	}
	if pacer != nil {
		return pacer.Period()
	}
	return 0
}

// sourceName names the display system's source, with where its vblanks
// come from: the display system's, or (where it ran at another rate and
// the frames reached its framebuffer) the emulated display's. Under
// XWayland it says that what the X server saw is not what the compositor
// showed: XWayland reports a frame done when it hands it over, and the
// compositor may still drop it (docs/platforms.md).
func (t *presentTracker) sourceName() string {
	src := t.src.Source()
	switch g := t.src.Grid(); {
	case t.rates.emulatedMost():
		src += " on emulated vblanks"
	case g.Known():
		src += " on " + g.Source() + " vblanks"
	}
	if t.handOff && t.src.Source() != present.SourceFrameTimings {
		src += " (XWayland: the hand-over to the compositor, not the screen)"
	}
	return src
}

// source names where the display times come from: the display system's
// source (with where its vblanks come from), or the model, labelled so.
func (t *presentTracker) source(s *shownFrame, pacer *window.Pacer) string {
	if t.measured() {
		return t.sourceName()
	}
	src := "model: swap"
	if s.probe.HasGPUTime {
		src = "model: gpu-timestamp"
	}
	if pacer != nil {
		src += " on the vblank grid"
	}
	return src
}
