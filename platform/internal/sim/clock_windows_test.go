package sim

import (
	"context"
	"slices"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

func TestClockSourceIsQPC(t *testing.T) {
	if s := ClockSource(); s != "qpc" {
		t.Fatalf("clock source %q, want qpc", s)
	}
}

// The clock must move in steps far finer than a frame: Go's own clock on
// Windows (the interrupt time) moves in steps of 0.5 to 15.6 ms, and a
// factor read from it is quantised.
func TestRealClockStepsAreFine(t *testing.T) {
	c := NewRealClock(0)
	var steps []time.Duration
	last := c.Now()
	for len(steps) < 1000 {
		now := c.Now()
		if now < last {
			t.Fatalf("clock went back from %v to %v", last, now)
		}
		if now > last {
			steps = append(steps, now-last)
			last = now
		}
	}
	slices.Sort(steps)
	med := steps[len(steps)/2]
	t.Logf("steps: median %v, p99 %v", med, steps[len(steps)*99/100])
	if med > 5*time.Microsecond {
		t.Fatalf("median step %v, want ≤ 5 µs (a coarse clock)", med)
	}
}

// The clock's rate must be the wall's: measured against Go's clock over
// half a second, whose coarse steps (at most 16 ms) bound the error.
func TestRealClockRate(t *testing.T) {
	c := NewRealClock(0)
	t0, w0 := c.Now(), time.Now()
	time.Sleep(500 * time.Millisecond)
	d, w := c.Now()-t0, time.Since(w0)
	if diff := d - w; diff > 20*time.Millisecond || diff < -20*time.Millisecond {
		t.Fatalf("QPC says %v, Go's clock %v", d, w)
	}
}

func TestRealClockDoesNotAllocate(t *testing.T) {
	c := NewRealClock(DefaultSpin)
	ctx := context.Background()
	c.SleepUntil(ctx, c.Now()+time.Millisecond) // warm: a timer handle
	if n := testing.AllocsPerRun(50, func() {
		c.Now()
		c.SleepUntil(ctx, c.Now()+time.Millisecond)
	}); n != 0 {
		t.Fatalf("Now and SleepUntil allocate %.1f times", n)
	}
}

// SleepUntil must sleep in the kernel (a waitable timer; under Wine
// NtDelayExecution), and never
// return before its deadline.
func TestKernelSleepNeverEarly(t *testing.T) {
	c := NewRealClock(0)
	for range 20 {
		start := c.Now()
		if !kernelSleep(2 * time.Millisecond) {
			t.Fatal("no kernel sleep")
		}
		if d := c.Now() - start; d < 2*time.Millisecond-100*time.Microsecond {
			t.Fatalf("a 2 ms sleep took %v", d)
		}
		deadline := c.Now() + 3*time.Millisecond
		if err := c.SleepUntil(context.Background(), deadline); err != nil {
			t.Fatal(err)
		}
		if now := c.Now(); now < deadline {
			t.Fatalf("woke at %v, before the deadline %v", now, deadline)
		}
	}
}

// Under Wine the sleep is NtDelayExecution's, in the host kernel; elsewhere
// a waitable timer's.
func TestSleepMethod(t *testing.T) {
	if underWine {
		t.Log("under Wine: NtDelayExecution")
	}
	before := len(waitables)
	kernelSleep(time.Millisecond)
	if after := len(waitables); underWine && after != before || !underWine && after == 0 {
		t.Fatalf("waitable timers in the pool: %d before a sleep, %d after (under Wine: %v)", before, after, underWine)
	}
}

// BenchmarkSleepLateness measures how late a 2 ms sleep returns, on QPC,
// for each way Windows can sleep a thread: the high-resolution waitable
// timer, NtDelayExecution (Sleep's), a Go timer, and RealClock.SleepUntil
// with its default spin. Under Wine it shows why kernelSleep uses
// NtDelayExecution there (docs/platforms.md).
func BenchmarkSleepLateness(b *testing.B) {
	const d = 2 * time.Millisecond
	c := NewRealClock(DefaultSpin)
	h := newWaitable()
	defer windows.CloseHandle(h)
	for _, m := range []struct {
		name  string
		sleep func()
	}{
		{"method=waitable", func() {
			due := -int64(d / 100)
			syscall.SyscallN(procSetWaitableTimer.Addr(), uintptr(h), uintptr(unsafe.Pointer(&due)), 0, 0, 0, 0)
			windows.WaitForSingleObject(h, windows.INFINITE)
		}},
		{"method=ntdelay", func() {
			due := -int64(d / 100)
			syscall.SyscallN(procNtDelayExecution.Addr(), 0, uintptr(unsafe.Pointer(&due)))
		}},
		{"method=gotimer", func() { time.Sleep(d) }},
		{"method=sleepuntil", func() { c.SleepUntil(context.Background(), c.Now()+d) }},
	} {
		b.Run(m.name, func(b *testing.B) {
			late := make([]time.Duration, 0, b.N)
			for b.Loop() {
				t0 := c.Now()
				m.sleep()
				late = append(late, c.Now()-t0-d)
			}
			slices.Sort(late)
			b.ReportMetric(float64(late[len(late)/2].Microseconds()), "p50-late-µs")
			b.ReportMetric(float64(late[len(late)*99/100].Microseconds()), "p99-late-µs")
		})
	}
}
