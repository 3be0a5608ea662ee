package present

import (
	"math"
	"sync/atomic"
	"time"
)

// The sources a Tracker reports (Tracker.Source).
const (
	// SourceComplete is PresentCompleteNotify per swap (DRI3/Present).
	SourceComplete = "x11-present-complete"
	// SourceRoundTrip is an X round trip after each swap on the app's
	// connection (the software path), shown at the next measured vblank.
	SourceRoundTrip = "x11-roundtrip"
	// SourceDWM is the Windows compositor's timing applied by a model:
	// after each swap DwmGetCompositionTimingInfo's last vblank and
	// period are read, and the frame is taken as shown at the first
	// vblank after the swap returned. Nothing of the present itself is
	// read (DWM_TIMING_INFO's per-present counts belong to
	// DwmSetPresentParameters, gone since Windows 8), so a queued swap
	// shown one or two vblanks later is reported at the first: the name
	// says it is a model (DWMModelWhy says why).
	SourceDWM = "model: dwm vblank after swap"
	// SourceModel means the display system tells nothing: the caller's
	// estimate, labelled as a model.
	SourceModel = "model"
)

// DWMModelWhy is why SourceDWM is a model.
const DWMModelWhy = "DWM gives its vblanks, not when this window's presents reached one: each frame is put at the first vblank after its swap returned"

// The sources of the vblank grid (Grid.Source).
const (
	VblankPresentMSC = "present-msc" // PresentNotifyMSC completions
	VblankDWM        = "dwm"         // DwmGetCompositionTimingInfo
)

// Mode is how a frame reached the display.
type Mode uint8

const (
	// ModeLanded: the image reached the server's framebuffer (the
	// software path), shown at the next vblank.
	ModeLanded Mode = iota
	// ModeCopy and ModeFlip: Present copied or flipped it at the vblank.
	ModeCopy
	ModeFlip
	// ModeSkip: a newer frame replaced it before its vblank; never shown.
	ModeSkip
)

func (m Mode) String() string {
	switch m {
	case ModeLanded:
		return "landed"
	case ModeCopy:
		return "copy"
	case ModeFlip:
		return "flip"
	case ModeSkip:
		return "skip"
	}
	return "unknown"
}

// Frame is what the display system said of one swapped frame.
type Frame struct {
	// ID is the caller's frame id, as given to Tracker.Swapped.
	ID uint64
	// Swap is when the swap was called, Landed when the frame was known
	// to be in the display server (the round trip's return; for Present,
	// the completion's UST).
	Swap, Landed time.Duration
	// Display is the vblank the frame was shown at; MSC its count (0
	// where the grid has none). For ModeSkip both are the vblank of the
	// frame that replaced it.
	Display time.Duration
	MSC     uint64
	Mode    Mode
}

// Shown reports whether the frame reached the screen.
func (f *Frame) Shown() bool { return f.Mode != ModeSkip }

// Grid is the display's vblank timeline as measured: a line through the
// vblanks the display system reported (time against MSC), fitted by least
// squares, so that a server whose reports scatter around the vblank (Xvfb's
// fake CRTC reports the time its millisecond timer fired) still gives one
// steady grid, and one whose reports are exact gives them back exactly.
// One goroutine writes it (Observe); any number read it, without locks and
// without allocating (a sequence lock).
type Grid struct {
	seq    atomic.Uint64
	anchor atomic.Int64 // ns on the caller's clock: the fitted time of MSC msc
	msc    atomic.Uint64
	period atomic.Int64 // ns; 0: not known yet
	count  atomic.Uint64
	source atomic.Pointer[string]
	// runPeriod is the period measured over the whole run (ns; 0: not
	// yet), across the fits that late runs restart: see Period.
	runPeriod atomic.Int64

	// The writer's own state: the fit's sums, in ns and vblanks since
	// the first report.
	started          bool
	at0              time.Duration
	msc0, last       uint64
	n                float64
	sx, sy, sxx, sxy float64
	off, late        int                      // reports in a row early, late off the fitted line
	first, recent    [phaseReports][2]float64 // reports (vblanks, ns since the fit's start): the fit's first, the latest
	nfirst, nrecent  int
	prior            float64 // a young fit's last period (ns; 0: none, or settled)
	run              runRate
	lastAt           time.Duration // the time of the fit's latest report (last)
	rebases          atomic.Uint64 // counter discontinuities (Rebases)

	// The reports as Observe took them, for a reader that records them
	// (NextReport): a ring the writer fills and one reader empties.
	taps             [tapSize]Report
	tapW, tapR, lost atomic.Uint64

	faultN uint64 // the reports counted, under faultCountReports
}

