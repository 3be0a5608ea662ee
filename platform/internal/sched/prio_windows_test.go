package sched

import (
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// priorityOf reads thread tid's priority level from another thread, as
// any observer in the process could.
func priorityOf(t *testing.T, tid int) int {
	t.Helper()
	h, err := windows.OpenThread(windows.THREAD_QUERY_LIMITED_INFORMATION, false, uint32(tid))
	if err != nil {
		t.Fatalf("OpenThread %d: %v", tid, err)
	}
	defer windows.CloseHandle(h)
	l, err := getPriority(h)
	if err != nil {
		t.Fatalf("GetThreadPriority %d: %v", tid, err)
	}
	return l
}

func TestCriticalRaisedOnWindows(t *testing.T) {
	for _, c := range []struct {
		nice int
		want int
	}{{-10, threadPriorityHighest}, {-5, threadPriorityAboveNormal}} {
		got := make(chan ThreadPriority)
		release := make(chan struct{})
		go func() {
			tp, unregister := Critical("test", Config{CriticalNice: c.nice})
			defer unregister()
			got <- tp
			<-release
		}()
		tp := <-got
		level := priorityOf(t, tp.TID)
		close(release)
		if tp.How != "mmcss" && tp.How != "raised" || underWine && tp.How != "raised" {
			t.Fatalf("nice %d: %+v, want mmcss or raised (raised under Wine, whose MMCSS is a stub)", c.nice, tp)
		}
		if level != c.want {
			t.Fatalf("nice %d: thread at %s, want %s", c.nice, levelName(level), levelName(c.want))
		}
		native := Native(tp.TID)
		if !strings.Contains(native, "GetThreadPriority "+levelName(c.want)) || (tp.How == "mmcss") != strings.Contains(native, "MMCSS task Games") {
			t.Fatalf("nice %d: how %q, native %q", c.nice, tp.How, native)
		}
		if underWine && !strings.Contains(native, "host thread nice ") {
			t.Fatalf("nice %d under Wine: native %q says nothing of the host thread", c.nice, native)
		}
		if tp.Nice != 0 || tp.Slice != "unsupported" || tp.RT != "" {
			t.Fatalf("a Linux lever reported on Windows: %+v", tp)
		}
		t.Logf("nice %d: how %s, %s", c.nice, tp.How, native)
	}
}

func TestCriticalNotAskedOnWindows(t *testing.T) {
	got := make(chan ThreadPriority)
	go func() {
		tp, unregister := Critical("plain", Config{CriticalNice: 1})
		unregister()
		got <- tp
	}()
	if tp := <-got; tp.How != "not asked" || !strings.Contains(Native(tp.TID), "THREAD_PRIORITY_NORMAL") {
		t.Fatalf("%+v, %q", tp, Native(tp.TID))
	}
}

func TestGoRunsBelowNormal(t *testing.T) {
	var level int
	var err error
	<-Go(Config{}, func() { level, err = getPriority(currentThread) })
	if err != nil || level != threadPriorityBelowNormal {
		t.Fatalf("sched.Go's thread at %s (%v), want THREAD_PRIORITY_BELOW_NORMAL", levelName(level), err)
	}
	if s := BackgroundPriority(Config{}.withDefaults().backgroundNice()); s != "THREAD_PRIORITY_BELOW_NORMAL" {
		t.Fatalf("BackgroundPriority %q", s)
	}
	if s := BackgroundPriority(-1); s != "" {
		t.Fatalf("BackgroundPriority(-1) %q, want none", s)
	}
}

// The sweep moves busy Go threads and spares idle ones, critical ones and
// threads that started outside the Go runtime (a driver's).
func TestSweepLowersBusyGoThreadsOnly(t *testing.T) {
	stop := make(chan struct{})
	defer close(stop)
	busy, idle := make(chan int, 1), make(chan int, 1)
	go func() {
		runtime.LockOSThread()
		busy <- int(windows.GetCurrentThreadId())
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
		idle <- int(windows.GetCurrentThreadId())
		<-stop
	}()
	busyTID, idleTID := <-busy, <-idle
	var sw sweeper
	sw.reniceBusy(BackgroundGap, isCritical, 0) // records CPU times
	for try := 0; try < 5 && priorityOf(t, busyTID) != threadPriorityBelowNormal; try++ {
		start := time.Now()
		time.Sleep(500 * time.Millisecond)
		sw.reniceBusy(BackgroundGap, isCritical, time.Since(start).Seconds())
	}
	if l := priorityOf(t, busyTID); l != threadPriorityBelowNormal {
		t.Errorf("busy thread at %s, want THREAD_PRIORITY_BELOW_NORMAL", levelName(l))
	}
	if l := priorityOf(t, idleTID); l != threadPriorityNormal {
		t.Errorf("idle thread moved to %s", levelName(l))
	}
}

func TestSweepSparesForeignAndCriticalThreads(t *testing.T) {
	// A thread that starts in kernel32's Sleep(INFINITE), as a driver's
	// worker starts in its DLL.
	var tid uint32
	sleep := kernel32.NewProc("Sleep")
	h, _, err := syscall.SyscallN(kernel32.NewProc("CreateThread").Addr(), 0, 0, sleep.Addr(), uintptr(windows.INFINITE), 0, uintptr(unsafe.Pointer(&tid)))
	if h == 0 {
		t.Fatalf("CreateThread: %v", err)
	}
	defer func() {
		syscall.SyscallN(kernel32.NewProc("TerminateThread").Addr(), h, 0)
		windows.CloseHandle(windows.Handle(h))
	}()
	// And one that the C runtime started (_beginthreadex), as the workers
	// of a driver built against the shared CRT start: in msvcrt's (or
	// ucrtbase's) thread start routine, where the sweep took every
	// thread for the Go runtime's.
	var crtTID uint32
	crt := windows.NewLazySystemDLL("msvcrt.dll")
	ch, _, err := syscall.SyscallN(crt.NewProc("_beginthreadex").Addr(), 0, 0, sleep.Addr(), uintptr(windows.INFINITE), 0, uintptr(unsafe.Pointer(&crtTID)))
	if ch == 0 {
		t.Fatalf("_beginthreadex: %v", err)
	}
	defer func() {
		syscall.SyscallN(kernel32.NewProc("TerminateThread").Addr(), ch, 0)
		windows.CloseHandle(windows.Handle(ch))
	}()
	critical := make(chan ThreadPriority)
	release := make(chan struct{})
	defer close(release)
	go func() {
		tp, unregister := Critical("test-critical", Config{CriticalNice: 1})
		defer unregister()
		critical <- tp
		<-release
	}()
	tp := <-critical
	plain := make(chan int)
	go func() {
		runtime.LockOSThread()
		plain <- int(windows.GetCurrentThreadId())
		<-release
	}()
	plainTID := <-plain
	sw := sweeper{}
	if ok, _ := sw.renice(BackgroundGap+1, isCritical); ok == 0 {
		t.Fatal("no thread lowered")
	}
	for _, c := range []struct {
		what string
		tid  int
		want int
	}{{"foreign", int(tid), threadPriorityNormal}, {"started by the C runtime", int(crtTID), threadPriorityNormal}, {"critical", tp.TID, threadPriorityNormal}, {"plain", plainTID, threadPriorityLowest}} {
		if l := priorityOf(t, c.tid); l != c.want {
			t.Errorf("%s thread %d at %s, want %s", c.what, c.tid, levelName(l), levelName(c.want))
		}
	}
}

func TestWindowsSweepDoesNotAllocate(t *testing.T) {
	var sw sweeper
	sw.reniceBusy(BackgroundGap, isCritical, 0.25)
	if n := testing.AllocsPerRun(10, func() { sw.reniceBusy(BackgroundGap, isCritical, 0.25) }); n != 0 {
		t.Fatalf("a sweep allocates %.1f times", n)
	}
}

// The main thread runs Go code (goroutines run on it as on any other of
// the runtime's threads), so the sweep must know its start, the
// executable's entry point, whichever threads it learned from: one that
// learned only from threads the runtime started left a plain goroutine
// that ran on the main thread at its priority (2 runs in 30 under Wine).
func TestSweepKnowsTheMainThread(t *testing.T) {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer windows.CloseHandle(snap)
	// The main thread is the process's oldest: it never exits in a Go
	// program.
	var mainTID uint32
	var oldest int64
	pid := windows.GetCurrentProcessId()
	e := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	for err := windows.Thread32First(snap, &e); err == nil; err = windows.Thread32Next(snap, &e) {
		if e.OwnerProcessID != pid {
			continue
		}
		h, err := windows.OpenThread(windows.THREAD_QUERY_INFORMATION, false, e.ThreadID)
		if err != nil {
			continue
		}
		var c, x, k, u windows.Filetime
		if r, _, _ := syscall.SyscallN(procGetThreadTimes.Addr(), uintptr(h), uintptr(unsafe.Pointer(&c)), uintptr(unsafe.Pointer(&x)),
			uintptr(unsafe.Pointer(&k)), uintptr(unsafe.Pointer(&u))); r != 0 && (mainTID == 0 || ticks(c) < oldest) {
			mainTID, oldest = e.ThreadID, ticks(c)
		}
		windows.CloseHandle(h)
	}
	if mainTID == 0 {
		t.Fatal("no thread of the process found")
	}
	h, err := windows.OpenThread(windows.THREAD_QUERY_INFORMATION, false, mainTID)
	if err != nil {
		t.Fatal(err)
	}
	defer windows.CloseHandle(h)
	var sw sweeper
	sw.init()
	if start := startAddress(h); start == 0 {
		t.Fatalf("main thread %d: its start address cannot be read", mainTID)
	} else if !sw.ours(h) {
		t.Errorf("main thread %d (start %#x) taken for a foreign thread; the sweep knows %#x", mainTID, start, sw.goStarts[:sw.nStarts])
	}
}
