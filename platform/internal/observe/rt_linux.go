//go:build linux

package observe

import (
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// realtime puts the calling thread under SCHED_FIFO at prio, with a timer
// slack of 1 ns so that its sleeps end on time.
func realtime(prio int) error {
	_ = unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0)
	attr := unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_FIFO, Priority: uint32(prio)}
	if err := unix.SchedSetAttr(0, &attr, 0); err != nil {
		return fmt.Errorf("SCHED_FIFO %d: %v", prio, err)
	}
	return nil
}

func monotonic() time.Duration {
	var ts unix.Timespec
	_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
	return time.Duration(ts.Nano())
}

// sleepUntil sleeps until CLOCK_MONOTONIC reaches t.
func sleepUntil(t time.Duration) {
	ts := unix.NsecToTimespec(int64(t))
	for unix.ClockNanosleep(unix.CLOCK_MONOTONIC, unix.TIMER_ABSTIME, &ts, nil) == unix.EINTR {
	}
}

// setNice sets process pid's nice value.
func setNice(pid, nice int) error { return unix.Setpriority(unix.PRIO_PROCESS, pid, nice) }
