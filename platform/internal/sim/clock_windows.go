package sim

import (
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Windows' QueryPerformanceCounter: Go's own monotonic clock there reads
// the interrupt time, which moves in steps of the timer interrupt (0.5 to
// 15.6 ms, golang/go#67066), and an interpolation factor taken from a
// clock that moves in steps is quantised, which is judder. QPC moves in
// steps of its frequency's period, 100 ns or less, on every Windows since
// XP, and never fails there.
var (
	kernel32    = windows.NewLazySystemDLL("kernel32.dll")
	procQPC     = kernel32.NewProc("QueryPerformanceCounter")
	procQPF     = kernel32.NewProc("QueryPerformanceFrequency")
	qpcFreq     = qpf()
	qpcAddr     = procQPC.Addr()
	qpcStart    = qpc()
	qpcNsPerSec = int64(time.Second)
)

func qpf() int64 {
	var f int64
	syscall.SyscallN(procQPF.Addr(), uintptr(unsafe.Pointer(&f)))
	return max(f, 1)
}

func qpc() int64 {
	var c int64
	syscall.SyscallN(qpcAddr, uintptr(unsafe.Pointer(&c)))
	return c
}

// monotonic converts QPC ticks since qpcStart to a duration, in two parts
// so that the product cannot overflow in the 292 years an int64 of
// nanoseconds holds.
func monotonic() time.Duration {
	n := qpc() - qpcStart
	s, rem := n/qpcFreq, n%qpcFreq
	return time.Duration(s*qpcNsPerSec + rem*qpcNsPerSec/qpcFreq)
}

func clockSource() string { return "qpc" }
