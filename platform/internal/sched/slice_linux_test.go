package sched

import (
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// A critical thread gets the time slice it asks for, read back from the
// kernel, without privilege (CAP_SYS_NICE dropped for the thread, which
// is then denied its nice value), and keeps the kernel's own when it asks
// none. Before Linux 6.12 there are no custom slices: it says so.
func TestCriticalSlice(t *testing.T) {
	custom := kernelAtLeast(t, 6, 12)
	for _, c := range []struct {
		name    string
		slice   time.Duration
		drop    bool
		want    string
		wantUS  float64 // 0: the kernel's default, anything positive
		wantHow string
	}{
		{"default", 0, false, "set", 300, ""},
		{"one ms", time.Millisecond, false, "set", 1000, ""},
		{"unprivileged", 200 * time.Microsecond, true, "set", 200, "denied"},
		{"not asked", -1, false, "not asked", 0, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := make(chan ThreadPriority)
			go func() {
				runtime.LockOSThread() // dies with the goroutine: its priority and capabilities go with it
				if c.drop {
					dropCapSysNice(t)
				}
				tp, unregister := Critical("slice-"+c.name, Config{CriticalNice: -3, CriticalSlice: c.slice})
				unregister()
				got <- tp
			}()
			tp := <-got
			if c.wantHow != "" && tp.How != c.wantHow {
				t.Errorf("nice: %+v, want %s", tp, c.wantHow)
			}
			if !custom {
				if c.want == "set" && tp.Slice != "unsupported" {
					t.Errorf("kernel before 6.12: %+v, want the slice unsupported", tp)
				}
				return
			}
			switch {
			case tp.Slice != c.want:
				t.Errorf("%+v: slice %q, want %q", tp, tp.Slice, c.want)
			case c.wantUS > 0 && tp.SliceUS != c.wantUS:
				t.Errorf("%+v: slice %v µs, want %v", tp, tp.SliceUS, c.wantUS)
			case c.wantUS == 0 && tp.SliceUS <= 0:
				t.Errorf("%+v: the kernel's default slice should read back positive", tp)
			}
		})
	}
}

// sysmonTID is the runtime's system monitor: checked against what only
// sysmon does. While goroutines keep the Ps busy it polls in nanosleep
// (every other idle thread of a Go process parks on a futex), and no
// goroutine ever runs on it. The sweep must leave it alone.
func TestSysmonFoundAndSpared(t *testing.T) {
	if sysmonTID <= 0 {
		t.Fatalf("sysmon not found (%d)", sysmonTID)
	}
	var stop atomic.Bool
	defer stop.Store(true)
	go func() { // one busy goroutine: the monitor preempts it every 10 ms
		for !stop.Load() {
		}
	}()
	// Goroutines' threads, gathered while the busy ones run.
	ran := map[int]bool{}
	for range 200 {
		tid := make(chan int)
		go func() { tid <- unix.Gettid() }()
		ran[<-tid] = true
	}
	if ran[sysmonTID] {
		t.Errorf("a goroutine ran on thread %d, taken for sysmon", sysmonTID)
	}
	// Which threads sit in nanosleep, over 100 samples.
	counts := map[int]int{}
	for range 100 {
		entries, err := os.ReadDir("/proc/self/task")
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			tid, _ := strconv.Atoi(e.Name())
			if nr, err := inSyscall(tid); err == nil && nr == unix.SYS_NANOSLEEP {
				counts[tid]++
			}
		}
		time.Sleep(time.Millisecond)
	}
	if counts[sysmonTID] < 50 {
		t.Errorf("thread %d, taken for sysmon, was in nanosleep in %d of 100 samples; threads in nanosleep: %v", sysmonTID, counts[sysmonTID], counts)
	}
	for tid, n := range counts {
		if tid != sysmonTID && n >= 50 {
			t.Errorf("thread %d was in nanosleep in %d of 100 samples too (sysmon taken to be %d)", tid, n, sysmonTID)
		}
	}

	before, err := nice(sysmonTID)
	if err != nil {
		t.Fatal(err)
	}
	sw := sweeper{all: true}
	if ok, _ := sw.renice(freeNice(t), isCritical); ok == 0 {
		t.Fatal("no thread reniced")
	}
	if n, _ := nice(sysmonTID); n != before {
		t.Errorf("sysmon moved from nice %d to %d", before, n)
	}
}

