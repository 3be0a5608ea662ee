// Package vdisplay is a virtual display for the soak tests of the frame
// loop (package loop) and of the instruments (package app): vblanks whose
// truth is known, at a rate that drifts by up to ±100 ppm and switches
// mode, with the reports of them a display system would send (up to
// 300 µs late, now and then one very late, and a starved server's runs of
// 40 late reports), and the count of what it did with the frames given
// to it (Truth).
package vdisplay

import (
	"math"
	"math/rand/v2"
	"time"
)

// Report is a display system's report of a vblank: it arrives At, of the
// vblank at V, counted MSC.
type Report struct {
	At, V time.Duration
	MSC   uint64
}

// Display is the virtual display: vblank MSC at V, generated in order,
// with the reports the display system sends of them.
type Display struct {
	rng *rand.Rand
	// Nominal is the mode's period; Period that of the last vblank
	// generated (the nominal one, drifted).
	Nominal, Period time.Duration
	V, PrevV        time.Duration // the last vblank generated, and the one before it
	MSC             uint64
	// SwitchAt is the first vblank of the last mode switch.
	SwitchAt time.Duration

	queue      [256]Report // reports not yet delivered, in order
	qHead      uint64
	qTail      uint64
	lastArrive time.Duration
	lateRun    int           // reports left in a starved server's late run
	gap        time.Duration // the new mode's phase, before its first vblank
	switching  bool
}

// New returns a display of that period whose randomness comes from rng.
func New(rng *rand.Rand, period time.Duration) *Display {
	return &Display{rng: rng, Nominal: period, Period: period, SwitchAt: -time.Hour}
}

// Drift is the display's rate error at t: ±100 ppm, over a 3-hour cycle.
func Drift(t time.Duration) float64 { return 100e-6 * math.Sin(2*math.Pi*t.Hours()/3) }

// Generate makes the next vblank and queues its report.
func (d *Display) Generate() {
	d.Period = time.Duration(float64(d.Nominal) * (1 + Drift(d.V)))
	d.PrevV = d.V
	d.V += d.Period + d.gap
	d.MSC++
	if d.switching {
		d.switching, d.gap, d.SwitchAt = false, 0, d.V
	}
	late := time.Duration(d.rng.Int64N(int64(300 * time.Microsecond)))
	switch {
	case d.lateRun > 0:
		d.lateRun--
		late = d.Period*3/10 + time.Duration(d.rng.Int64N(int64(d.Period/8)))
	case d.rng.IntN(1000) == 0:
		late = d.Period / 2 // one starved report
	case d.rng.IntN(150000) == 0:
		d.lateRun = 40 // a starved server: the grid starts over
	}
	at := max(d.V+late, d.lastArrive)
	d.lastArrive = at
	if d.qTail-d.qHead == uint64(len(d.queue)) {
		panic("vdisplay: report queue full")
	}
	d.queue[d.qTail%uint64(len(d.queue))] = Report{at, d.V, d.MSC}
	d.qTail++
}

// SetMode switches the display's mode after the vblank it has generated:
// the next comes at the new rate, with a new phase.
func (d *Display) SetMode(hz float64) {
	d.Nominal = time.Duration(math.Round(1e9 / hz))
	d.gap = time.Duration(d.rng.Int64N(int64(d.Nominal)))
	d.switching = true
}

// Upto generates the vblanks up to t.
func (d *Display) Upto(t time.Duration) {
	for d.V <= t {
		d.Generate()
	}
}

// NextReport returns when the next report not yet delivered arrives
// (math.MaxInt64: none is queued).
func (d *Display) NextReport() time.Duration {
	if d.qHead < d.qTail {
		return d.queue[d.qHead%uint64(len(d.queue))].At
	}
	return math.MaxInt64
}

// PopReport delivers the next report.
func (d *Display) PopReport() Report {
	r := d.queue[d.qHead%uint64(len(d.queue))]
	d.qHead++
	return r
}

// ShownAt is the display's first vblank at or after t (t is at most a
// period past the last one generated) and its count.
func (d *Display) ShownAt(t time.Duration) (time.Duration, uint64) {
	for d.V < t {
		d.Generate()
	}
	return d.V, d.MSC
}

// Nearest returns the count of the display's vblank nearest t (t is at
// most a period past the last one generated).
func (d *Display) Nearest(t time.Duration) uint64 {
	v, m := d.ShownAt(t)
	if v-t > t-d.PrevV {
		return m - 1
	}
	return m
}

// Truth is what the display did with the frames given to it.
type Truth struct {
	Frames, Displayed, Dropped, Repeated uint64

	pending, lastShown     uint64 // the last frame's vblank; the last displayed one's
	havePending, haveShown bool
}

// Frame takes the next frame, shown at vblank msc: the one before it is
// dropped if this one replaced it at the same vblank, else displayed.
func (tr *Truth) Frame(msc uint64) {
	tr.Frames++
	if tr.havePending {
		tr.settle(msc == tr.pending)
	}
	tr.pending, tr.havePending = msc, true
}

// End settles the last frame: displayed.
func (tr *Truth) End() {
	if tr.havePending {
		tr.settle(false)
		tr.havePending = false
	}
}

func (tr *Truth) settle(dropped bool) {
	if dropped {
		tr.Dropped++
		return
	}
	tr.Displayed++
	if tr.haveShown && tr.pending > tr.lastShown+1 {
		tr.Repeated += tr.pending - tr.lastShown - 1
	}
	tr.lastShown, tr.haveShown = tr.pending, true
}
