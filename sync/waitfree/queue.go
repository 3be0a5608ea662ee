package waitfree

import (
	"fmt"
	"sync/atomic"

	"golang.org/x/sys/cpu"
)

// MaxQueue bounds the queue's capacity.
const MaxQueue = 1 << 24

// Queue is a bounded single-producer single-consumer FIFO. Its zero value is
// not usable; get one from NewQueue. Push must be called from one goroutine at a
// time and Pop from one goroutine at a time; the two may run concurrently.
type Queue[T any] struct {
	_     noCopy
	items []T
	mask  uint64

	_       cpu.CacheLinePad
	tail    atomic.Uint64 // next position to write; written only by the producer
	headMax uint64        // producer's cached view of head
	dropped atomic.Uint64

	_        cpu.CacheLinePad
	head     atomic.Uint64 // next position to read; written only by the consumer
	tailSeen uint64        // consumer's cached view of tail
	_        cpu.CacheLinePad
}

// NewQueue returns a queue that holds up to capacity values; capacity is rounded
// up to a power of two and must be in [1, MaxQueue].
func NewQueue[T any](capacity int) (*Queue[T], error) {
	if capacity < 1 || capacity > MaxQueue {
		return nil, fmt.Errorf("waitfree: queue: capacity %d out of range [1, %d]", capacity, MaxQueue)
	}
	n := 1
	for n < capacity {
		n <<= 1
	}
	return &Queue[T]{items: make([]T, n), mask: uint64(n - 1)}, nil
}

// Cap reports how many values the queue can hold.
func (q *Queue[T]) Cap() int { return len(q.items) }

// Push appends v and reports whether there was room. A refused value is
// counted by Dropped. Producer side only.
func (q *Queue[T]) Push(v T) bool {
	t := q.tail.Load()
	if t-q.headMax >= uint64(len(q.items)) {
		// Looks full from the cached head: look at the real one.
		q.headMax = q.head.Load()
		if t-q.headMax >= uint64(len(q.items)) {
			q.dropped.Add(1)
			return false
		}
	}
	q.items[t&q.mask] = v
	q.tail.Store(t + 1) // publishes the item to the consumer
	return true
}

// Pop removes and returns the oldest value, or reports false when the queue
// is empty. Consumer side only.
func (q *Queue[T]) Pop() (T, bool) {
	h := q.head.Load()
	if h == q.tailSeen {
		q.tailSeen = q.tail.Load()
		if h == q.tailSeen {
			var zero T
			return zero, false
		}
	}
	i := h & q.mask
	v := q.items[i]
	var zero T
	q.items[i] = zero // drop references so the queue does not pin garbage
	q.head.Store(h + 1)
	return v, true
}

// Len reports how many values are queued. From either side it is exact for
// that side's own operations; from another goroutine it is a snapshot that
// may be stale by the time it returns.
func (q *Queue[T]) Len() int {
	h := q.head.Load() // head first: it never passes a tail loaded later
	return int(q.tail.Load() - h)
}

// Dropped reports how many values Push refused because the queue was full.
// It may be called from any goroutine.
func (q *Queue[T]) Dropped() uint64 { return q.dropped.Load() }