// fitFault breaks the fit on purpose, for the tests that replay recorded
// runs (the golden cases) to show that they notice: never set outside
// them.
var fitFault int

const (
	// faultCountReports counts the reports as the vblanks' numbers,
	// blind to the vblanks no report came for.
	faultCountReports = 1 + iota
	// faultKeepLate keeps the late reports in the fit and draws it by
	// least squares, not through the lower envelope.
	faultKeepLate
)

// Report is one vblank the display system reported to a Grid: number MSC
// at At (the caller's clock), as Observe took it, before the fit judged it.
type Report struct {
	At  time.Duration
	MSC uint64
}

// tapSize is how many reports wait for NextReport: its reader, the
// instruments' frame log, takes them every frame, and a display reports
// one a vblank at most (a second's worth at 360 Hz is room for a stall).
const tapSize = 512

// tap keeps a report for NextReport, or counts it lost where the reader
// has fallen a ring behind.
func (g *Grid) tap(at time.Duration, msc uint64) {
	w := g.tapW.Load()
	if w-g.tapR.Load() == tapSize {
		g.lost.Add(1)
		return
	}
	g.taps[w%tapSize] = Report{At: at, MSC: msc}
	g.tapW.Store(w + 1)
}

// NextReport returns the next report Observe took, in order, and false
// when none waits: a report is there once the fit has taken it, so that
// the grid read after NextReport found none waiting is the fit of the
// reports it returned (or of more, where one came in between: read again
// to tell). ReportsLost counts those the ring had no room for.
// Replayed into a new Grid, the reports give its fit again, bit for bit
// (a recorded run's, for a golden case). One goroutine may read them. It
// does not allocate.
func (g *Grid) NextReport() (Report, bool) {
	r := g.tapR.Load()
	if r == g.tapW.Load() {
		return Report{}, false
	}
	v := g.taps[r%tapSize]
	g.tapR.Store(r + 1)
	return v, true
}

// PeekReport is NextReport without taking the report: whether one waits.
func (g *Grid) PeekReport() (Report, bool) {
	r := g.tapR.Load()
	if r == g.tapW.Load() {
		return Report{}, false
	}
	return g.taps[r%tapSize], true
}

// ReportsLost counts the reports NextReport never returned: its reader
// fell a ring behind.
func (g *Grid) ReportsLost() uint64 { return g.lost.Load() }

// runRate measures the display's period over the whole run: the slope
// between the lowest report (against the line) of the run's first
// phaseReports reports and of its last phaseReports, as a settled fit
// does, but not restarted by a run of late reports (a starved server),
// only by a new display (early reports, a new rate). Its baseline is the
// run: a late run's young fits measured 360 Hz up to 2 % slow (their
// slopes from a few dozen reports, some of them late), while the display
// kept its rate.
type runRate struct {
	started         bool
	at0             time.Duration
	msc0, last      uint64
	first, recent   [phaseReports][2]float64
	nfirst, nrecent int
}

// observe adds a report and returns the run's period (0: too few
// reports yet), from slope s, the current fit's.
func (r *runRate) observe(at time.Duration, msc uint64, s float64) float64 {
	if !r.started {
		*r = runRate{started: true, at0: at, msc0: msc, last: msc}
	} else if msc <= r.last {
		return 0
	}
	r.last = msc
	pt := [2]float64{float64(msc - r.msc0), float64(at - r.at0)}
	if r.nfirst < phaseReports {
		r.first[r.nfirst] = pt
		r.nfirst++
	}
	r.recent[r.nrecent%phaseReports] = pt
	r.nrecent++
	if r.nrecent <= 2*phaseReports || s <= 0 {
		return 0
	}
	for range 2 {
		a, b := lowest(r.first[:], s), lowest(r.recent[:], s)
		if b[0] <= a[0] {
			return 0
		}
		was := s
		if s = (b[1] - a[1]) / (b[0] - a[0]); s == was {
			break // the same points again: settled
		}
	}
	return s
}

// vblank is one consistent reading of the grid.
type vblank struct {
	at     time.Duration
	msc    uint64
	period time.Duration
}