// By default the busy threads sit BackgroundGap nice levels below the
// least raised critical thread that asked for a priority.
func TestBackgroundNiceFollowsTheCriticalThreads(t *testing.T) {
	global.Lock()
	saved := global.critical
	global.Unlock()
	defer func() {
		global.Lock()
		global.critical = saved
		global.Unlock()
	}()
	for _, c := range []struct {
		name     string
		critical []ThreadPriority
		cfg      Config
		want     int
	}{
		{"none registered", nil, Config{}, 10},
		{"root", []ThreadPriority{{Nice: -10, How: "raised"}, {Nice: -5, How: "raised"}}, Config{}, 5},
		{"unprivileged", []ThreadPriority{{Nice: 0, How: "denied"}, {Nice: 0, How: "denied"}}, Config{}, 10},
		{"not asked ignored", []ThreadPriority{{Nice: -10, How: "raised"}, {Nice: 0, How: "not asked"}}, Config{}, 1},
		{"already low", []ThreadPriority{{Nice: 15, How: "denied"}}, Config{}, 19},
		{"set", []ThreadPriority{{Nice: -5, How: "raised"}}, Config{BackgroundNice: 12}, 12},
		{"off", nil, Config{BackgroundNice: -1}, -1},
		{"all real-time", []ThreadPriority{{Nice: -10, How: "raised", RT: "set"}, {Nice: -5, How: "raised", RT: "set"}}, Config{}, -1},
		{"one real-time", []ThreadPriority{{Nice: -10, How: "raised", RT: "set"}, {Nice: -5, How: "raised", RT: "denied"}}, Config{}, 5},
	} {
		global.Lock()
		global.critical = map[int]ThreadPriority{}
		for i, tp := range c.critical {
			global.critical[i+1] = tp
		}
		global.Unlock()
		if got := c.cfg.backgroundNice(); got != c.want {
			t.Errorf("%s: background nice %d, want %d", c.name, got, c.want)
		}
	}
}

// Real-time scheduling is granted with privilege (root here) and read
// back from the kernel; without CAP_SYS_NICE (dropped for the thread) and
// with RLIMIT_RTPRIO 0 it is denied and the thread stays an ordinary one.
// Threads the critical thread starts afterwards inherit the policy.
func TestCriticalRealtime(t *testing.T) {
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_RTPRIO, &lim); err != nil {
		t.Fatal(err)
	}
	for _, drop := range []bool{false, true} {
		type result struct {
			tp    ThreadPriority
			child *unix.SchedAttr
		}
		got := make(chan result)
		go func() {
			runtime.LockOSThread() // dies with the goroutine, policy and all
			if drop {
				dropCapSysNice(t)
			}
			tp, unregister := Critical("rt", Config{CriticalNice: 1, CriticalRT: 7})
			unregister()
			// A thread started from this one, as a driver's would be: the
			// clone is this thread's own, not Go's (which would hand it
			// to the template thread), so read the kernel's view of the
			// policy a fork from here gets.
			attr, _ := unix.SchedGetAttr(0, 0)
			got <- result{tp, attr}
		}()
		r := <-got
		privileged := !drop && unix.Geteuid() == 0 || lim.Cur >= 7
		switch {
		case privileged && (r.tp.RT != "set" || r.tp.RTPriority != 7):
			t.Errorf("privileged: %+v, want SCHED_RR 7 set", r.tp)
		case !privileged && (r.tp.RT != "denied" || r.tp.RTPriority != 0 || r.tp.RTErr == ""):
			t.Errorf("without privilege: %+v, want denied, an ordinary thread, and why", r.tp)
		case privileged && (r.child == nil || r.child.Policy != unix.SCHED_RR || r.child.Flags&unix.SCHED_FLAG_RESET_ON_FORK != 0):
			t.Errorf("privileged: the thread's policy %+v would not pass to the threads it starts", r.child)
		}
	}
}

