//go:build !linux

package simthread

import "time"

// kernelSleep is Linux's; elsewhere SleepUntil uses a Go timer.
func kernelSleep(time.Duration) bool { return false }
