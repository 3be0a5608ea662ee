//go:build !linux

package sched

// CriticalThread registers thread tid of this process, one Go did not
// create, as critical and asks cfg's priorities for it: Linux's alone;
// elsewhere nothing is asked nor registered (How "unsupported").
func CriticalThread(name string, tid int, _ Config) (ThreadPriority, func()) {
	return ThreadPriority{Name: name, TID: tid, How: "unsupported"}, func() {}
}
