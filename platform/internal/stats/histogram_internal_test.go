package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

func TestBucketsAreContiguous(t *testing.T) {
	// Every bucket starts where the previous one ended, and bucketOf maps
	// both ends of each bucket back to it.
	var next uint64
	for i := 0; i < buckets; i++ {
		lo, w := bounds(i)
		if lo != next {
			t.Fatalf("bucket %d starts at %d, want %d", i, lo, next)
		}
		if bucketOf(lo) != i || bucketOf(lo+w-1) != i {
			t.Fatalf("bucket %d [%d, %d) maps to %d and %d", i, lo, lo+w, bucketOf(lo), bucketOf(lo+w-1))
		}
		next = lo + w
	}
	if next != 0 { // wrapped past the top of uint64
		t.Fatalf("buckets end at %d, want 2^64", next)
	}
	if bucketOf(math.MaxUint64) != buckets-1 {
		t.Fatal("MaxUint64 is not in the last bucket")
	}
}

func TestQuantilesWithinThreePercent(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var h Histogram
	var vals []int64
	for i := 0; i < 100000; i++ {
		v := int64(rng.ExpFloat64() * 1e6)
		vals = append(vals, v)
		h.Record(v)
	}
	slices.Sort(vals)
	for _, q := range []float64{0, 0.1, 0.5, 0.9, 0.99, 0.999, 1} {
		i := int(math.Ceil(q*float64(len(vals)))) - 1
		want := vals[max(i, 0)]
		got := h.Quantile(q)
		if d := math.Abs(float64(got-want)) / math.Max(float64(want), 16); d > 1.0/32+1e-9 {
			t.Errorf("Quantile(%v) = %d, exact %d: off by %.2f%%", q, got, want, d*100)
		}
	}
	if h.Max() != vals[len(vals)-1] {
		t.Errorf("Max = %d, want %d", h.Max(), vals[len(vals)-1])
	}
	if h.Count() != uint64(len(vals)) {
		t.Errorf("Count = %d", h.Count())
	}
}

func TestEmptyAndEdges(t *testing.T) {
	var h Histogram
	if h.Quantile(0.5) != 0 || h.Max() != 0 || h.Mean() != 0 || h.Quantile(math.NaN()) != 0 {
		t.Fatal("empty histogram reports non-zero")
	}
	h.Record(-5)
	h.Record(7)
	if h.Quantile(0) != 0 || h.Quantile(1) != 7 || h.Mean() != 3.5 {
		t.Fatalf("got q0 %d q1 %d mean %v", h.Quantile(0), h.Quantile(1), h.Mean())
	}
	h.Reset()
	if h.Count() != 0 || h.Max() != 0 {
		t.Fatal("Reset left samples")
	}
}

func TestConcurrentReaders(t *testing.T) {
	var h Histogram
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
				_ = h.Summary()
			}
		}
	}()
	for i := 0; i < 50000; i++ {
		h.Record(int64(i))
	}
	close(stop)
	wg.Wait()
	if h.Count() != 50000 {
		t.Fatal("lost samples")
	}
}

func TestRecordDoesNotAllocate(t *testing.T) {
	var h Histogram
	if a := testing.AllocsPerRun(1000, func() { h.Record(12345) }); a != 0 {
		t.Fatalf("Record allocates %.1f", a)
	}
}