func (g *Grid) read() (vblank, bool) {
	for {
		s := g.seq.Load()
		if s&1 != 0 {
			continue // being written
		}
		v := vblank{at: time.Duration(g.anchor.Load()), msc: g.msc.Load(), period: time.Duration(g.period.Load())}
		if g.seq.Load() == s {
			return v, v.period > 0
		}
	}
}

// Observe records one vblank reported by the display system: it happened
// at time at and is number msc. A report more than a quarter period off
// the fitted line is left out of the fit (a starved server's late timer);
// three early ones in a row, or a long run of late ones, start a new fit
// (a mode switch, another CRTC). A report whose count cannot follow the
// fit's latest (Discontinuous: another output's counter, a count a source
// derived from a refresh that changed) is a new display with a counter of
// its own: the fit starts again at it at once, and Rebases counts it.
// Only one goroutine may call it.
func (g *Grid) Observe(at time.Duration, msc uint64) {
	defer g.tap(at, msc) // once the fit has taken it (NextReport)
	if fitFault == faultCountReports {
		g.faultN++
		msc = g.faultN
	}
	if !g.started {
		g.reset(at, msc)
		return
	}
	if v, _ := g.read(); Discontinuous(g.last, msc, at-g.lastAt, v.period) {
		g.rebases.Add(1)
		g.newDisplay()
		g.reset(at, msc)
		return
	}
	if msc <= g.last {
		return // a repeat, or a report that came out of order
	}
	x, y := float64(msc-g.msc0), float64(at-g.at0)
	// Until the fit has fitSettle reports, its line is too uncertain to
	// judge one by (two reports a millisecond apart make a period 15 %
	// off): every report goes in.
	if v, ok := g.read(); ok && g.n >= fitSettle {
		want := v.at + time.Duration(int64(msc-v.msc))*v.period
		switch d := at - want; {
		case d < -v.period/4:
			// Early: no server reports a vblank before it happened; three
			// in a row are a new display (a mode switch, another CRTC).
			g.late = 0
			if g.off++; g.off >= 3 {
				g.newDisplay()
				g.reset(at, msc)
			}
			return
		case d > v.period/4 && fitFault != faultKeepLate:
			// Late: a starved server's report. Only a long run of them
			// is a display that moved.
			g.off = 0
			if g.late++; g.late >= lateRun {
				g.reset(at, msc)
			}
			return
		}
	}
	g.off, g.late = 0, 0
	g.last, g.lastAt = msc, at
	if v, ok := g.read(); ok {
		if p := g.run.observe(at, msc, float64(v.period)); p > 0 {
			g.runPeriod.Store(int64(math.Round(p)))
		}
	}
	g.n++
	g.sx += x
	g.sy += y
	g.sxx += x * x
	g.sxy += x * y
	den := g.n*g.sxx - g.sx*g.sx
	if den <= 0 {
		return
	}
	slope := (g.n*g.sxy - g.sx*g.sy) / den
	icept := (g.sy - slope*g.sx) / g.n
	if slope <= 0 {
		return
	}
	// Reports come late (a server's timer, its wake-ups), never early: the
	// lower envelope of the reports is where the vblanks are, and unlike
	// their mean it does not move with the load, so two fits of one
	// display (the app's and an observer's) agree on it. The line is
	// drawn through the lowest report (against the line) of the first
	// phaseReports and of the last phaseReports, once there are two such
	// windows.
	pt := [2]float64{x, y}
	if g.nfirst < phaseReports {
		g.first[g.nfirst] = pt
		g.nfirst++
	}
	g.recent[g.nrecent%phaseReports] = pt
	g.nrecent++
	if g.nrecent > 2*phaseReports && fitFault != faultKeepLate {
		recent := g.recent[:phaseReports]
		// The lowest points move little with the slope: twice settles it.
		// A slope that comes out as it went in (the same two points) has
		// its lowest recent point already (the soak's day spends half its
		// time here, as a long run does).
		var low [2]float64
		lowAt := math.NaN()
		for range 2 {
			a, b := lowest(g.first[:], slope), lowest(recent, slope)
			low, lowAt = b, slope
			if b[0] > a[0] {
				slope = (b[1] - a[1]) / (b[0] - a[0])
			}
			if slope == lowAt {
				break
			}
		}
		if slope != lowAt {
			low = lowest(recent, slope)
		}
		icept = low[1] - slope*low[0]
	}
	// A young fit after a reset keeps the last period (prior): its slope
	// from a few reports is far off whenever some of them are late (the
	// late run that started the fit; a millisecond of scatter over one
	// 144 Hz period is 15 %), and a pacer that follows it sleeps too long
	// or runs ahead. The grid is then the last period through the lowest
	// of the young reports. When the fit has fitSettle reports, those
	// more than a quarter period above that line (late) are left out of
	// it, and it settles once fitSettle remain. Only a young slope more
	// than a third off the last period, from four reports or more, is a
	// new rate (a mode switch), taken at once.
	if g.prior > 0 {
		if g.n >= 4 && math.Abs(slope-g.prior) > g.prior/3 {
			g.prior = 0
			g.newDisplay()
		} else {
			low := math.Inf(1)
			for _, p := range g.first[:g.nfirst] {
				low = min(low, p[1]-g.prior*p[0])
			}
			if g.n >= fitSettle {
				g.keepNear(low)
			}
			if g.n < fitSettle {
				g.publish(g.at0+time.Duration(math.Round(low+g.prior*x)), msc, time.Duration(g.prior))
				return
			}
			g.prior = 0
			slope = (g.n*g.sxy - g.sx*g.sy) / (g.n*g.sxx - g.sx*g.sx)
			icept = (g.sy - slope*g.sx) / g.n
		}
	}
	// Before that, the least-squares line: its slope is too uncertain to
	// carry the lowest of 64 reports forward.
	g.publish(g.at0+time.Duration(math.Round(icept+slope*x)), msc, time.Duration(math.Round(slope)))
}

