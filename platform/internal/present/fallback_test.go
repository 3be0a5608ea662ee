package present

import (
	"testing"
	"time"
)

// fbRun is a tracker whose compositor's feedback (frame timings or
// wp_presentation, named name) is driven by hand on a virtual clock at
// 60 Hz.
type fbRun struct {
	t     *testing.T
	tr    *Tracker
	m     *wlMatcher
	clock time.Duration
	id    uint64
}

const fbPeriod = time.Second / 60

func newFBRun(t *testing.T, name string) *fbRun {
	r := &fbRun{t: t, clock: time.Hour, id: 100}
	now := func() time.Duration { return r.clock }
	r.tr = &Tracker{now: now, source: name, completeFrom: ^uint64(0)}
	r.m = &wlMatcher{clock: exactClock(now), clockID: 1}
	if name == SourceFrameTimings {
		r.m.name = name
	}
	r.tr.wl = r.m
	return r
}

// swap swaps a frame a period after the last and returns its number.
func (r *fbRun) swap() uint64 {
	r.clock += fbPeriod
	n := r.tr.nSwaps
	r.tr.Swapped(r.id, r.clock)
	r.id++
	return n
}

// present is the compositor's word that swap n was shown now.
func (r *fbRun) present(n uint64) {
	at := r.clock + compositorAhead
	r.m.take(r.tr, wlEvent{swap: n, sec: uint64(at / time.Second), nsec: uint32(at % time.Second), refresh: uint32(fbPeriod)})
}

// collect returns the swap numbers of the frames reported so far.
func (r *fbRun) collect() []uint64 {
	var ns []uint64
	for {
		f, ok := r.tr.Collect()
		if !ok {
			return ns
		}
		ns = append(ns, f.ID-100)
	}
}

// A compositor's feedback that says nothing of fallbackFrames frames over
// fallbackSilence is left for the next source (on a tracker with no X
// connection, the swap model), which reports every frame from then on:
// the window is never counted hidden for the silence (it paused the world,
// issue 37). Its next word brings the tracker back; the frames the
// fallback reported are not reported twice, and the vblanks count on.
func TestSilenceFallsBackAndReturns(t *testing.T) {
	for _, name := range []string{SourceFrameTimings, SourceWayland} {
		t.Run(name, func(t *testing.T) {
			r := newFBRun(t, name)
			tr := r.tr
			for range 30 {
				r.present(r.swap())
			}
			if got := len(r.collect()); got != 30 || !tr.Grid().Known() {
				t.Fatalf("%d frames reported of 30, grid known %v", got, tr.Grid().Known())
			}
			first := tr.Source()
			// Silent: fewer frames than fallbackFrames, however long,
			// or that many in less than fallbackSilence, is a
			// compositor late under load.
			for i := range fallbackFrames - 1 {
				r.swap()
				if i == 0 {
					r.clock += time.Second
				}
			}
			if tr.Fallback() != "" || tr.Source() != first {
				t.Fatalf("fell back after %d silent frames: %q, source %q", fallbackFrames-1, tr.Fallback(), tr.Source())
			}
			r.swap()
			if tr.Fallback() != first || tr.Source() != SourceSwapModel || tr.Stats().Fallbacks != 1 {
				t.Fatalf("after %d silent frames: fallback from %q, source %q, %d fallbacks; want from %q, %q, 1",
					fallbackFrames, tr.Fallback(), tr.Source(), tr.Stats().Fallbacks, first, SourceSwapModel)
			}
			if tr.Hidden() {
				t.Error("a silent compositor made the window hidden")
			}
			if tr.Unreported() != 0 || tr.reportWait(time.Second) != 0 {
				t.Errorf("after the fallback %d frames unreported, a wait of %v; want none", tr.Unreported(), tr.reportWait(time.Second))
			}
			var last uint64
			for range 50 {
				last = r.swap()
			}
			if got := r.collect(); len(got) != 50 || got[49] != last {
				t.Fatalf("the fallback reported %d frames of the 50 swapped since", len(got))
			}
			if tr.Hidden() || tr.Stats().Fallbacks != 1 {
				t.Errorf("a long silence: hidden %v, %d fallbacks", tr.Hidden(), tr.Stats().Fallbacks)
			}
			count := tr.Grid().Count()

			// The compositor speaks again, of a frame the fallback
			// reported: dropped; the next frames are its own.
			r.present(last)
			if tr.Fallback() != "" || tr.Source() != first || tr.Stats().Returns != 1 {
				t.Fatalf("after the compositor spoke: fallback %q, source %q, %d returns; want none, %q, 1",
					tr.Fallback(), tr.Source(), tr.Stats().Returns, first)
			}
			if got := r.collect(); len(got) != 0 {
				t.Errorf("the fallback's frames reported again: %v", got)
			}
			n := r.swap()
			if got := r.collect(); len(got) != 0 {
				t.Errorf("back on the compositor, frames reported before its word: %v", got)
			}
			r.present(n)
			if got := r.collect(); len(got) != 1 || got[0] != n {
				t.Errorf("back on the compositor, its report of swap %d gave %v", n, got)
			}
			if tr.Grid().Count() <= count {
				t.Error("the compositor's vblanks after the return did not go on the grid")
			}
			if s := tr.Stats(); s.Fallbacks != 1 || s.Returns != 1 || tr.Hidden() {
				t.Errorf("%d fallbacks, %d returns, hidden %v; want 1, 1, false", s.Fallbacks, s.Returns, tr.Hidden())
			}
		})
	}
}

// A compositor that never says a word of any frame (a window manager
// that lists frame sync and never answers; a surface with no role) is
// silent from the first swap: it is left as any silent one, and the
// window is never hidden for it.
func TestNeverHeardFallsBack(t *testing.T) {
	r := newFBRun(t, SourceFrameTimings)
	for range fallbackFrames - 1 {
		r.swap()
		r.clock += fallbackSilence
	}
	if r.tr.Fallback() != "" {
		t.Fatal("fell back before fallbackFrames frames")
	}
	r.swap()
	if r.tr.Fallback() != SourceFrameTimings || r.tr.Stats().Fallbacks != 1 || r.tr.Hidden() {
		t.Errorf("never heard: fallback %q, %d fallbacks, hidden %v; want frame timings, 1, false",
			r.tr.Fallback(), r.tr.Stats().Fallbacks, r.tr.Hidden())
	}
}
