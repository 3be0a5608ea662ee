package sched

import (
	"runtime"
	"testing"
	"time"
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
	if after := runtime.GOMAXPROCS(0); after != runtime.NumCPU() {
		t.Errorf("GOMAXPROCS %d after Stop, %d at Start: not put back", after, runtime.NumCPU())
	}
	close(stop)
	for range busy {
		<-done
	}
	if got < busy+2 {
		t.Fatalf("GOMAXPROCS %d with %d busy goroutines, want at least %d", got, busy, busy+2)
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
