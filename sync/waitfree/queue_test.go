package waitfree_test

import (
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"

	"github.com/tickframe/tickframe/sync/waitfree"
)

func TestNewQueue(t *testing.T) {
	for _, c := range []struct{ in, want int }{{1, 1}, {3, 4}, {64, 64}, {65, 128}} {
		q, err := waitfree.NewQueue[int](c.in)
		if err != nil {
			t.Fatal(err)
		}
		if q.Cap() != c.want {
			t.Errorf("New(%d).Cap() = %d, want %d", c.in, q.Cap(), c.want)
		}
	}
	for _, bad := range []int{0, -1, waitfree.MaxQueue + 1} {
		if _, err := waitfree.NewQueue[int](bad); err == nil {
			t.Errorf("New(%d) accepted a bad capacity", bad)
		}
	}
}

// TestModel checks random pushes and pops against a slice.
func TestQueueModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	q, _ := waitfree.NewQueue[int](8)
	var ref []int
	var dropped uint64
	for i := 0; i < 100000; i++ {
		if rng.IntN(2) == 0 {
			ok := q.Push(i)
			if ok != (len(ref) < 8) {
				t.Fatalf("op %d: Push = %v with %d queued", i, ok, len(ref))
			}
			if ok {
				ref = append(ref, i)
			} else {
				dropped++
			}
		} else {
			v, ok := q.Pop()
			if ok != (len(ref) > 0) {
				t.Fatalf("op %d: Pop ok = %v with %d queued", i, ok, len(ref))
			}
			if ok {
				if v != ref[0] {
					t.Fatalf("op %d: Pop = %d, want %d", i, v, ref[0])
				}
				ref = ref[1:]
			}
		}
		if q.Len() != len(ref) || q.Dropped() != dropped {
			t.Fatalf("op %d: Len %d Dropped %d, want %d %d", i, q.Len(), q.Dropped(), len(ref), dropped)
		}
	}
}

// TestConcurrentFIFO pushes a sequence from one goroutine and checks that the
// consumer sees every accepted value once, in order.
func TestConcurrentFIFO(t *testing.T) {
	q, _ := waitfree.NewQueue[uint64](16)
	const n = 200000
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for v := uint64(1); v <= n; {
			if q.Push(v) {
				v++
			} else {
				runtime.Gosched() // full: let the consumer run (GOMAXPROCS=1)
			}
		}
	}()
	next := uint64(1)
	for next <= n {
		v, ok := q.Pop()
		if !ok {
			runtime.Gosched() // empty: let the producer run
			continue
		}
		if v != next {
			t.Fatalf("got %d, want %d", v, next)
		}
		next++
	}
	wg.Wait()
	if _, ok := q.Pop(); ok {
		t.Fatal("queue not empty after the last value")
	}
}

func TestQueueZeroAllocs(t *testing.T) {
	q, _ := waitfree.NewQueue[[4]float64](4)
	if a := testing.AllocsPerRun(1000, func() {
		q.Push([4]float64{1, 2, 3, 4})
		q.Pop()
	}); a != 0 {
		t.Fatalf("push+pop allocates %.1f times per run", a)
	}
}

func BenchmarkPushPop(b *testing.B) {
	q, _ := waitfree.NewQueue[[4]float64](64)
	b.ReportAllocs()
	for b.Loop() {
		q.Push([4]float64{1, 2, 3, 4})
		q.Pop()
	}
}
