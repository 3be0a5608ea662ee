package stats_test

import (
	"fmt"
	"time"

	"github.com/tickframe/tickframe/platform/internal/stats"
)

// Record durations as nanoseconds on one goroutine; read quantiles from
// any other. Quantiles are the middle of their bucket, within about 3 % of
// the exact value; the maximum is exact.
func ExampleHistogram() {
	var h stats.Histogram // the zero value is ready to use
	for i := 1; i <= 1000; i++ {
		h.Record(int64(time.Duration(i) * time.Microsecond)) // 1 µs ... 1 ms
	}
	s := h.Summary()
	fmt.Println("count", s.Count)
	fmt.Printf("mean %.1f µs\n", s.Mean/1e3)
	fmt.Println("p50", time.Duration(s.P50), "p99", time.Duration(s.P99), "max", time.Duration(s.Max))
	// Output:
	// count 1000
	// mean 500.5 µs
	// p50 499.712µs p99 999.424µs max 1ms
}
