//go:build !windows

package sim

import (
	"runtime"
	"time"
)

// start anchors monotonic. time.Since reads Go's monotonic clock, which is
// precise to tens of nanoseconds here: clock_gettime(CLOCK_MONOTONIC)
// through the vDSO on Linux and the BSDs, mach_absolute_time on macOS.
var start = time.Now()

func monotonic() time.Duration { return time.Since(start) }

func clockSource() string {
	switch runtime.GOOS {
	case "darwin", "ios":
		return "mach_absolute_time"
	default:
		return "clock_monotonic"
	}
}
