package sched

import (
	"runtime"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// A thread that waits for a CPU behind busy threads on its own CPU reads
// that wait; one that sleeps instead reads (almost) none. The thread is
// pinned to one CPU with two busy goroutines' threads pinned beside it,
// so that its wait is the kernel's scheduling, not the machine's load.
func TestThreadWaitReadsTheRunQueue(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	w, err := OpenThreadWait()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var was unix.CPUSet
	if err := unix.SchedGetaffinity(0, &was); err != nil {
		t.Fatal(err)
	}
	defer unix.SchedSetaffinity(0, &was) // the thread goes back to the runtime as it was
	if err := pinTo(0); err != nil {
		t.Fatal(err)
	}
	// Asleep: not on a run queue.
	before := w.Read()
	time.Sleep(50 * time.Millisecond)
	slept := w.Read() - before
	// Busy beside two spinning threads on the same CPU: about two thirds
	// of the time runnable and waiting. Three goroutines running at once
	// need three Ps (with two, one spinner waited for a P, not the CPU).
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(runtime.GOMAXPROCS(0), 4)))
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread() // never unlocked: the pinned thread ends with the goroutine
			if err := pinTo(0); err != nil {
				t.Error(err)
				return
			}
			for {
				select {
				case <-stop:
					return
				default:
				}
			}
		}()
	}
	time.Sleep(10 * time.Millisecond) // let them start
	before = w.Read()
	start := time.Now()
	for time.Since(start) < 200*time.Millisecond {
	}
	waited := w.Read() - before
	close(stop)
	wg.Wait()
	t.Logf("asleep 50 ms: waited %v; spinning 200 ms beside two spinners on one CPU: waited %v", slept, waited)
	if slept > 25*time.Millisecond {
		t.Errorf("asleep 50 ms, read %v of waiting for a CPU", slept)
	}
	if waited < 50*time.Millisecond {
		t.Errorf("spinning beside two spinners on one CPU for 200 ms, read %v of waiting: the run queue's wait is not read", waited)
	}
	var nilWait *ThreadWait
	if nilWait.Read() != 0 || nilWait.Close() != nil {
		t.Error("a nil ThreadWait reads something")
	}
}

// pinTo binds the calling thread to CPU cpu.
func pinTo(cpu int) error {
	var set unix.CPUSet
	set.Set(cpu)
	return unix.SchedSetaffinity(0, &set)
}

// Read runs on the render thread every frame: it must not allocate.
func TestThreadWaitReadDoesNotAllocate(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	w, err := OpenThreadWait()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if n := testing.AllocsPerRun(100, func() { _ = w.Read() }); n != 0 {
		t.Errorf("Read allocates %.1f objects a call", n)
	}
}