// keepNear refits a young fit on its reports at most a quarter of the
// prior period above the line of that period through low (the lowest).
func (g *Grid) keepNear(low float64) {
	g.n, g.sx, g.sy, g.sxx, g.sxy = 0, 0, 0, 0, 0
	kept := 0
	for _, p := range g.first[:g.nfirst] {
		if p[1]-g.prior*p[0]-low > g.prior/4 {
			continue
		}
		g.first[kept], g.recent[kept] = p, p
		kept++
		g.n++
		g.sx += p[0]
		g.sy += p[1]
		g.sxx += p[0] * p[0]
		g.sxy += p[0] * p[1]
	}
	g.nfirst, g.nrecent = kept, kept
}

// lowest returns the point of pts that is the lowLeave+1-th lowest
// against a line of slope s: the lowest but for a few early outliers (a
// server whose millisecond timer fires a little early). It does not
// allocate.
func lowest(pts [][2]float64, s float64) [2]float64 {
	var low [lowLeave + 1][2]float64 // the lowest so far, in order
	var lowV [lowLeave + 1]float64   // their heights against the line
	n := 0
	for _, p := range pts {
		v := p[1] - s*p[0]
		if n > lowLeave && v >= lowV[lowLeave] {
			n++
			continue // not among the lowest: most points
		}
		i := min(n, lowLeave+1)
		for i > 0 && v < lowV[i-1] {
			if i <= lowLeave {
				low[i], lowV[i] = low[i-1], lowV[i-1]
			}
			i--
		}
		if i <= lowLeave {
			low[i], lowV[i] = p, v
		}
		n++
	}
	return low[min(n, lowLeave+1)-1]
}

// lowLeave is how many of the lowest reports the envelope leaves out.
const lowLeave = 3

// fitSettle is how many reports a fit takes before it judges reports
// against its line; lateRun how many late reports in a row start a new
// fit; phaseReports how many recent reports the phase is the lower
// envelope of.
const (
	fitSettle    = 16
	lateRun      = 32
	phaseReports = 64
)

// reset starts a new fit at this report. Readers keep the last period,
// re-anchored on it, until the new fit has one of its own.
func (g *Grid) reset(at time.Duration, msc uint64) {
	g.started, g.at0, g.msc0, g.last, g.lastAt, g.off, g.late = true, at, msc, msc, at, 0, 0
	g.n, g.sx, g.sy, g.sxx, g.sxy = 1, 0, 0, 0, 0
	g.first[0], g.recent[0], g.nfirst, g.nrecent = [2]float64{}, [2]float64{}, 1, 1
	g.prior = float64(g.period.Load())
	g.publish(at, msc, time.Duration(g.period.Load()))
}

