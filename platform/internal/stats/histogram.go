package stats

import (
	"math"
	"math/bits"
	"sync/atomic"
)

const (
	subBits = 4
	sub     = 1 << subBits // buckets per power of two
	// buckets covers every uint64: values below sub, then (64-subBits)
	// powers of two of sub buckets each.
	buckets = sub + (64-subBits)*sub
)

// Histogram is a histogram. The zero value is empty and ready to use. Record must
// be called from one goroutine at a time; every other method may be called
// from any goroutine. A Histogram must not be copied after first use.
type Histogram struct {
	_      noCopy
	count  atomic.Uint64
	sum    atomic.Uint64
	max    atomic.Uint64
	counts [buckets]atomic.Uint64
}

func bucketOf(v uint64) int {
	if v < sub {
		return int(v)
	}
	e := bits.Len64(v) - 1 // v in [2^e, 2^(e+1)), e >= subBits
	m := (v >> (e - subBits)) & (sub - 1)
	return (e-subBits+1)*sub + int(m)
}

// bounds returns the smallest value of bucket i and its width.
func bounds(i int) (lo, width uint64) {
	if i < sub {
		return uint64(i), 1
	}
	e := i/sub + subBits - 1
	m := uint64(i % sub)
	width = 1 << (e - subBits)
	return (sub + m) * width, width
}

// Record adds one sample; negative samples count as 0.
func (h *Histogram) Record(v int64) {
	if v < 0 {
		v = 0
	}
	u := uint64(v)
	h.counts[bucketOf(u)].Add(1)
	h.sum.Add(u)
	if u > h.max.Load() {
		h.max.Store(u) // single writer: no lost update
	}
	h.count.Add(1)
}

// Count reports how many samples were recorded.
func (h *Histogram) Count() uint64 { return h.count.Load() }

// Max reports the largest sample exactly, 0 when empty.
func (h *Histogram) Max() int64 { return int64(h.max.Load()) }

// Mean reports the mean sample, 0 when empty.
func (h *Histogram) Mean() float64 {
	n := h.count.Load()
	if n == 0 {
		return 0
	}
	return float64(h.sum.Load()) / float64(n)
}

// Quantile reports the q-quantile (0 ≤ q ≤ 1) to within about 3 %: the
// middle of the bucket holding it, never more than Max. It is 0 when empty.
func (h *Histogram) Quantile(q float64) int64 {
	if math.IsNaN(q) {
		return 0
	}
	q = min(max(q, 0), 1)
	var total uint64
	var c [buckets]uint64
	for i := range h.counts {
		c[i] = h.counts[i].Load()
		total += c[i]
	}
	if total == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(total)))
	if rank == 0 {
		rank = 1
	}
	var seen uint64
	for i, n := range c {
		seen += n
		if seen >= rank {
			lo, w := bounds(i)
			v := int64(lo + w/2)
			return min(v, h.Max())
		}
	}
	return h.Max()
}

// Summary is a point-in-time reading of a histogram.
// Its fields are in the unit the samples were recorded in.
type Summary struct {
	Count    uint64
	Mean     float64
	P50, P99 int64 // the median and 99th percentile, to within about 3 %
	Max      int64 // exact
}

// Summary reads the count, mean, median, 99th percentile and maximum.
func (h *Histogram) Summary() Summary {
	return Summary{Count: h.Count(), Mean: h.Mean(), P50: h.Quantile(0.5), P99: h.Quantile(0.99), Max: h.Max()}
}

// Reset empties the histogram. It must be called by the writer, or while
// nothing is recording.
func (h *Histogram) Reset() {
	for i := range h.counts {
		h.counts[i].Store(0)
	}
	h.count.Store(0)
	h.sum.Store(0)
	h.max.Store(0)
}

// noCopy makes go vet's copylocks check flag a copied Histogram.
type noCopy struct{}

func (*noCopy) Lock()   {}
func (*noCopy) Unlock() {}
