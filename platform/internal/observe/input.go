package observe

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/tickframe/tickframe/platform/internal/marker"
)

// Input to photon (docs/present.md, "Input to photon"): the observer
// presses a key through the X server's XTEST extension at times it stamps
// and watches the framebuffer for the app's reaction, the reaction patch
// beside the marker (marker.ReactionX), which the app draws in colour
// marker.Color(n) once it has polled n presses of the key. The time from
// the press to the patch's change is the input's latency to the
// framebuffer; to the first vblank after it, its latency to the photon.

// Injection is one key press the observer sent: the N-th since the
// watch started. Sent is when the request was handed to the X server
// (the latency's origin), Synced when the server answered a round trip
// right after it: it had generated the press by then.
type Injection struct {
	N            uint64
	Sent, Synced time.Duration
}

// InputConfig configures the presses.
type InputConfig struct {
	// Count is how many keys to press (0: none; the watch goes on).
	Count int
	// MinGap, MaxGap bound the random time from a reaction seen (or given
	// up on) to the next press: random, so that the presses fall at every
	// phase of the app's frames and the display's vblanks. 0 means 20 ms
	// and 60 ms.
	MinGap, MaxGap time.Duration
	// Timeout is how long a press waits for its reaction before the next
	// is sent; 0 means a second.
	Timeout time.Duration
}

// presser sends key presses to a window (XTEST on X11).
type presser interface {
	// press sends one press and release of the observer's key and
	// returns when it handed the press over and when the server had
	// processed it.
	press() (sent, synced time.Duration, err error)
	close()
}

// reactWatch follows the reaction patch from the watcher's thread: its
// colour at every poll, its changes kept. It does not allocate while
// polling.
type reactWatch struct {
	x       int // the column read, on the screen
	changes []Change
	last    atomic.Int32 // the colour index last seen whole, -1 before
	torn    bool
}

// maxReactions bounds the reaction changes kept (allocated once).
const maxReactions = 1 << 14

func newReactWatch(winX int) *reactWatch {
	r := &reactWatch{x: winX + marker.ReactionX + marker.Width/2, changes: make([]Change, 0, maxReactions)}
	r.last.Store(-1)
	return r
}

// poll reads the patch at rows ys; prev and at are the watcher's polls.
func (r *reactWatch) poll(fb *Framebuffer, ys []int, prev, at time.Duration) {
	idx := -1
	for i, y := range ys {
		c0, c1, c2 := fb.RGB(r.x, y)
		k := marker.Decode(c0, c1, c2)
		if i == 0 {
			idx = k
		} else if k != idx {
			return // a copy under way: decided at a later poll
		}
	}
	if idx < 0 || int32(idx) == r.last.Load() {
		return
	}
	if len(r.changes) < cap(r.changes) {
		r.changes = append(r.changes, Change{Prev: prev, At: at, Index: uint8(idx)})
	}
	r.last.Store(int32(idx))
}

// inject presses the key cfg.Count times, each after a random gap from
// the previous reaction (or its timeout), and returns the presses sent.
// It waits first for the patch to show the app's count before any press.
func inject(ctx context.Context, p presser, r *reactWatch, cfg InputConfig, now func() time.Duration) ([]Injection, error) {
	lo, hi := cfg.MinGap, cfg.MaxGap
	if lo <= 0 {
		lo = 20 * time.Millisecond
	}
	if hi < lo {
		hi = max(lo, 60*time.Millisecond)
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = time.Second
	}
	wait := func(want int32, d time.Duration) bool {
		end := now() + d
		for r.last.Load() != want {
			if now() > end || ctx.Err() != nil {
				return false
			}
			time.Sleep(time.Millisecond)
		}
		return true
	}
	if !wait(0, 10*time.Second) {
		return nil, fmt.Errorf("observe: the app drew no reaction patch (run it with -marker) in 10 s")
	}
	out := make([]Injection, 0, cfg.Count)
	for n := uint64(1); n <= uint64(cfg.Count) && ctx.Err() == nil; n++ {
		gap := lo + time.Duration(rand.Int64N(int64(hi-lo)+1))
		select {
		case <-ctx.Done():
			return out, nil
		case <-time.After(gap):
		}
		sent, synced, err := p.press()
		if err != nil {
			return out, err
		}
		out = append(out, Injection{N: n, Sent: sent, Synced: synced})
		wait(int32(n%uint64(len(marker.Palette))), timeout)
	}
	return out, nil
}

