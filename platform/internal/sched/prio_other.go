//go:build !linux && !windows && !darwin

package sched

import "time"

func raise(name string, n int) ThreadPriority {
	return ThreadPriority{Name: name, How: "unsupported"}
}

func shorten(tp *ThreadPriority, _ time.Duration) { tp.Slice = "unsupported" }

func realtime(tp *ThreadPriority, prio int) {
	if prio > 0 {
		tp.RT = "unsupported"
	}
}

func lower(int) {}

type sweeper struct{ all bool }

func (*sweeper) renice(int, func(int) bool) (int, int) { return 0, 0 }

func (*sweeper) reniceBusy(int, func(int) bool, float64) (int, int) { return 0, 0 }

func osBackground(int) string { return "" }
