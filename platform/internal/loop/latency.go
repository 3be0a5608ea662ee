package loop

import (
	"fmt"
	"slices"
	"time"
)

// LatencyMode chooses between the shortest path from input to screen and
// the most frames per second.
type LatencyMode uint8

const (
	// LowLatency (the default) starts each frame just in time: it waits
	// until the next display time minus the predicted cost of a frame
	// (a high percentile of the recent frames' CPU and GPU times) minus a
	// margin, then polls input, plans and draws; and it keeps at most one
	// frame in flight: a frame's GL work starts only once the GPU has
	// finished the last one, so the driver queues nothing.
	LowLatency LatencyMode = iota
	// Throughput starts each frame at the vblank before the one it is
	// shown at and lets the driver queue frames: a whole display period
	// more latency, in exchange for the most slack a frame can have.
	Throughput
)

// String returns "low" or "throughput", the words flags and reports use.
func (m LatencyMode) String() string {
	if m == Throughput {
		return "throughput"
	}
	return "low"
}

// ParseLatency parses "low" or "throughput".
func ParseLatency(s string) (LatencyMode, error) {
	switch s {
	case "low":
		return LowLatency, nil
	case "throughput":
		return Throughput, nil
	}
	return 0, fmt.Errorf("loop: latency mode %q: want low or throughput", s)
}

// Just-in-time tuning.
const (
	// leadMargin is added to the predicted frame cost: the wake-up
	// jitter of a kernel sleep with a spin, and a little more.
	leadMargin = time.Millisecond
	// leadQuantile of the recent frame costs is the prediction: a frame
	// later than that misses its vblank, which shows.
	leadQuantile = 0.95
	// leadRise and leadFall bound how fast the lead moves per frame:
	// every change of it moves the render time, which shows as animation
	// error in that frame, so it moves by a fraction of a millisecond.
	leadRise = 250 * time.Microsecond
	leadFall = 50 * time.Microsecond
	// inFlightTimeout bounds the wait for the GPU in low-latency mode.
	inFlightTimeout = 100 * time.Millisecond
	// costWindow is how many recent frames the prediction is taken over.
	costWindow = 64
)

// jit predicts how long before its display time a frame must start.
type jit struct {
	costs  [costWindow]time.Duration // recent frames: start to finished
	sorted [costWindow]time.Duration
	top    [8]time.Duration // quantile's
	n      int
	lead   time.Duration // the current lead, moved towards the target
}

// add records the cost of a frame: from its start to when it was done
// (the swap returned, or the GPU finished, whichever was later).
func (j *jit) add(cost time.Duration) {
	j.costs[j.n%costWindow] = cost
	j.n++
}

// quantile returns what sorting the first m costs would put at index q:
// the (m−q)-th largest, found in one pass that keeps the largest few
// (m−q is at most 5 for the 0.95 quantile of 64), where a sort of 64
// every frame was a third of a virtual day's soak.
func (j *jit) quantile(m, q int) time.Duration {
	k := m - q
	if k > len(j.top) {
		j.sorted = j.costs
		s := j.sorted[:m]
		slices.Sort(s)
		return s[q]
	}
	top := j.top[:0] // the largest so far, largest first
	for _, c := range j.costs[:m] {
		i := len(top)
		if i < k {
			top = append(top, 0)
		} else if c <= top[k-1] {
			continue
		} else {
			i = k - 1
		}
		for i > 0 && top[i-1] < c {
			top[i] = top[i-1]
			i--
		}
		top[i] = c
	}
	return top[k-1]
}

// next returns the lead for the next frame, at most period.
func (j *jit) next(period time.Duration) time.Duration {
	if j.n == 0 {
		if j.lead == 0 {
			j.lead = period / 2 // until frames have been timed
		}
		return j.lead
	}
	m := min(j.n, costWindow)
	target := j.quantile(m, min(int(leadQuantile*float64(m)), m-1)) + leadMargin
	target = min(max(target, leadMargin), period)
	switch {
	case target > j.lead:
		j.lead = min(target, j.lead+leadRise)
	case target < j.lead:
		j.lead = max(target, j.lead-leadFall)
	}
	return j.lead
}
