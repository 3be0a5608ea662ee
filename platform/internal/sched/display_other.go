//go:build !linux

package sched

import "errors"

// FindDisplayServer finds the X server of display on this machine:
// Linux's (SO_PEERCRED, /proc) alone.
func FindDisplayServer(display string) (DisplayServer, error) {
	return DisplayServer{}, errors.New("sched: finding the display server is Linux's alone")
}

// ProcessCPU reads a process's CPU times: Linux's (/proc/PID/schedstat)
// alone.
func ProcessCPU(pid int) (CPUTime, error) {
	return CPUTime{}, errors.New("sched: a process's CPU wait is Linux's alone")
}
