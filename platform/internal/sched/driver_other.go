//go:build !linux

package sched

// Threads returns nil: the driver-thread hand-off is Linux's, where a
// broker's SCHED_RESET_ON_FORK keeps a driver's workers from inheriting
// the render thread's priority.
func Threads() []int { return nil }

// DriverThreads returns nil off Linux (see Threads).
func DriverThreads(before []int) []int { return nil }
