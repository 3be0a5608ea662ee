package sim

import (
	"time"

	"golang.org/x/sys/unix"
)

// kernelSleep blocks the calling thread in the kernel for d and reports
// that it did.
func kernelSleep(d time.Duration) bool {
	ts := unix.NsecToTimespec(int64(d))
	for {
		// EINTR (a signal, such as the runtime's preemption signal):
		// sleep the rest.
		var rem unix.Timespec
		err := unix.Nanosleep(&ts, &rem)
		if err != unix.EINTR {
			return true
		}
		ts = rem
	}
}
