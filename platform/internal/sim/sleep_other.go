//go:build !linux && !windows

package sim

import "time"

// kernelSleep is Linux's and Windows'; elsewhere SleepUntil uses a Go timer.
func kernelSleep(time.Duration) bool { return false }
