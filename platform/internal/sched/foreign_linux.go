package sched

// CriticalThread registers thread tid of this process, one Go did not
// create (a C library's audio or network thread, whose id it can give
// with gettid), as critical and asks cfg's priorities for it as Critical
// does for the calling thread; Linux lets a process raise any of its
// threads (within its privilege). It returns what the thread got and a
// function that unregisters it (the thread keeps its priority).
func CriticalThread(name string, tid int, cfg Config) (ThreadPriority, func()) {
	return critical(raiseThread(name, tid, cfg.withDefaults().CriticalNice), cfg)
}
