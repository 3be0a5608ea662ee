//go:build !linux

package sched

func raise(name string, n int) ThreadPriority {
	return ThreadPriority{Name: name, How: "unsupported"}
}

func lower(int) {}

func renice(int, func(int) bool) (int, int) { return 0, 0 }
