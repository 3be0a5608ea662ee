package instrument

import (
	"math"
	"runtime"
	"runtime/metrics"
	"slices"
	"time"

	"github.com/tickframe/tickframe/platform/internal/stats"
	"github.com/tickframe/tickframe/renderer"
)

// ticksPerFrameBuckets is the size of the ticks-per-frame histogram: frames
// that brought 0, 1, ... 7 new ticks, and 8 or more in the last bucket.
const ticksPerFrameBuckets = 9

// frameStats are the render thread's measurements. The render thread writes
// them; the histograms may be read from any goroutine, the other fields
// only from the render thread or after Run has returned.
type frameStats struct {
	// Frames counts the frames planned with a snapshot to show: all but
	// those before the simulation's first publish.
	Frames uint64
	// FrameInterval is the wall time between successive buffer swaps (ns):
	// what the display was actually given, hitches included.
	FrameInterval stats.Histogram
	// SnapshotAge is the time a frame was planned minus the newest
	// snapshot's tick time (ns): how old the newest simulation state was
	// when drawn.
	SnapshotAge stats.Histogram
	// Alpha is each frame's interpolation factor, in millionths.
	Alpha stats.Histogram
	// AlphaMin and AlphaMax are the extremes of Alpha, exact where the
	// histogram rounds.
	AlphaMin, AlphaMax float32
	// TicksPerFrame counts frames by the new ticks they brought, bucketed
	// as ticksPerFrameBuckets says.
	TicksPerFrame [ticksPerFrameBuckets]uint64
	// Clamped counts frames whose alpha was clamped (no bracketing pair).
	Clamped uint64
	// Paused counts the frames of a pause (renderer.Plan.Paused), which are
	// in Frames but in none of the measurements.
	Paused uint64
	// Beat tracks ticks per frame oscillating around their mean.
	Beat beatDetector
	// Delay is the render delay of the last frame.
	Delay time.Duration

	// Series keeps the last seriesLen frames for plotting.
	Series frameSeries

	// Present is when frames reached the display, as PresentMon counts.
	Present presentStats
	// Stutter counts frames much longer than those around them.
	Stutter stutterDetector
	// InputAge is from when a frame polled its input to when it was
	// displayed (ns).
	InputAge stats.Histogram
	// InFlight is the most presented frames the GPU had not finished
	// when a frame started; InFlightWait how long low-latency frames
	// waited for the GPU (ns), when they did.
	InFlight     int
	InFlightWait stats.Histogram
	// Lead is how long before its display time the last frame started.
	Lead time.Duration
	// Bodies is how many bodies the last frame's newer snapshot held.
	Bodies int

	firstSwap, lastSwap time.Duration
	haveSwap            bool
}

// seriesLen is how many frames Series keeps: over seven minutes at 144 Hz.
const seriesLen = 1 << 16

// frameSample is one frame of the series.
type frameSample struct {
	At       time.Duration // frame time since the first frame
	Interval float32       // ms since the previous swap
	Alpha    float32       // the interpolation factor
	NewTicks uint8         // new ticks the frame brought, capped at 255
	PosErr   float32       // ticks; NaN where not measured
	AnimErr  float32       // ms, signed; NaN where not measured
}

// frameSeries is a ring of the last seriesLen frames, allocated on first use.
type frameSeries struct {
	buf  []frameSample
	next int
	full bool
}

func (s *frameSeries) add(x frameSample) {
	if s.buf == nil {
		s.buf = make([]frameSample, seriesLen)
	}
	s.buf[s.next] = x
	s.next++
	if s.next == len(s.buf) {
		s.next, s.full = 0, true
	}
}

// Samples returns the kept frames, oldest first, in a new slice.
func (s *frameSeries) Samples() []frameSample {
	if !s.full {
		return append([]frameSample(nil), s.buf[:s.next]...)
	}
	return append(append([]frameSample(nil), s.buf[s.next:]...), s.buf[:s.next]...)
}

func (s *frameStats) frame(now time.Duration, plan *renderer.Plan) {
	if !plan.Ready {
		return
	}
	s.Frames++
	s.Bodies = len(plan.Next.Bodies)
	if plan.Paused {
		// A pause shows a frozen pose: its alpha, clamps and snapshot
		// ages say nothing about the timing. Counted, not measured.
		s.Paused++
		return
	}
	s.SnapshotAge.Record(int64(now - plan.NewestTime))
	s.Alpha.Record(int64(float64(plan.Alpha) * 1e6))
	if s.Frames == 1 {
		s.AlphaMin, s.AlphaMax = plan.Alpha, plan.Alpha
	}
	s.AlphaMin = min(s.AlphaMin, plan.Alpha)
	s.AlphaMax = max(s.AlphaMax, plan.Alpha)
	s.TicksPerFrame[min(plan.NewTicks, ticksPerFrameBuckets-1)]++
	if plan.Late || plan.Early {
		s.Clamped++
	}
	s.Beat.Add(plan.NewTicks)
	s.Delay = plan.Delay
}

