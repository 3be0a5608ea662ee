package waitfree_test

// Benchmarks comparing the triple buffer with the usual alternatives, in two
// families with the same sub-names so that benchstat can set them side by
// side:
//
//	BenchmarkHandoff/impl=<triple|mutex|channel|atomicptr>/size=<8B|1KiB|64KiB|1MiB>
//	BenchmarkHandoffContended/impl=.../size=...
//
// One op is filling the snapshot and one publish, plus one acquire where both
// sides share a goroutine. In the contended family another goroutine acquires
// continuously, as the render thread does in the app.

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tickframe/tickframe/sync/waitfree"
)

// handoff is what every implementation offers; the loops below call it
// through a type parameter so that each implementation is compiled
// concretely, without interface dispatch in the measured loop.
type handoff[P any] interface {
	// publish fills the producer's value with src and publishes it.
	publish(src *P)
	// acquire returns the newest value if there is a new one.
	acquire() (*P, bool)
}

// triple is ours.
type triple[P any] struct {
	p *waitfree.Producer[P]
	c *waitfree.Consumer[P]
}

func newTriple[P any]() *triple[P] {
	p, c, err := waitfree.NewTripleBuffer[P](3, nil)
	if err != nil {
		panic(err)
	}
	return &triple[P]{p, c}
}

func (h *triple[P]) publish(src *P) { *h.p.Slot() = *src; h.p.Publish() }
func (h *triple[P]) acquire() (*P, bool) {
	if !h.c.Acquire() {
		return nil, false
	}
	return h.c.History(0), true
}

// mutexCopy copies in and out under a mutex.
type mutexCopy[P any] struct {
	mu     sync.Mutex
	shared P
	seq    uint64
	seen   uint64
	local  P
}

func (h *mutexCopy[P]) publish(src *P) {
	h.mu.Lock()
	h.shared = *src
	h.seq++
	h.mu.Unlock()
}

func (h *mutexCopy[P]) acquire() (*P, bool) {
	h.mu.Lock()
	if h.seq == h.seen {
		h.mu.Unlock()
		return nil, false
	}
	h.local = h.shared
	h.seen = h.seq
	h.mu.Unlock()
	return &h.local, true
}

// channel passes buffers through a size-1 channel and recycles them through
// a free list channel, so it does not allocate either.
type channel[P any] struct {
	full  chan *P
	free  chan *P
	back  *P
	front *P
}

func newChannel[P any]() *channel[P] {
	// Five buffers: the producer's, the consumer's, one in flight and two
	// spare, so that the producer never waits for a free one.
	h := &channel[P]{full: make(chan *P, 1), free: make(chan *P, 3), back: new(P), front: new(P)}
	h.free <- new(P)
	h.free <- new(P)
	h.free <- new(P)
	return h
}

func (h *channel[P]) publish(src *P) {
	*h.back = *src
	select {
	case old := <-h.full:
		// The consumer has not taken the last one: replace it.
		h.full <- h.back
		h.back = old
	default:
		h.full <- h.back // empty, and only we send: never blocks
		h.back = <-h.free
	}
}

func (h *channel[P]) acquire() (*P, bool) {
	select {
	case p := <-h.full:
		h.free <- h.front
		h.front = p
		return p, true
	default:
		return nil, false
	}
}

// atomicPtr allocates a fresh value per publish.
type atomicPtr[P any] struct {
	ptr  atomic.Pointer[P]
	seen *P
}

func (h *atomicPtr[P]) publish(src *P) {
	p := new(P)
	*p = *src
	h.ptr.Store(p)
}

func (h *atomicPtr[P]) acquire() (*P, bool) {
	p := h.ptr.Load()
	if p == nil || p == h.seen {
		return nil, false
	}
	h.seen = p
	return p, true
}

// The payload sizes. The first word carries the sequence number so that the
// consumer has something real to read.
type payloadT interface{ p8B | p1KiB | p64K | p1MiB }

