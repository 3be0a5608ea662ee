package sched

import (
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestGovernorRisesAtOnceAndFallsSlowly(t *testing.T) {
	old := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(old)
	cpus := runtime.NumCPU()
	g := &Governor{cfg: Config{Headroom: 2, MaxProcs: cpus + 10, FallAfter: time.Second}.withDefaults()}
	g.stats.Procs = runtime.GOMAXPROCS(0)
	t0 := time.Now()
	g.lastHigh = t0
	steps := []struct {
		at     time.Duration
		demand int
		want   int
	}{
		{0, cpus + 4, cpus + 6},                          // rises at once
		{100 * time.Millisecond, cpus + 1, cpus + 6},     // lower demand: holds
		{900 * time.Millisecond, cpus + 1, cpus + 6},     // still within FallAfter
		{1100 * time.Millisecond, cpus + 1, cpus + 5},    // falls one step
		{1200 * time.Millisecond, cpus + 1, cpus + 5},    // and waits again
		{2200 * time.Millisecond, cpus + 1, cpus + 4},    // another step
		{2300 * time.Millisecond, cpus + 100, cpus + 10}, // capped at MaxProcs
		{2400 * time.Millisecond, 0, cpus + 10},
	}
	for _, s := range steps {
		g.adjust(s.demand, t0.Add(s.at))
		if got := runtime.GOMAXPROCS(0); got != s.want || g.Stats().Procs != s.want {
			t.Fatalf("at %v, demand %d: GOMAXPROCS %d (stats %d), want %d", s.at, s.demand, got, g.Stats().Procs, s.want)
		}
	}
	if g.Want(0) != cpus {
		t.Errorf("Want(0) = %d, want the CPU count %d", g.Want(0), cpus)
	}
	if st := g.Stats(); st.MaxProcs != cpus+10 || st.Changes != 4 {
		t.Errorf("stats %+v", st)
	}
}

// The governor, started for real, raises GOMAXPROCS when busy goroutines
// hold every P.
func TestGovernorMakesRoomForBusyGoroutines(t *testing.T) {
	old := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(old)
	runtime.GOMAXPROCS(runtime.NumCPU())
	stop := make(chan struct{})
	busy := runtime.NumCPU() + 3
	done := make(chan struct{}, busy)
	for range busy {
		go func() {
			defer func() { done <- struct{}{} }()
			for x := 0; ; x++ {
				select {
				case <-stop:
					return
				default:
				}
			}
		}()
	}
	g, err := Start(Config{BackgroundNice: -1, Interval: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.GOMAXPROCS(0) < busy+2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	got := runtime.GOMAXPROCS(0)
	g.Stop()
	close(stop)
	for range busy {
		<-done
	}
	if got < busy+2 {
		t.Fatalf("GOMAXPROCS %d with %d busy goroutines, want at least %d", got, busy, busy+2)
	}
}

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

	// Each run a level above the last, so -count=N finds threads to move.
	reniceLevel++
	level := reniceLevel
	critBefore, _ := nice(tp.TID)
	namedBefore, _ := nice(namedTID)
	sw := sweeper{all: true}
	ok, _ := sw.renice(level, isCritical)
	if ok == 0 {
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

// reniceLevel is the nice level of the last renice test run.
var reniceLevel = 6

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

func TestSummarize(t *testing.T) {
	buckets := []float64{0, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2}
	counts := []uint64{50, 40, 9, 0, 1} // 100 samples
	s := summarize(counts, buckets)
	if s.Count != 100 || s.P50 != time.Microsecond || s.P99 != 100*time.Microsecond || s.Max != 10*time.Millisecond {
		t.Fatalf("%+v", s)
	}
	if s := summarize([]uint64{0, 0}, []float64{0, 1, 2}); s.Count != 0 || s.P99 != 0 {
		t.Fatalf("empty: %+v", s)
	}
}

func TestLatencyReadsTheRuntime(t *testing.T) {
	l := NewLatency()
	done := make(chan struct{})
	for range 100 {
		go func() { done <- struct{}{} }()
	}
	for range 100 {
		<-done
	}
	if s := l.Read(); s.Count == 0 || s.Max < s.P99 || s.P99 < s.P50 {
		t.Fatalf("after 100 goroutines: %+v", s)
	}
}

func TestValidate(t *testing.T) {
	for _, c := range []Config{{Headroom: -2}, {MaxProcs: -1}, {Interval: -1}, {CriticalNice: -21}, {BackgroundNice: 20}, {BackgroundNice: -2}} {
		if c.Validate() == nil {
			t.Errorf("%+v: no error", c)
		}
	}
	if err := (Config{}).Validate(); err != nil {
		t.Error(err)
	}
}

func TestSweepDoesNotAllocate(t *testing.T) {
	reniceLevel++
	level := reniceLevel
	sw := sweeper{all: true}
	sw.renice(level, isCritical) // warm: the process's name, every thread moved
	if n := testing.AllocsPerRun(20, func() { sw.renice(level, isCritical) }); n != 0 {
		t.Fatalf("a sweep allocates %.1f times", n)
	}
}

// Only threads that were busy since the last sweep are moved: the
// runtime's own mostly idle threads keep their priority.
func TestSweepMovesOnlyBusyThreads(t *testing.T) {
	reniceLevel++
	level := reniceLevel
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