func (s *frameStats) swapped(now time.Duration) {
	if s.haveSwap {
		s.FrameInterval.Record(int64(now - s.lastSwap))
		s.Stutter.Add(now - s.lastSwap)
	} else {
		s.firstSwap = now
	}
	s.haveSwap = true
	s.lastSwap = now
}

// Duration is the time from the first swap to the last.
func (s *frameStats) Duration() time.Duration { return s.lastSwap - s.firstSwap }

// beatWindow is how many frames the beat detector looks at: about a second
// at 120 Hz.
const beatWindow = 128

// beatDetector spots the classic stutter of fixed-step loops: the number of
// new ticks per frame should only ever be the floor or the ceiling of the
// tick rate over the frame rate (at equal rates, always 1); when a display
// and a simulation of nearly equal rates drift in phase, frames alternate 0
// and 2 instead. It flags a beat when more than 5 % of the last 128 frames
// brought a count outside {floor, ceil} of their mean. Interpolation hides
// the beat on screen; the detector says it is there.
type beatDetector struct {
	ring    [beatWindow]uint8
	count   [256]uint16 // how many frames in the window brought each count
	n, head int
	sum     int
	// Frames counts the frames during which a beat was flagged.
	Frames  uint64
	beating bool
}

// Add records one frame's count of new ticks. It is O(1): the window is
// kept as a count per value, so nothing is rescanned.
func (b *beatDetector) Add(ticks uint64) {
	t := uint8(min(ticks, 255))
	if b.n == beatWindow {
		old := b.ring[b.head]
		b.sum -= int(old)
		b.count[old]--
	} else {
		b.n++
	}
	b.ring[b.head] = t
	b.sum += int(t)
	b.count[t]++
	b.head = (b.head + 1) % beatWindow
	b.beating = false
	if b.n < beatWindow {
		return
	}
	// Frames that brought neither floor(mean) nor ceil(mean) ticks.
	lo := b.sum / b.n
	hi := (b.sum + b.n - 1) / b.n
	usual := int(b.count[lo])
	if hi != lo {
		usual += int(b.count[hi])
	}
	if (b.n-usual)*20 > b.n {
		b.beating = true
		b.Frames++
	}
}

// Beating reports whether the last window beats.
func (b *beatDetector) Beating() bool { return b.beating }

// gcMetrics reads the runtime's GC and allocation counters. cycles reads
// the GC count alone, which does not allocate (the HUD shows it four times
// a second); read also reads the pause histogram, which does, and the
// allocations, exactly (see read).
type gcMetrics struct {
	samples [2]metrics.Sample
	count   [1]metrics.Sample
	ms      runtime.MemStats
}