type (
	p8B   [1]uint64
	p1KiB [1 << 7]uint64
	p64K  [1 << 13]uint64
	p1MiB [1 << 17]uint64
)

func BenchmarkHandoff(b *testing.B)          { benchAll(b, false) }
func BenchmarkHandoffContended(b *testing.B) { benchAll(b, true) }

func benchAll(b *testing.B, contended bool) {
	benchImpls[p8B](b, "8B", contended)
	benchImpls[p1KiB](b, "1KiB", contended)
	benchImpls[p64K](b, "64KiB", contended)
	benchImpls[p1MiB](b, "1MiB", contended)
}

func benchImpls[P payloadT](b *testing.B, size string, contended bool) {
	run := func(name string, h handoff[P]) {
		b.Run("impl="+name+"/size="+size, func(b *testing.B) {
			if contended {
				benchContended(b, h)
			} else {
				benchSolo(b, h)
			}
		})
	}
	run("triple", newTriple[P]())
	run("mutex", new(mutexCopy[P]))
	run("channel", newChannel[P]())
	run("atomicptr", new(atomicPtr[P]))
}

func benchSolo[P payloadT, H handoff[P]](b *testing.B, h H) {
	src := new(P)
	b.ReportAllocs()
	var seq uint64
	for b.Loop() {
		seq++
		(*src)[0] = seq
		h.publish(src)
		p, ok := h.acquire()
		if !ok || (*p)[0] != seq {
			b.Fatalf("acquire after publish %d: ok=%v", seq, ok)
		}
	}
}

func benchContended[P payloadT, H handoff[P]](b *testing.B, h H) {
	if runtime.GOMAXPROCS(0) < 2 {
		b.Skip("needs GOMAXPROCS >= 2 for a consumer on another core")
	}
	src := new(P)
	var stop atomic.Bool
	var wg sync.WaitGroup
	var got, last uint64
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			if p, ok := h.acquire(); ok {
				got++
				last = (*p)[0]
			}
		}
	}()
	b.ReportAllocs()
	var seq uint64
	for b.Loop() {
		seq++
		(*src)[0] = seq
		h.publish(src)
	}
	stop.Store(true)
	wg.Wait()
	if last > seq {
		b.Fatalf("consumer saw %d, beyond the last published %d", last, seq)
	}
	b.ReportMetric(float64(got)/float64(b.N), "acquired/op")
}

// BenchmarkHistory measures the design choice: this package hands the
// consumer's oldest slot back on each acquire (impl=rotate, no copies),
// against a classic 3-slot triple buffer whose consumer copies each new
// value into its own 3-entry ring (impl=copy). One op = publish + acquire.
func BenchmarkHistory(b *testing.B) {
	benchHistory[p8B](b, "8B")
	benchHistory[p64K](b, "64KiB")
	benchHistory[p1MiB](b, "1MiB")
}

func benchHistory[P payloadT](b *testing.B, size string) {
	b.Run("impl=rotate/size="+size, func(b *testing.B) {
		p, c, _ := waitfree.NewTripleBuffer[P](3, nil)
		b.ReportAllocs()
		var seq uint64
		for b.Loop() {
			seq++
			(*p.Slot())[0] = seq
			p.Publish()
			c.Acquire()
			if (*c.History(0))[0] != seq {
				b.Fatal("not the newest")
			}
		}
	})
	b.Run("impl=copy/size="+size, func(b *testing.B) {
		p, c, _ := waitfree.NewTripleBuffer[P](1, nil)
		ring := make([]P, 3)
		head := 0
		b.ReportAllocs()
		var seq uint64
		for b.Loop() {
			seq++
			(*p.Slot())[0] = seq
			p.Publish()
			if c.Acquire() {
				head = (head + 1) % len(ring)
				ring[head] = *c.History(0)
			}
			if ring[head][0] != seq {
				b.Fatal("not the newest")
			}
		}
	})
}