func (g *Grid) publish(at time.Duration, msc uint64, period time.Duration) {
	g.seq.Add(1)
	g.anchor.Store(int64(at))
	g.msc.Store(msc)
	g.period.Store(int64(period))
	g.seq.Add(1)
	g.count.Add(1)
}

// SetSource names where the vblanks come from.
func (g *Grid) SetSource(s string) { g.source.Store(&s) }

// Source names where the vblanks come from ("" before any).
func (g *Grid) Source() string {
	if p := g.source.Load(); p != nil {
		return *p
	}
	return ""
}

// Known reports whether the grid has a period yet (two vblanks reported).
func (g *Grid) Known() bool {
	_, ok := g.read()
	return ok
}

// Count is how many vblank reports the grid took.
func (g *Grid) Count() uint64 { return g.count.Load() }

// Rebases is how many times the display's counter jumped (Discontinuous)
// and the grid started again on the new count.
func (g *Grid) Rebases() uint64 { return g.rebases.Load() }

// Discontinuous reports whether a vblank counter that read from, and to
// dt later, cannot have counted the vblanks of one display of about this
// period in between: it went back while the time went on (a window on
// another output, whose counter is its own; a count derived from the
// refresh since the first report, after the refresh fell), or it went on
// by more than twice the vblanks dt holds plus a second's worth (another
// output's counter, ahead; the refresh rose). Twice: the period given may
// be a young fit's, off by up to 40 %, and a mode switch that keeps the
// counter counting (a kernel's vblank counter does) may have doubled the
// rate. A second's worth: report times scatter by far less (a starved
// server's, milliseconds). A gap the time allows (a window not drawn for
// a while) is vblanks that passed, not a discontinuity. With no period
// (0) only a counter that went back is judged. It does not allocate.
func Discontinuous(from, to uint64, dt, period time.Duration) bool {
	if to < from {
		return dt > 0 // an earlier report that came late goes back in time too
	}
	return period > 0 && float64(to-from) > 2*float64(dt+time.Second)/float64(period)
}

// newDisplay restarts the run's rate: the reports are of another display.
func (g *Grid) newDisplay() {
	g.run = runRate{}
	g.runPeriod.Store(0)
}

// Period returns the measured period (0 before two vblanks): the run's
// (runRate), where it has one within 3 % of the current fit's, else the
// current fit's (a new display's rate, at once). Next places vblanks on
// the current fit.
func (g *Grid) Period() time.Duration {
	v, _ := g.read()
	if r := time.Duration(g.runPeriod.Load()); r > 0 && v.period > 0 && absDur(v.period-r) <= r*3/100 {
		return r
	}
	return v.period
}

// Hz returns the measured refresh rate (0 before two vblanks).
func (g *Grid) Hz() float64 {
	if p := g.Period(); p > 0 {
		return 1e9 / float64(p)
	}
	return 0
}

// Next returns the first vblank at or after t and its MSC; ok is false
// before the grid is known.
func (g *Grid) Next(t time.Duration) (at time.Duration, msc uint64, ok bool) {
	v, ok := g.read()
	if !ok {
		return 0, 0, false
	}
	k := int64(math.Ceil(float64(t-v.at) / float64(v.period)))
	return v.at + time.Duration(k)*v.period, uint64(int64(v.msc) + k), true
}

// ring is a single-producer, single-consumer queue of frames: the event
// thread pushes completions, the render thread pops them. It drops (and
// counts) what does not fit rather than blocking or allocating.
type ring struct {
	head, tail atomic.Uint64
	_          [48]byte // keep the indices off the slots' cache line
	slots      [ringSize]completion
	dropped    atomic.Uint64
}

// ringSize is how many completions may wait: 2 s of frames at 128 Hz,
// far more than a render thread reading them every frame leaves behind.
const ringSize = 256

// completion is one PresentCompleteNotify for a presented pixmap.
type completion struct {
	serial uint32
	at     time.Duration
	msc    uint64
	mode   Mode
}

func (r *ring) push(c completion) {
	t := r.tail.Load()
	if t-r.head.Load() == ringSize {
		r.dropped.Add(1)
		return
	}
	r.slots[t%ringSize] = c
	r.tail.Store(t + 1)
}

func (r *ring) pop() (completion, bool) {
	h := r.head.Load()
	if h == r.tail.Load() {
		return completion{}, false
	}
	c := r.slots[h%ringSize]
	r.head.Store(h + 1)
	return c, true
}

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}
