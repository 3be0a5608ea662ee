package observe

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"time"

	"github.com/tickframe/tickframe/platform/internal/marker"
)

// Change is one change of the marker on the screen: from poll Prev to poll
// At the marker turned to colour Index (frame ids ≡ Index mod 16). The
// frame reached the framebuffer in (Prev, At].
type Change struct {
	Prev, At time.Duration
	Index    uint8
}

// watcher polls the marker of the window at X, Y (W×H pixels, on the
// screen) in a framebuffer.
type watcher struct {
	FB         *Framebuffer
	X, Y, W, H int
	// Interval is the time between polls; 0 means DefaultInterval.
	Interval time.Duration
	// Priority is the SCHED_FIFO priority the polling thread asks for (0:
	// DefaultPriority; -1: none).
	Priority int
	// Now is the clock of the changes; nil means CLOCK_MONOTONIC.
	Now func() time.Duration
	// react, if set, follows the reaction patch at every poll (input.go).
	react *reactWatch
}

// DefaultInterval is 200 µs: 5 kHz, well above the 2 kHz needed to place
// every frame of a 144 Hz display within a few percent of its period.
const DefaultInterval = 200 * time.Microsecond

// DefaultPriority is the real-time priority the observer asks for: above
// the app's (tickframe asks for at most -critrt's) and any load's, so that
// its own wake-ups are not what it measures.
const DefaultPriority = 50

// WatchStats are the watcher's own figures: how precise it was.
type WatchStats struct {
	// Polls counts the framebuffer reads; Gaps are the times between
	// consecutive polls (their p50, p99 and max), the observer's
	// precision.
	Polls                  uint64
	GapP50, GapP99, GapMax time.Duration
	Realtime               bool   // the polling thread got SCHED_FIFO
	RealtimeErr            string // why not, when it did not
	Torn                   uint64 // polls that saw two markers at once (a copy under way)
	Unknown                uint64 // polls that saw no marker colour
	// Stalls are the gaps between two polls longer than StallGap: the
	// observer was blind then (its thread did not run), and a frame that
	// came and went inside one is not seen. Analyze leaves the frames
	// around them out of every count.
	Stalls []Span
}

// Span is an interval of time, From to To.
type Span struct{ From, To time.Duration }

// StallGap is the poll gap the observer counts as a stall: 1 ms, a
// seventh of a 144 Hz period and over a third of a 360 Hz one, five
// times the default interval. A frame shown for a whole vblank cannot
// pass unseen in a shorter gap.
const StallGap = time.Millisecond

// maxStalls bounds the stalls kept (the list is allocated once, so that
// polling does not allocate).
const maxStalls = 4096

// sampleRows is how many points down the marker each poll reads: the top,
// the middle and the bottom. A frame is taken as shown once all agree, so
// a copy into the framebuffer caught half way (a tear) is not a change.
const sampleRows = 3

// Run polls until ctx is done and returns the changes seen, in order.
func (w *watcher) Run(ctx context.Context) ([]Change, WatchStats, error) {
	var st WatchStats
	if w.FB == nil || w.W < 1 || w.H < sampleRows {
		return nil, st, errors.New("observe: watcher without a framebuffer or a window")
	}
	if w.X < 0 || w.Y < 0 || w.X+marker.Width > w.FB.Width || w.Y+w.H > w.FB.Height {
		return nil, st, errors.New("observe: the window lies outside the framebuffer")
	}
	interval := w.Interval
	if interval <= 0 {
		interval = DefaultInterval
	}
	now := w.Now
	if now == nil {
		now = monotonic
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	prio := w.Priority
	if prio == 0 {
		prio = DefaultPriority
	}
	if prio > 0 {
		if err := realtime(prio); err != nil {
			st.RealtimeErr = err.Error()
		} else {
			st.Realtime = true
		}
	}
	x := w.X + min(marker.Width, w.W)/2
	ys := [sampleRows]int{w.Y + 1, w.Y + w.H/2, w.Y + w.H - 2}
	changes := make([]Change, 0, 1<<16)
	st.Stalls = make([]Span, 0, maxStalls)
	gaps := make([]time.Duration, 0, 1<<16)
	last, torn := -1, false
	var prev time.Duration
	next := now()
	for ctx.Err() == nil {
		at := now()
		idx := -1
		for i, y := range ys {
			r, g, b := w.FB.RGB(x, y)
			k := marker.Decode(r, g, b)
			if i == 0 {
				idx = k
			} else if k != idx {
				idx = -2
				break
			}
		}
		st.Polls++
		if w.react != nil {
			w.react.poll(w.FB, ys[:], prev, at)
		}
		if prev > 0 && len(gaps) < cap(gaps) {
			gaps = append(gaps, at-prev)
		}
		if prev > 0 && at-prev > max(StallGap, 5*interval) {
			if len(st.Stalls) < cap(st.Stalls) {
				st.Stalls = append(st.Stalls, Span{From: prev, To: at})
			} else {
				st.Stalls[len(st.Stalls)-1].To = at // full: the last span covers the rest, so nothing is counted seen that was not
			}
		}
		switch {
		case idx == -2:
			if !torn {
				st.Torn++
				torn = true
			}
		case idx < 0:
			st.Unknown++
		case idx != last:
			torn = false
			if last >= 0 || len(changes) == 0 {
				changes = append(changes, Change{Prev: prev, At: at, Index: uint8(idx)})
			}
			last = idx
		default:
			torn = false
		}
		prev = at
		next += interval
		if d := now(); next < d {
			next = d // late: poll at once, do not make up the lost polls
		}
		sleepUntil(next)
	}
	if len(gaps) > 0 {
		slices.Sort(gaps)
		st.GapP50, st.GapP99, st.GapMax = gaps[len(gaps)/2], gaps[len(gaps)*99/100], gaps[len(gaps)-1]
	}
	return changes, st, nil
}
