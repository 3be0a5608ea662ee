//go:build linux

package sched

import (
	"bytes"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// nice reads a thread's nice value; Linux's raw getpriority returns
// 20 − nice.
func nice(tid int) (int, error) {
	p, err := unix.Getpriority(unix.PRIO_PROCESS, tid)
	if err != nil {
		return 0, err
	}
	return 20 - p, nil
}

// raise asks for nice n on the calling thread (n ≥ 1: nothing asked).
func raise(name string, n int) ThreadPriority {
	tid := unix.Gettid()
	tp := ThreadPriority{Name: name, TID: tid, How: "not asked"}
	if n < 1 {
		if err := unix.Setpriority(unix.PRIO_PROCESS, tid, n); err != nil {
			tp.How, tp.Err = "denied", err.Error()
		} else {
			tp.How = "raised"
		}
	}
	tp.Nice, _ = nice(tid)
	return tp
}

// lower sets the calling thread's nice value to n if it is below.
func lower(n int) {
	tid := unix.Gettid()
	if cur, err := nice(tid); err == nil && cur < n {
		_ = unix.Setpriority(unix.PRIO_PROCESS, tid, n)
	}
}

// renice moves every thread of the process that carries the process's
// own name and is not critical to nice n, if it is below, and counts the
// threads moved and those that could not be.
func renice(n int, critical func(tid int) bool) (ok, failed int) {
	self, err := os.ReadFile("/proc/self/comm")
	if err != nil {
		return 0, 0
	}
	self = bytes.TrimSpace(self)
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return 0, 0
	}
	var buf [64]byte
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil || critical(tid) {
			continue
		}
		if cur, err := nice(tid); err != nil || cur >= n {
			continue
		}
		// Threads that named themselves (a driver's workers) keep their
		// priority: they work for whoever called them.
		if comm := readSmall("/proc/self/task/"+t.Name()+"/comm", buf[:]); !bytes.Equal(comm, self) {
			continue
		}
		if unix.Setpriority(unix.PRIO_PROCESS, tid, n) == nil {
			ok++
		} else {
			failed++
		}
	}
	return ok, failed
}

func readSmall(path string, buf []byte) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	n, _ := f.Read(buf)
	return bytes.TrimSpace(buf[:n])
}
