package sched

// The sweep and nice tests: Linux's levers, read back from the kernel.

import (
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestReniceSparesCriticalAndNamedThreads(t *testing.T) {
	critical := make(chan ThreadPriority)
	release := make(chan struct{})
	go func() {
		tp, unregister := Critical("test-critical", Config{CriticalNice: 1}) // not asked: stays at 0
		defer unregister()
		critical <- tp
		<-release
	}()
	tp := <-critical
	defer close(release)
	// A thread that named itself, as driver threads do.
	named := make(chan int)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread exits with the goroutine
		unix.Prctl(unix.PR_SET_NAME, uintptr(unsafePointer("worker-0")), 0, 0, 0)
		named <- unix.Gettid()
		<-release
	}()
	namedTID := <-named
	// A plain thread of the process.
	plain := make(chan int)
	go func() {
		runtime.LockOSThread()
		plain <- unix.Gettid()
		<-release
	}()
	plainTID := <-plain

	level := freeNice(t)
	critBefore, _ := nice(tp.TID)
	namedBefore, _ := nice(namedTID)
	sw := sweeper{all: true}
	// The sweep moves a thread it knows carries Go code: one it finds
	// blocked in a system call made from Go, or one two sweeps found
	// among the runtime's threads alone. The plain thread may still be
	// on its way into its channel receive at the first sweep, so sweep
	// until it is known (a few sweeps at most).
	moved := 0
	for deadline := time.Now().Add(5 * time.Second); ; {
		ok, _ := sw.renice(level, isCritical)
		moved += ok
		if n, _ := nice(plainTID); n == level || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if moved == 0 {
		t.Fatal("no thread reniced")
	}
	for _, c := range []struct {
		what string
		tid  int
		want int
	}{{"critical", tp.TID, critBefore}, {"self-named", namedTID, namedBefore}, {"plain", plainTID, level}} {
		if n, err := nice(c.tid); err != nil || n != c.want {
			t.Errorf("%s thread %d: nice %d (%v), want %d", c.what, c.tid, n, err, c.want)
		}
	}
	if tp.How != "not asked" {
		t.Errorf("critical thread %+v", tp)
	}
}

// freeNice is a background nice level above that of every thread of the
// process, so that a sweep to it (which only ever lowers a thread's
// priority) moves the threads a test starts, whatever thread the runtime
// cloned them from (a thread inherits its creator's nice). The tests
// move threads to their levels one after another, and under -count=N
// the levels would pass 18 (19 is TestGoRunsAtBackgroundNice's, and the
// kernel's ceiling): then every thread is brought back to nice 0 first,
// which takes CAP_SYS_NICE (root has it) or an RLIMIT_NICE that allows it.
func freeNice(t *testing.T) int {
	t.Helper()
	tids := func() []int {
		tasks, err := os.ReadDir("/proc/self/task")
		if err != nil {
			t.Fatal(err)
		}
		var tids []int
		for _, e := range tasks {
			if tid, err := strconv.Atoi(e.Name()); err == nil {
				tids = append(tids, tid)
			}
		}
		return tids
	}
	level := 7
	for _, tid := range tids() {
		if n, err := nice(tid); err == nil && n >= level {
			level = n + 1
		}
	}
	if level <= 18 {
		return level
	}
	for _, tid := range tids() {
		if n, err := nice(tid); err == nil && n > 0 {
			if err := unix.Setpriority(unix.PRIO_PROCESS, tid, 0); err != nil && err != unix.ESRCH {
				t.Fatalf("the threads' nice levels reached 19 and thread %d cannot be brought back to 0 (%v): run the test once per process without CAP_SYS_NICE", tid, err)
			}
		}
	}
	return 7
}

// Without CAP_SYS_NICE (dropped here for one thread, so this runs as root
// too) a critical thread is denied its raise, keeps the nice it had and
// says so.
func TestCriticalDeniedWithoutPrivilege(t *testing.T) {
	got := make(chan ThreadPriority)
	var before int
	go func() {
		runtime.LockOSThread() // this thread loses a capability: it must die with the goroutine
		before, _ = nice(unix.Gettid())
		dropCapSysNice(t)
		tp, unregister := Critical("denied", Config{CriticalNice: -5})
		unregister()
		got <- tp
	}()
	tp := <-got
	if tp.How != "denied" || tp.Nice != before || tp.Err == "" {
		t.Fatalf("without privilege: %+v, want denied at the nice it had (%d) with the error", tp, before)
	}
}

func TestCriticalRaisedWithPrivilege(t *testing.T) {
	if unix.Geteuid() != 0 {
		// Without root, the denied path is what this machine can show;
		// TestCriticalDeniedWithoutPrivilege covers it.
		got := make(chan ThreadPriority)
		go func() {
			tp, unregister := Critical("unprivileged", Config{CriticalNice: -5})
			unregister()
			got <- tp
		}()
		if tp := <-got; tp.How != "denied" && tp.How != "raised" {
			t.Fatalf("%+v", tp)
		}
		return
	}
	got := make(chan ThreadPriority)
	go func() {
		tp, unregister := Critical("raised", Config{CriticalNice: -5})
		unregister()
		got <- tp
	}()
	if tp := <-got; tp.How != "raised" || tp.Nice != -5 {
		t.Fatalf("as root: %+v, want raised to -5", tp)
	}
}

func TestGoRunsAtBackgroundNice(t *testing.T) {
	var n int
	var err error
	// 19: above any level the other tests moved threads to.
	<-Go(Config{BackgroundNice: 19}, func() { n, err = nice(unix.Gettid()) })
	if err != nil || n != 19 {
		t.Fatalf("nice %d (%v), want 19", n, err)
	}
}

func TestSweepDoesNotAllocate(t *testing.T) {
	level := freeNice(t)
	sw := sweeper{all: true}
	sw.renice(level, isCritical) // warm: the process's name, every thread moved
	if n := testing.AllocsPerRun(20, func() { sw.renice(level, isCritical) }); n != 0 {
		t.Fatalf("a sweep allocates %.1f times", n)
	}
}

// Only threads that were busy since the last sweep are moved: the
// runtime's own mostly idle threads keep their priority.
func TestSweepMovesOnlyBusyThreads(t *testing.T) {
	level := freeNice(t)
	stop := make(chan struct{})
	busy, idle := make(chan int, 1), make(chan int, 1)
	go func() {
		runtime.LockOSThread()
		busy <- unix.Gettid()
		for {
			select {
			case <-stop:
				return
			default:
			}
		}
	}()
	go func() {
		runtime.LockOSThread()
		idle <- unix.Gettid()
		<-stop
	}()
	busyTID, idleTID := <-busy, <-idle
	var sw sweeper
	sw.reniceBusy(level, isCritical, 0) // records CPU times
	// A loaded machine may give the busy thread less than 10 % of a CPU
	// over a short span: sweep a few times, a second apart.
	for try := 0; try < 5; try++ {
		start := time.Now()
		time.Sleep(time.Second)
		sw.reniceBusy(level, isCritical, time.Since(start).Seconds())
		if n, _ := nice(busyTID); n == level {
			break
		}
	}
	close(stop)
	if n, _ := nice(busyTID); n != level {
		t.Errorf("busy thread at nice %d, want %d", n, level)
	}
	if n, _ := nice(idleTID); n == level {
		t.Errorf("idle thread moved to nice %d", n)
	}
}
