package sched

import "time"

// ThreadWait reads how long one thread has waited for a CPU, runnable but
// not running, since it started: the kernel's own account (Linux's
// /proc/thread-self/schedstat run_delay). Two readings around a call tell
// how much of the call's time the thread spent waiting for a CPU rather
// than running or blocked: time in which what the call waited for may
// have happened long before the thread saw it. Read must be called on the
// thread that opened it. A nil ThreadWait (OpenThreadWait where the
// kernel keeps no such account) reads 0.
type ThreadWait struct {
	fd  int
	buf [96]byte // read into here: a buffer on the stack escapes under -race
}

// OpenThreadWait opens the calling thread's account (lock the goroutine
// to its thread first). It returns nil and an error where there is none:
// not Linux, or a kernel without schedstats.
func OpenThreadWait() (*ThreadWait, error) { return openThreadWait() }

// Read returns the thread's total wait for a CPU so far; 0 on a nil
// ThreadWait or when the read fails. It does not allocate.
func (w *ThreadWait) Read() time.Duration {
	if w == nil {
		return 0
	}
	return w.read()
}

// Close releases the account.
func (w *ThreadWait) Close() error {
	if w == nil {
		return nil
	}
	return w.close()
}
