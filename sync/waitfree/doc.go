// Package waitfree holds the structures two goroutines share without ever
// waiting for each other: a triple buffer that hands the newest value from
// a producer to a consumer (NewTripleBuffer) and a bounded queue for
// exactly one producer and one consumer (NewQueue). Neither knows what it
// carries.
//
// # Triple buffer
//
// It is the triple buffer of the Rust triple_buffer crate (one atomic slot
// index with a "fresh" bit, swapped on publish and on acquire) generalised to
// history+2 slots: the producer owns one slot (the back slot it fills), one
// slot is shared (the newest published value), and the consumer owns the
// other history slots, which are the values it acquired, newest first. On an
// acquire the consumer hands its oldest slot back through the shared index and
// takes the newest in its place, so no value is ever copied and every value
// the consumer holds stays valid and unchanged until it rotates out of the
// history.
//
// Guarantees:
//   - Publish is one atomic swap; Acquire is one atomic load, plus one atomic
//     swap when something new was published. No locks, no CAS retry loops,
//     no channels: neither side ever waits for the other.
//   - Acquire always gets the newest published value. Values overwritten
//     before the consumer saw them are counted (Producer.Overwritten).
//   - Slots are allocated once, each on its own cache lines; Publish and
//     Acquire never allocate.
//
// A Producer must be used by one goroutine at a time, and so must a Consumer;
// the two may run concurrently with each other.
//
// # Queue
//
// tickframe uses the queue to carry input events from the render thread to
// the simulation goroutine: Push and Pop each take a bounded number of atomic
// loads and stores, never a lock, a CAS retry loop or a channel, so the
// render thread never waits for the simulation. A full queue refuses the
// value instead of blocking and counts the refusal.
package waitfree