// InputLatency is one press and its reaction.
type InputLatency struct {
	Injection
	// Seen: the patch turned to the press's colour at a poll in (Prev,
	// At]; the reaction reached the framebuffer then, and Arrival is the
	// middle of the two polls.
	Seen             bool
	Prev, At         time.Duration
	Arrival, Vblank  time.Duration // Vblank: the first vblank after Arrival (0 without a grid)
	Missed           string        // why not seen
	ToFramebuffer    time.Duration // Arrival - Sent
	ToPhoton         time.Duration // Vblank - Sent (0 without a grid)
	PollUncertainty  time.Duration // At - Prev: the observer's own share
	ServerRoundTrips time.Duration // Synced - Sent: how long the press took to be processed, at most
}

// InputReport is the input-to-photon figures of a watch.
type InputReport struct {
	Inputs []InputLatency
	// Sent counts the presses, Seen those whose reaction was seen;
	// Missed the others, with a reason each (Inputs).
	Sent, Seen, Missed int
	// ToFramebuffer and ToPhoton summarise the latencies of the presses
	// seen (ToPhoton: on the grid, N 0 without one).
	ToFramebuffer, ToPhoton Summary
	// Send summarises Synced - Sent: the X server's part, at most.
	Send Summary
}

// AnalyzeInputs joins the presses with the reaction patch's changes: the
// N-th press's reaction is the first change to colour N mod 16 after it
// was sent and before the next press; grid (nil: none) places it on the
// display's vblanks; a press whose reaction was not seen across a stall
// of the observer is missed for that reason.
func AnalyzeInputs(inj []Injection, reactions []Change, grid Grid, stalls []Span) InputReport {
	var rep InputReport
	var fb, ph, send []time.Duration
	j := 0
	for i, in := range inj {
		end := time.Duration(1<<63 - 1)
		if i+1 < len(inj) {
			end = inj[i+1].Sent
		}
		l := InputLatency{Injection: in, ServerRoundTrips: in.Synced - in.Sent}
		want := uint8(in.N % uint64(len(marker.Palette)))
		for j < len(reactions) && reactions[j].At <= in.Sent {
			j++
		}
		for k := j; k < len(reactions) && reactions[k].Prev < end; k++ {
			if c := reactions[k]; c.Index == want {
				l.Seen, l.Prev, l.At = true, c.Prev, c.At
				break
			}
		}
		rep.Sent++
		send = append(send, l.ServerRoundTrips)
		if !l.Seen {
			l.Missed = "no reaction before the next press"
			if i+1 == len(inj) {
				l.Missed = "no reaction before the watch ended"
			}
			for _, s := range stalls {
				if s.To > in.Sent && s.From < end {
					l.Missed = fmt.Sprintf("the observer stalled %v after the press", s.To-s.From)
					break
				}
			}
			rep.Missed++
			rep.Inputs = append(rep.Inputs, l)
			continue
		}
		rep.Seen++
		l.Arrival = l.Prev + (l.At-l.Prev)/2
		l.PollUncertainty = l.At - l.Prev
		l.ToFramebuffer = l.Arrival - in.Sent
		fb = append(fb, l.ToFramebuffer)
		if grid != nil {
			if v, ok := grid(l.Arrival); ok {
				l.Vblank, l.ToPhoton = v, v-in.Sent
				ph = append(ph, l.ToPhoton)
			}
		}
		rep.Inputs = append(rep.Inputs, l)
	}
	rep.ToFramebuffer, rep.ToPhoton, rep.Send = summarize(fb), summarize(ph), summarize(send)
	return rep
}
