package sched

import (
	"math"
	"runtime/metrics"
	"time"
)

// Latency reads the runtime's scheduling latency histogram
// (/sched/latencies:seconds: how long goroutines waited runnable before
// running), from a mark on. Once it has read once, Mark and Read reuse
// their buffers.
type Latency struct {
	sample [1]metrics.Sample
	base   []uint64
	counts []uint64
}

// NewLatency returns a reader whose mark is now.
func NewLatency() *Latency {
	l := &Latency{}
	l.sample[0].Name = "/sched/latencies:seconds"
	l.Mark()
	return l
}

// Mark starts the measurement over from now.
func (l *Latency) Mark() {
	metrics.Read(l.sample[:])
	if l.sample[0].Value.Kind() != metrics.KindFloat64Histogram {
		return
	}
	l.base = append(l.base[:0], l.sample[0].Value.Float64Histogram().Counts...)
}

// LatencySummary is the distribution since the mark.
type LatencySummary struct {
	Count         uint64
	P50, P99, Max time.Duration
}

// Read returns the distribution of scheduling latencies since the mark.
// Quantiles are bucket upper bounds (the runtime's buckets are a few per
// power of two apart), Max the upper bound of the highest bucket used.
func (l *Latency) Read() LatencySummary {
	metrics.Read(l.sample[:])
	if l.sample[0].Value.Kind() != metrics.KindFloat64Histogram {
		return LatencySummary{}
	}
	h := l.sample[0].Value.Float64Histogram()
	l.counts = append(l.counts[:0], h.Counts...)
	counts := l.counts
	for i, c := range h.Counts {
		counts[i] = c
		if i < len(l.base) {
			counts[i] -= min(l.base[i], c)
		}
	}
	return summarize(counts, h.Buckets)
}

// summarize computes quantiles of a histogram whose bucket i spans
// [buckets[i], buckets[i+1]).
func summarize(counts []uint64, buckets []float64) LatencySummary {
	var s LatencySummary
	for _, c := range counts {
		s.Count += c
	}
	if s.Count == 0 {
		return s
	}
	upper := func(i int) time.Duration {
		hi := buckets[i+1]
		if math.IsInf(hi, 1) {
			hi = buckets[i]
		}
		return time.Duration(hi * 1e9)
	}
	q := func(f float64) time.Duration {
		rank := uint64(math.Ceil(f * float64(s.Count)))
		var seen uint64
		for i, c := range counts {
			seen += c
			if seen >= rank && c > 0 {
				return upper(i)
			}
		}
		return 0
	}
	s.P50, s.P99 = q(0.5), q(0.99)
	for i := len(counts) - 1; i >= 0; i-- {
		if counts[i] > 0 {
			s.Max = upper(i)
			break
		}
	}
	return s
}
