//go:build cgo

package sched

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tickframe/tickframe/platform/internal/sched/internal/cthread"
	"golang.org/x/sys/unix"
)

// policyOf reads a thread's policy, real-time priority and nice value
// from the kernel.
func policyOf(t *testing.T, tid int) (policy, prio uint32, n int) {
	t.Helper()
	attr, err := unix.SchedGetAttr(tid, 0)
	if err != nil {
		t.Fatalf("sched_getattr %d: %v", tid, err)
	}
	n, err = nice(tid)
	if err != nil {
		t.Fatalf("nice %d: %v", tid, err)
	}
	return attr.Policy, attr.Priority, n
}

// Threads a C library starts (here two, working 2 ms every 20 ms like an
// audio mixer, one of them SCHED_FIFO 20 as audio threads ask for) keep
// their policy and nice through the governor's sweeps beside busy
// goroutines, whose threads the same sweeps do move; registered as
// background, a C thread is moved like Go's; registered critical, it is
// raised.
func TestSweepLeavesForeignThreadsAlone(t *testing.T) {
	if unix.Geteuid() != 0 {
		t.Fatal("needs root, to start the SCHED_FIFO thread an audio library would (make test runs as root)")
	}
	plain, err := cthread.Start(cthread.Other, 0, 2*time.Millisecond, 20*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Stop()
	fifo, err := cthread.Start(cthread.FIFO, 20, 2*time.Millisecond, 20*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer fifo.Stop()
	type want struct {
		what         string
		tid          int
		policy, prio uint32
		nice         int
	}
	var threads []want
	for _, c := range []struct {
		what string
		th   *cthread.Thread
	}{{"plain C thread", plain}, {"SCHED_FIFO 20 C thread", fifo}} {
		p, prio, n := policyOf(t, c.th.TID)
		threads = append(threads, want{c.what, c.th.TID, p, prio, n})
	}
	if threads[1].policy != unix.SCHED_FIFO || threads[1].prio != 20 {
		t.Fatalf("the FIFO thread started as policy %d priority %d", threads[1].policy, threads[1].prio)
	}

	// The stress: busy goroutines, uncooperative and allocating.
	var stop atomic.Bool
	done := make(chan struct{})
	const busy = 4
	for i := 0; i < busy; i++ {
		go func() {
			defer func() { done <- struct{}{} }()
			var sink []byte
			for n := 0; !stop.Load(); n++ {
				if i == 0 && n%1024 == 0 {
					sink = make([]byte, 4096)
				}
			}
			_ = sink
		}()
	}
	defer func() {
		stop.Store(true)
		for i := 0; i < busy; i++ {
			<-done
		}
	}()
	procs := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(procs)
	// A level no thread has yet (threads the other tests started may be
	// ones this test moves).
	level := freeNice(t)
	g, err := Start(Config{SweepEvery: 50 * time.Millisecond, BackgroundNice: level})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	deadline := start.Add(10 * time.Second)
	for time.Now().Before(deadline) && g.Stats().Reniced < busy {
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("%d threads moved after %v of sweeps", g.Stats().Reniced, time.Since(start).Round(10*time.Millisecond))
	time.Sleep(time.Second) // twenty more sweeps
	if st := g.Stats(); st.Reniced == 0 {
		t.Errorf("the sweeps moved none of the busy goroutines' threads (%+v): the test shows nothing", st)
	}
	for _, w := range threads {
		if p, prio, n := policyOf(t, w.tid); p != w.policy || prio != w.prio || n != w.nice {
			t.Errorf("%s %d after the sweeps: policy %d priority %d nice %d, want %d %d %d as it started", w.what, w.tid, p, prio, n, w.policy, w.prio, w.nice)
		}
	}

	// Registered, the plain one is moved when busy, as Go's threads are.
	unregister := BackgroundThread(plain.TID)
	defer unregister()
	for time.Now().Before(deadline) {
		if _, _, n := policyOf(t, plain.TID); n == level {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	g.Stop()
	if p, _, n := policyOf(t, plain.TID); p != unix.SCHED_NORMAL || n != level {
		t.Errorf("registered background C thread: policy %d nice %d, want moved to nice %d", p, n, level)
	}
	if p, prio, _ := policyOf(t, fifo.TID); p != unix.SCHED_FIFO || prio != 20 {
		t.Errorf("SCHED_FIFO 20 C thread after the sweeps: policy %d priority %d", p, prio)
	}

	// Registered critical, a C thread is raised like Go's critical ones.
	tp, unregisterCrit := CriticalThread("c-critical", plain.TID, Config{CriticalNice: -7, CriticalSlice: -1})
	unregisterCrit()
	if _, _, n := policyOf(t, plain.TID); tp.How != "raised" || tp.Nice != -7 || n != -7 {
		t.Errorf("C thread registered critical: %+v, kernel says nice %d, want raised to -7", tp, n)
	}
}