// A busy thread of the process found at the design's real-time policy
// (SCHED_RR at a critical thread's priority, as the threads a critical
// thread starts inherit it) is made ordinary at the background nice by
// the sweep; a real-time policy the design did not set (SCHED_RR at
// another priority, SCHED_FIFO) is left alone, and ordinary threads are
// left to the renice.
func TestSweepMakesOnlyTheDesignsRealtimeThreadsOrdinary(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	type thread struct {
		tid int
		err error
	}
	start := func(policy uint32, prio uint32) thread {
		ch := make(chan thread)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread dies with the goroutine
			var err error
			if policy != unix.SCHED_NORMAL {
				err = unix.SchedSetAttr(0, &unix.SchedAttr{Policy: policy, Priority: prio}, 0)
			}
			ch <- thread{unix.Gettid(), err}
			<-release
		}()
		return <-ch
	}
	plain := start(unix.SCHED_NORMAL, 0)
	var sw sweeper
	if rt, _ := sw.ordinary(plain.tid, 12); rt {
		t.Errorf("an ordinary thread %d taken for a real-time one", plain.tid)
	}
	inherited := start(unix.SCHED_RR, 3)
	if inherited.err != nil {
		if unix.Geteuid() == 0 {
			t.Fatalf("as root, SCHED_RR refused: %v", inherited.err)
		}
		return // no thread can be real-time here, so the sweep never meets one
	}
	otherRR, fifo := start(unix.SCHED_RR, 4), start(unix.SCHED_FIFO, 3)
	// The critical thread whose SCHED_RR 3 the first one inherited.
	global.Lock()
	if global.critical == nil {
		global.critical = map[int]ThreadPriority{}
	}
	global.critical[-1] = ThreadPriority{Name: "rt-parent", TID: -1, RT: "set", RTPriority: 3}
	global.Unlock()
	defer func() {
		global.Lock()
		delete(global.critical, -1)
		global.Unlock()
	}()
	level := freeNice(t)
	sw.all = true
	// The sweep touches only threads it knows carry Go code (blocked in a
	// system call made from Go, or seen by two sweeps among the runtime's
	// own): the threads may still be on their way into their receive at
	// the first one, so sweep until the inherited one is moved.
	for deadline := time.Now().Add(5 * time.Second); ; {
		sw.renice(level, isCritical)
		if attr, err := unix.SchedGetAttr(inherited.tid, 0); err != nil || attr.Policy == unix.SCHED_NORMAL || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, c := range []struct {
		what         string
		tid          int
		policy, prio uint32
		nice         int32
	}{
		{"inherited SCHED_RR 3", inherited.tid, unix.SCHED_NORMAL, 0, int32(level)},
		{"the app's SCHED_RR 4", otherRR.tid, unix.SCHED_RR, 4, 0},
		{"the app's SCHED_FIFO 3", fifo.tid, unix.SCHED_FIFO, 3, 0},
	} {
		attr, err := unix.SchedGetAttr(c.tid, 0)
		if err != nil {
			t.Fatal(err)
		}
		if attr.Policy != c.policy || attr.Priority != c.prio || attr.Nice != c.nice {
			t.Errorf("%s after the sweep: policy %d priority %d nice %d, want %d %d %d", c.what, attr.Policy, attr.Priority, attr.Nice, c.policy, c.prio, c.nice)
		}
	}
}

// allocProcs is above any GOMAXPROCS this test binary set before, so that
// each run of the test grows the runtime's P array anew.
var allocProcs = 100

// Growing GOMAXPROCS to a count never reached allocates the new Ps'
// state; the governor counts those allocations apart (Stats.Allocs), so
// that the application's own stay visible. Checked against the runtime's
// counter read around the change.
func TestGovernorCountsItsAllocations(t *testing.T) {
	old := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(old)
	allocProcs += 10
	g := &Governor{cfg: Config{Headroom: 2, MaxProcs: allocProcs}.withDefaults()}
	g.allocs[0].Name = "/gc/heap/allocs:objects"
	g.stats.Procs = runtime.GOMAXPROCS(0)
	outer := []metrics.Sample{{Name: "/gc/heap/allocs:objects"}}
	metrics.Read(outer)
	before := outer[0].Value.Uint64()
	g.adjust(allocProcs, time.Now())
	metrics.Read(outer)
	total := outer[0].Value.Uint64() - before
	st := g.Stats()
	if st.Procs != allocProcs {
		t.Fatalf("GOMAXPROCS %d, want %d", st.Procs, allocProcs)
	}
	if st.Allocs == 0 || st.Allocs > total {
		t.Errorf("governor counted %d allocations for 10 new Ps; the runtime counted %d around the change", st.Allocs, total)
	}
	g.adjust(allocProcs, time.Now()) // no change: nothing more counted
	if g.Stats().Allocs != st.Allocs {
		t.Errorf("allocations counted without a change: %d then %d", st.Allocs, g.Stats().Allocs)
	}
}
