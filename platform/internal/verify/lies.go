package verify

import (
	"slices"
	"time"

	"github.com/tickframe/tickframe/platform/internal/interp"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/simthread"
	"github.com/tickframe/tickframe/sync/waitfree"
)

// planEdit edits an interpolated frame's plan before it is measured, with
// the snapshot history the planner holds at hand: a deliberately broken
// renderer, which verify must catch.
type planEdit func(frameTime time.Duration, plan *renderer.Plan, h held)

// held is the planner's snapshot history, for broken renderers that pick
// other snapshots than the plan did.
type held struct {
	view *waitfree.Consumer[simthread.Snapshot]
}

// seq returns the snapshot with acquire sequence number n, or nil if the
// history no longer (or not yet) holds it.
func (h held) seq(n uint64) *simthread.Snapshot {
	newest := h.view.Acquired()
	if n == 0 || n > newest || newest-n >= uint64(h.view.Len()) {
		return nil
	}
	return h.view.History(int(newest - n))
}

// resim sets a plan's displayed simulated time from its pair and alpha, as
// a renderer drawing that pair would show it.
func resim(p *renderer.Plan) {
	ta, tb := float64(p.Prev.Tick), float64(p.Next.Tick)
	p.SimTick = ta + float64(p.Alpha)*(tb-ta)
}

// The broken renderers verify must fail, by the name -break takes. Each
// returns a fresh editor per row: they keep state from frame to frame.
var lies = map[string]func() planEdit{
	// alpha-late interpolates with the previous frame's alpha: an alpha
	// computed one frame late (a uniform updated after the draw).
	"alpha-late": func() planEdit {
		var last float32
		have := false
		return func(_ time.Duration, p *renderer.Plan, _ held) {
			if !p.Ready {
				return
			}
			a := p.Alpha
			if have {
				p.Alpha = last
				resim(p)
			}
			last, have = a, true
		}
	},
	// wrong-pair interpolates between the pair one snapshot older than
	// the plan's, once per second of frame time: a bracket search off by
	// one in a rare case.
	"wrong-pair": func() planEdit {
		second := time.Duration(-1)
		return func(f time.Duration, p *renderer.Plan, h held) {
			if !p.Ready || p.Paused || f/time.Second == second {
				return
			}
			prev, next := h.seq(p.PrevSeq-1), h.seq(p.NextSeq-1)
			if prev == nil || next == nil {
				return // try again next frame
			}
			second = f / time.Second
			p.Prev, p.Next = prev, next
			p.PrevSeq--
			p.NextSeq--
			resim(p)
		}
	},
	// zero-delay pins the render delay to zero: every frame renders its
	// own display time, which no snapshot has reached yet.
	"zero-delay": func() planEdit {
		return func(f time.Duration, p *renderer.Plan, h held) {
			if p.Ready {
				replan(f, p, h)
			}
		}
	},
	// upload-off draws Next's bodies from the snapshot one sequence
	// number older: a GPU buffer tagged with the wrong sequence number.
	// The plan is otherwise right, so only the position shows it.
	"upload-off": func() planEdit {
		return func(_ time.Duration, p *renderer.Plan, h held) {
			if s := h.seq(p.NextSeq - 1); p.Ready && s != nil {
				p.Next = s
			}
		}
	},
}

// Lies returns the names of the deliberately broken renderers -break
// takes, sorted.
func Lies() []string {
	var names []string
	for name := range lies {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// replan plans the frame again with a render delay of zero, as the planner
// would: the pair of held snapshots bracketing the frame time, or the
// newest (late) or oldest (early) as is.
func replan(f time.Duration, p *renderer.Plan, h held) {
	p.Delay, p.RenderTime = 0, f
	newest := h.view.Acquired()
	n := uint64(h.view.Len())
	at := func(i uint64) (*simthread.Snapshot, uint64) { return h.seq(newest - i), newest - i }
	s0, q0 := at(0)
	switch oldest, qo := at(n - 1); {
	case f >= s0.Time:
		prev, qp := at(min(1, n-1))
		p.Prev, p.PrevSeq, p.Next, p.NextSeq, p.Alpha = prev, qp, s0, q0, 1
		p.Late, p.Early = f > s0.Time, false
	case f < oldest.Time:
		p.Prev, p.PrevSeq, p.Next, p.NextSeq, p.Alpha, p.Late, p.Early = oldest, qo, oldest, qo, 0, false, true
		if n > 1 {
			p.Next, p.NextSeq = at(n - 2)
		}
	default:
		i := uint64(1)
		for s, _ := at(i); s.Time > f; s, _ = at(i) {
			i++
		}
		prev, qp := at(i)
		next, qn := at(i - 1)
		a, _ := interp.Alpha(f, prev.Time, next.Time)
		p.Prev, p.PrevSeq, p.Next, p.NextSeq, p.Alpha, p.Late, p.Early = prev, qp, next, qn, float32(a), false, false
	}
	resim(p)
}
