//go:build !linux

package sched

import (
	"errors"
	"time"
)

func openThreadWait() (*ThreadWait, error) {
	return nil, errors.New("sched: thread wait: the kernel keeps no per-thread account of it here")
}

func (w *ThreadWait) read() time.Duration { return 0 }

func (w *ThreadWait) close() error { return nil }
