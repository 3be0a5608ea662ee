package waitfree

import (
	"fmt"
	"sync/atomic"

	"golang.org/x/sys/cpu"
)

// freshBit marks the shared index as published but not yet acquired.
const freshBit = 1 << 31

// MaxHistory bounds the consumer's history; more than a handful of entries
// is never needed for interpolation and would only waste memory.
const MaxHistory = 64

// slot pads each value onto its own cache lines so that the producer filling
// its back slot never invalidates a line the consumer is reading. The pad is
// a whole page rather than a cache line: slots are one allocation, and with
// page-sized pads a large value starts on a page boundary (as the memory it
// is usually copied from does) instead of a few lines past one, which costs
// a copy 4K-aliasing stalls (10 % at 1 MiB here). Six pages is nothing next
// to the values that need it.
type slot[T any] struct {
	_ [pageSize]byte
	v T
}

// pageSize is the page size of every platform Go targets but a few.
const pageSize = 4096

// buffer is one allocation holding the shared index and both handles, each
// on its own cache line.
type buffer[T any] struct {
	_      cpu.CacheLinePad
	latest atomic.Uint32 // index of the shared slot, | freshBit when unseen
	_      cpu.CacheLinePad
	prod   Producer[T]
	_      cpu.CacheLinePad
	cons   Consumer[T]
	_      cpu.CacheLinePad
}

// Producer is the publishing side of a buffer: fill Slot, then Publish;
// Overwritten counts what the consumer never saw. Slot and Publish belong
// to one goroutine at a time (the producer's); Overwritten may be called
// from any. Its zero value is not usable; get one from NewTripleBuffer.
type Producer[T any] struct {
	_           noCopy
	latest      *atomic.Uint32
	slots       []slot[T]
	back        uint32
	overwritten atomic.Uint64
}

// Consumer is the acquiring side of a buffer and its history: Acquire takes
// the newest published value, if there is one it has not seen; History(i)
// reads the i-th newest acquired value back, valid until Cap()−i more
// acquires rotate it out; Len and Cap say how many are held and can be;
// Acquired counts the acquires, to index a mirror of the history. Every
// method belongs to one goroutine at a time (the consumer's), none blocks
// and none allocates. Its zero value is not usable; get one from NewTripleBuffer.
type Consumer[T any] struct {
	_        noCopy
	latest   *atomic.Uint32
	slots    []slot[T]
	ring     []uint32 // slot indices held by the consumer; ring[head] is the newest
	head     int
	n        int    // valid history entries, at most len(ring)
	acquired uint64 // successful acquires
}

// NewTripleBuffer returns the two sides of a buffer whose consumer keeps the last
// history acquired values (1 ≤ history ≤ MaxHistory). It allocates
// history+2 slots once. If init is not nil it is called on every slot before
// NewTripleBuffer returns, so that slots can be pre-sized (for example a slice with its
// final capacity) and steady-state publishing never allocates.
func NewTripleBuffer[T any](history int, init func(*T)) (*Producer[T], *Consumer[T], error) {
	if history < 1 || history > MaxHistory {
		return nil, nil, fmt.Errorf("waitfree: history %d out of range [1, %d]", history, MaxHistory)
	}
	b := new(buffer[T])
	slots := make([]slot[T], history+2)
	if init != nil {
		for i := range slots {
			init(&slots[i].v)
		}
	}
	// Slot 0 is the producer's back slot, slot 1 the shared one (not fresh),
	// slots 2.. belong to the consumer.
	b.latest.Store(1)
	b.prod.latest = &b.latest
	b.prod.slots = slots
	b.prod.back = 0
	b.cons.latest = &b.latest
	b.cons.slots = slots
	b.cons.ring = make([]uint32, history)
	for i := range b.cons.ring {
		b.cons.ring[i] = uint32(i + 2)
	}
	b.cons.head = history - 1
	return &b.prod, &b.cons, nil
}

// Slot returns the back slot, which only the producer may touch. It holds
// whatever an earlier value left there: overwrite all of it, reusing its
// memory, then call Publish. The pointer is valid until Publish.
func (p *Producer[T]) Slot() *T { return &p.slots[p.back].v }

// Publish makes the back slot the newest value and takes a new back slot.
// It is one atomic swap and never waits.
func (p *Producer[T]) Publish() {
	old := p.latest.Swap(p.back | freshBit)
	if old&freshBit != 0 {
		// The consumer never saw the value we just replaced.
		p.overwritten.Add(1)
	}
	p.back = old &^ freshBit
}

// Overwritten reports how many published values were replaced by a newer
// one before the consumer acquired them. It may be called from any goroutine.
func (p *Producer[T]) Overwritten() uint64 { return p.overwritten.Load() }

// Acquire takes the newest published value into the history if there is one
// the consumer has not seen, and reports whether there was. With nothing new
// it costs one atomic load and changes nothing. When it returns true the
// oldest history entry has rotated out and History(0) is the new value.
func (c *Consumer[T]) Acquire() bool {
	if c.latest.Load()&freshBit == 0 {
		return false
	}
	next := c.head + 1
	if next == len(c.ring) {
		next = 0
	}
	// Hand back the oldest slot and take the newest. Only the consumer
	// clears freshBit, so the swap returns a fresh index: the newest value,
	// even if the producer published again since the load.
	got := c.latest.Swap(c.ring[next])
	c.ring[next] = got &^ freshBit
	c.head = next
	if c.n < len(c.ring) {
		c.n++
	}
	c.acquired++
	return true
}

// Len reports how many values the history holds: 0 before the first
// successful Acquire, at most the history depth given to NewTripleBuffer.
func (c *Consumer[T]) Len() int { return c.n }

// Cap reports the history depth given to NewTripleBuffer.
func (c *Consumer[T]) Cap() int { return len(c.ring) }

// History returns the i-th newest acquired value, i = 0 being the newest,
// or nil if i is not in [0, Len()). The value stays valid and unchanged
// until it rotates out of the history, Cap()-i successful acquires later.
func (c *Consumer[T]) History(i int) *T {
	if i < 0 || i >= c.n {
		return nil
	}
	j := c.head - i
	if j < 0 {
		j += len(c.ring)
	}
	return &c.slots[c.ring[j]].v
}

// Acquired reports how many successful Acquire calls the consumer made. The
// value History(i) was the (Acquired()-i)-th, so a consumer mirroring its
// history elsewhere (GPU buffers, say) can index its mirror by
// (Acquired()-1-i) % Cap().
func (c *Consumer[T]) Acquired() uint64 { return c.acquired }

// noCopy makes go vet's copylocks check flag a copied Producer, Consumer,
// or Queue.
type noCopy struct{}

func (*noCopy) Lock()   {}
func (*noCopy) Unlock() {}
