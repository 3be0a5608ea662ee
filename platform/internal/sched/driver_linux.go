package sched

import (
	"bytes"
	"os"
	"slices"
	"strconv"
)

// Threads returns the ids of this process's threads now, sorted: the
// "before" of DriverThreads. It allocates; call it outside the frame.
func Threads() []int {
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil
	}
	tids := make([]int, 0, len(ents))
	for _, e := range ents {
		if tid, err := strconv.Atoi(e.Name()); err == nil {
			tids = append(tids, tid)
		}
	}
	slices.Sort(tids)
	return tids
}

// DriverThreads returns the threads of this process that did not exist in
// before (a list from Threads) and that named themselves, as a driver's
// worker threads do (Mesa's llvmpipe-N): the threads a call made between
// the two started, such as a GL context's creation on the render thread.
// A critical thread raised by a broker runs with SCHED_RESET_ON_FORK, so
// the threads it starts begin at nice 0 and do not inherit its priority
// as they do when the kernel raised it; CriticalThread gives them the
// render thread's.
func DriverThreads(before []int) []int {
	self, err := os.ReadFile("/proc/self/comm")
	if err != nil {
		return nil
	}
	var out []int
	for _, tid := range Threads() {
		if _, found := slices.BinarySearch(before, tid); found {
			continue
		}
		comm, err := os.ReadFile("/proc/self/task/" + strconv.Itoa(tid) + "/comm")
		if err != nil || bytes.Equal(comm, self) {
			continue // gone, or a thread of the runtime's (it carries the process's name)
		}
		out = append(out, tid)
	}
	return out
}
