// Package stats holds the histogram the simulation's telemetry and the
// instruments record into.
//
// A Histogram records non-negative integer samples (durations in
// nanoseconds, usually) from one writer goroutine while any number of other
// goroutines read counts and quantiles, without locks. Buckets are
// log-linear: values below 16 have a bucket each, and every power of two
// above is split into 16 equal buckets, so a quantile is known to within
// 1/32 (about 3 %) of its value. The whole histogram is a fixed array of
// atomic counters: Record never allocates and never waits, and a reader sees
// each counter whole, though not all counters at one instant.
package stats
