package sched

import "sync"

// Native returns what the operating system's own interface read back for
// the critical thread tid, in its own terms, where ThreadPriority's
// fields (Linux's nice value, slice and policy) do not say it: on Windows
// the GetThreadPriority level and MMCSS's answer ("GetThreadPriority
// THREAD_PRIORITY_HIGHEST; MMCSS task Games, index 1,
// AVRT_PRIORITY_HIGH"), on macOS the QoS class and time-constraint
// policy read back. It is "" on Linux, and for a thread never registered
// with Critical.
func Native(tid int) string {
	natives.Lock()
	defer natives.Unlock()
	return natives.m[tid]
}

// BackgroundPriority names, in the platform's own terms, the priority
// busy background threads are moved to for Config.BackgroundNice n (as
// Stats.BackgroundNice reports it): "nice 10" on Linux,
// "THREAD_PRIORITY_BELOW_NORMAL" on Windows; "" where none is moved (n ≤
// 0, or a platform where the process cannot lower its other threads:
// macOS).
func BackgroundPriority(n int) string {
	if n <= 0 {
		return ""
	}
	return osBackground(n)
}

var natives struct {
	sync.Mutex
	m map[int]string
}

func setNative(tid int, s string) {
	natives.Lock()
	defer natives.Unlock()
	if natives.m == nil {
		natives.m = map[int]string{}
	}
	natives.m[tid] = s
}
