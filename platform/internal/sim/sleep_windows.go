package sim

import (
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Windows sleeps on a high-resolution waitable timer
// (CREATE_WAITABLE_TIMER_HIGH_RESOLUTION, Windows 10 1803 and later),
// which the kernel fires to within about half a millisecond instead of at
// the next timer interrupt (up to 15.6 ms later); SleepUntil's spin takes
// the rest. Where the flag is refused (older Windows), the timer is an
// ordinary one and sleeps are as coarse as the interrupt timer.
//
// Under Wine a waitable timer is the wineserver's, fired after a round
// trip to it, while Wine's NtDelayExecution sleeps in the host kernel: 2 ms
// sleeps woke 271 µs late at the median and 803 µs at p99 on the timer,
// 146 and 212 µs with NtDelayExecution (BenchmarkSleepLateness on a quiet
// machine, docs/platforms.md), so there the thread sleeps with
// NtDelayExecution instead.
const (
	createWaitableTimerHighResolution = 0x2
	timerAllAccess                    = 0x1f0003
)

var (
	procCreateWaitableTimerExW = kernel32.NewProc("CreateWaitableTimerExW")
	procSetWaitableTimer       = kernel32.NewProc("SetWaitableTimer")
	ntdll                      = windows.NewLazySystemDLL("ntdll.dll")
	procNtDelayExecution       = ntdll.NewProc("NtDelayExecution")
	// underWine: only Wine's ntdll exports wine_get_version.
	underWine = ntdll.NewProc("wine_get_version").Find() == nil
)

// waitables recycles timer handles, as timers recycles Go timers: a
// sleeping thread holds one, and a steady state allocates none.
var waitables = make(chan windows.Handle, 16)

func newWaitable() windows.Handle {
	h, _, _ := syscall.SyscallN(procCreateWaitableTimerExW.Addr(), 0, 0, createWaitableTimerHighResolution, timerAllAccess)
	if h == 0 {
		h, _, _ = syscall.SyscallN(procCreateWaitableTimerExW.Addr(), 0, 0, 0, timerAllAccess)
	}
	return windows.Handle(h)
}

// kernelSleep blocks the calling thread on a waitable timer for d and
// reports that it did (false: no timer could be made or set).
func kernelSleep(d time.Duration) bool {
	// Negative: relative, in 100 ns units; never 0, which returns at once.
	due := -max(int64(d/100), 1)
	if underWine {
		r, _, _ := syscall.SyscallN(procNtDelayExecution.Addr(), 0, uintptr(unsafe.Pointer(&due)))
		return r == 0 // STATUS_SUCCESS
	}
	var h windows.Handle
	select {
	case h = <-waitables:
	default:
		if h = newWaitable(); h == 0 {
			return false
		}
	}
	ok, _, _ := syscall.SyscallN(procSetWaitableTimer.Addr(), uintptr(h), uintptr(unsafe.Pointer(&due)), 0, 0, 0, 0)
	if ok != 0 {
		ok = 1
		if ev, _ := windows.WaitForSingleObject(h, windows.INFINITE); ev != windows.WAIT_OBJECT_0 {
			ok = 0
		}
	}
	select {
	case waitables <- h:
	default:
		windows.CloseHandle(h)
	}
	return ok != 0
}
