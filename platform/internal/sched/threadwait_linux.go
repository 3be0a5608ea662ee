package sched

import (
	"errors"
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// /proc/thread-self resolves to the opening thread's task directory when
// it is opened: the descriptor keeps reading that thread's account.
func openThreadWait() (*ThreadWait, error) {
	fd, err := unix.Open("/proc/thread-self/schedstat", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("sched: thread wait: %w", err)
	}
	w := &ThreadWait{fd: fd}
	if _, ok := w.readDelay(); !ok {
		unix.Close(fd)
		return nil, errors.New("sched: thread wait: /proc/thread-self/schedstat is not \"run wait slices\"")
	}
	return w, nil
}

func (w *ThreadWait) read() time.Duration {
	d, _ := w.readDelay()
	return d
}

// readDelay parses the second of schedstat's three numbers (time on the
// CPU, time waiting on a run queue, time slices; ns) without allocating.
func (w *ThreadWait) readDelay() (time.Duration, bool) {
	n, err := unix.Pread(w.fd, w.buf[:], 0)
	if err != nil || n <= 0 {
		return 0, false
	}
	field, v, digits := 0, int64(0), 0
	for _, c := range w.buf[:n] {
		switch {
		case c >= '0' && c <= '9':
			v, digits = v*10+int64(c-'0'), digits+1
		case digits > 0:
			if field == 1 {
				return time.Duration(v), true
			}
			field, v, digits = field+1, 0, 0
		}
	}
	if field == 1 && digits > 0 {
		return time.Duration(v), true
	}
	return 0, false
}

func (w *ThreadWait) close() error { return unix.Close(w.fd) }