func (g *gcMetrics) cycles() uint64 {
	metrics.Read(g.count[:])
	if g.count[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return g.count[0].Value.Uint64()
}

func newGCMetrics() *gcMetrics {
	g := &gcMetrics{}
	g.count[0].Name = "/gc/cycles/total:gc-cycles"
	g.samples[0].Name = "/gc/cycles/total:gc-cycles"
	g.samples[1].Name = "/sched/pauses/total/gc:seconds"
	return g
}

// gcReading is one reading of the runtime's counters: completed GC cycles,
// heap objects and bytes allocated, and the total of stop-the-world GC
// pauses (estimated: the runtime keeps only a histogram of them). Each is
// a total since the program started: subtract two readings for what
// happened between them.
type gcReading struct {
	Cycles, Allocs, AllocBytes uint64
	PauseTotal                 time.Duration
	// SchedAllocs is the part of Allocs the scheduling governor's
	// GOMAXPROCS changes made (the runtime's own P state), not the
	// application's.
	SchedAllocs uint64
}

// read reads the counters. The heap objects and bytes allocated come
// from runtime.ReadMemStats, which stops the world for a few tens of
// microseconds and first flushes every P's allocation cache: the runtime
// records the objects allocated from a cached span only when the span
// leaves the cache (at a refill, or at the next GC), so runtime/metrics'
// count lags by what the caches hold. Read that way at the end of the
// warm-up, a GC later in the run counted the warm-up's allocations as the
// steady state's: 84 to 163 objects at every GC of the demo, reported as
// steady_alloc_objects 115 to 136 in 4 of 10 runs of 4 s (make test failed on
// one beside a build loop), 0 in the rest. It is called twice a run.
func (g *gcMetrics) read() gcReading {
	metrics.Read(g.samples[:])
	var r gcReading
	if g.samples[0].Value.Kind() == metrics.KindUint64 {
		r.Cycles = g.samples[0].Value.Uint64()
	}
	runtime.ReadMemStats(&g.ms)
	r.Allocs, r.AllocBytes = g.ms.Mallocs, g.ms.TotalAlloc
	if g.samples[1].Value.Kind() == metrics.KindFloat64Histogram {
		r.PauseTotal = pauseTotal(g.samples[1].Value.Float64Histogram())
	}
	return r
}

// pauseTotal estimates the total of a pause histogram from its bucket
// midpoints (the runtime keeps no exact sum).
func pauseTotal(h *metrics.Float64Histogram) time.Duration {
	var total float64
	for i, c := range h.Counts {
		if c == 0 {
			continue
		}
		lo, hi := h.Buckets[i], h.Buckets[i+1]
		if math.IsInf(lo, -1) {
			lo = 0
		}
		if math.IsInf(hi, 1) {
			hi = lo
		}
		total += float64(c) * (lo + hi) / 2
	}
	return time.Duration(total * 1e9)
}

// LowFPS returns the "1 % low" frame rate: the mean frame rate of the
// slowest 1 % of frames (from the FrameInterval histogram, to its 3 %).
func (s *frameStats) LowFPS() float64 {
	if s.FrameInterval.Count() == 0 {
		return 0
	}
	// The mean interval of the slowest 1 %: the histogram's quantiles
	// from 99 % up, in steps of 0.1 %, with the maximum.
	var sum float64
	n := 0
	for q := 0.9905; q < 1; q += 0.001 {
		sum += float64(s.FrameInterval.Quantile(q))
		n++
	}
	sum += float64(s.FrameInterval.Max())
	n++
	mean := sum / float64(n)
	if mean <= 0 {
		return 0
	}
	return 1e9 / mean
}

// stutterWindow is how many frames a frame is compared with: itself and
// the nine on each side, as frame-time analysis tools count stutter.
const stutterWindow = 19

// stutterDetector counts stutters as players see them: frames that took
// more than twice the median of the 19 frames around them. Each frame is
// judged once the nine after it are in, with no allocation.
type stutterDetector struct {
	ring   [stutterWindow]time.Duration
	sorted [stutterWindow]time.Duration
	n      uint64
	// Count is the number of stutters; Frames the frames judged.
	Count, Frames uint64
}

// Add records the interval of the latest frame.
func (d *stutterDetector) Add(interval time.Duration) {
	d.ring[d.n%stutterWindow] = interval
	d.n++
	if d.n < stutterWindow {
		return
	}
	// The middle of the window: the frame added nine frames ago.
	mid := d.ring[(d.n-1-stutterWindow/2)%stutterWindow]
	d.sorted = d.ring
	slices.Sort(d.sorted[:])
	d.Frames++
	if mid > 2*d.sorted[stutterWindow/2] {
		d.Count++
	}
}

// presentStats are PresentMon's figures, from the time each frame reached
// the display (see presentTracker). Histograms in ns.
type presentStats struct {
	// Source says where display times came from: "gpu-timestamp" (the GPU's
	// finish time, from GL timestamp queries, on the display's vblank
	// grid) or "swap" (the return of the buffer swap, on that grid).
	Source string
	// BetweenDisplayChange is the time between one displayed frame and the
	// next (PresentMon's MsBetweenDisplayChange).
	BetweenDisplayChange stats.Histogram
	// UntilDisplayed is from the frame's present (the swap call) to its
	// display (MsUntilDisplayed).
	UntilDisplayed stats.Histogram
	// Displayed counts frames that reached the display; Dropped those a
	// newer frame replaced before the vblank; Repeated the vblanks that
	// showed the previous frame again.
	Displayed, Dropped, Repeated uint64
	// Rebases counts the displayed frames whose vblank count jumped from
	// the last one's (present.Discontinuous): the vblanks between them
	// are in neither Repeated nor Dropped.
	Rebases uint64
	// Unknown counts drawn frames whose display time never came back.
	Unknown uint64
	// SwapWait is how long the render thread waited for a CPU (runnable,
	// not running) between a drawn frame's swap call and the end of its
	// present bookkeeping (sched.ThreadWait): a frame placed by when its
	// swap returned may have landed up to that much earlier.
	SwapWait stats.Histogram
}
