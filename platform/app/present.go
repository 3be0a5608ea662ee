package app

import (
	"time"

	"github.com/tickframe/tickframe/platform"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/renderer/interp"
)

// swapRing is how many drawn frames' present times are kept for their
// read-backs, which come a few frames later (at most the renderer's 32
// queued records behind).
const swapRing = 64

// swapRecord is when a drawn frame was presented (the swap called) and
// when the swap returned.
type swapRecord struct {
	id                  uint64
	poll, present, done time.Duration
}

// shownFrame is a drawn frame whose display time is known.
type shownFrame struct {
	valid   bool
	probe   renderer.Probe
	poll    time.Duration
	present time.Duration
	display time.Duration
}

// presentTracker accounts for when each drawn frame reached the display,
// as PresentMon does, into Stats.Present and Stats.InputAge, and hands the
// meter what each shown frame drew and when. It belongs to the render
// thread and does not allocate.
type presentTracker struct {
	stats     *Stats
	meter     *interp.WarmMeter // nil: no meter
	swaps     [swapRing]swapRecord
	cand      shownFrame    // the last frame known shown, not yet final
	lastShown time.Duration // the display time of the last frame shown
}

// swapped records that drawn frame id was presented at present after
// polling its input at poll, and that its swap returned at done.
func (t *presentTracker) swapped(id uint64, poll, present, done time.Duration) {
	t.swaps[id%swapRing] = swapRecord{id: id, poll: poll, present: present, done: done}
}

// collect takes the renderer's finished read-backs and accounts for when
// each frame reached the display: a frame is shown at the first vblank
// (of pacer, when frames are paced) after the GPU finished it (the GPU
// timestamp, where the driver gives one; else when the swap returned),
// and a frame overtaken by the next one within the same vblank was
// dropped, never shown. The last frame stays pending until final is set.
func (t *presentTracker) collect(rend *renderer.Renderer, pacer *platform.Pacer, final bool) {
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
		t.shown(shownFrame{valid: true, probe: p, poll: rec.poll, present: rec.present, display: display}, pacer)
	}
	if final && t.cand.valid {
		t.finish(t.cand, pacer)
		t.cand.valid = false
	}
}

// shown takes the next frame known shown: the previous one is final now,
// displayed unless this one replaced it within the same vblank.
func (t *presentTracker) shown(s shownFrame, pacer *platform.Pacer) {
	st := &t.stats.Present
	if st.Source == "" {
		st.Source = "swap"
		if s.probe.HasGPUTime {
			st.Source = "gpu-timestamp"
		}
		if pacer != nil {
			st.Source += " on the vblank grid"
		}
	}
	if t.cand.valid {
		if pacer != nil && s.display <= t.cand.display {
			st.Dropped++
			if t.meter != nil {
				// What it drew still counts; it was never shown.
				t.meter.Shown(interp.Shown{Frame: t.cand.probe.Frame, Pos: t.cand.probe.Pos, HasPos: t.cand.probe.Valid})
			}
		} else {
			t.finish(t.cand, pacer)
		}
	}
	t.cand = s
}

// finish accounts for a frame that was displayed.
func (t *presentTracker) finish(s shownFrame, pacer *platform.Pacer) {
	st := &t.stats.Present
	st.Displayed++
	st.UntilDisplayed.Record(int64(s.display - s.present))
	t.stats.InputAge.Record(int64(s.display - s.poll))
	if t.lastShown > 0 {
		st.BetweenDisplayChange.Record(int64(s.display - t.lastShown))
		if pacer != nil {
			// Vblanks in between showed the previous frame again.
			period := pacer.Period()
			if gap := int64((s.display - t.lastShown + period/2) / period); gap > 1 {
				st.Repeated += uint64(gap - 1)
			}
		}
	}
	t.lastShown = s.display
	if t.meter != nil {
		t.meter.Shown(interp.Shown{Frame: s.probe.Frame, Pos: s.probe.Pos, HasPos: s.probe.Valid, At: s.display})
	}
}
