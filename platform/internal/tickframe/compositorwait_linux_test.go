package tickframe

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// sampleWaits samples, every 2 ms until the returned stop is called, how
// long each thread of every process named comm has waited for a CPU
// (runnable, not running: the second figure of its schedstat, the
// kernel's own account), and stop returns the longest stretch any of
// them spent waiting. It is how late a compositor that reads its clock
// when it runs (Weston's x11 backend stamps a frame's presentation when a
// timer fires, 10 ms after its repaint, with no hardware clock) may have
// stamped a frame that was already on the screen.
//
// A stretch is a run of samples in which the thread waited at least half
// the time between them; the intervals either side count whole, so the
// figure bounds the wait from above by at most two sampling intervals.
func sampleWaits(comm string) (stop func() time.Duration) {
	type task struct {
		at      time.Time
		delay   time.Duration
		stretch time.Duration
	}
	quit, done := make(chan struct{}), make(chan time.Duration)
	go func() {
		tasks := map[string]*task{}
		var longest time.Duration
		var paths []string
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for n := 0; ; n++ {
			select {
			case <-quit:
				done <- longest
				return
			case <-tick.C:
			}
			if n%25 == 0 { // every 50 ms: the compositor's threads now
				paths = threadStats(comm)
			}
			for _, p := range paths {
				d, ok := runDelay(p)
				if !ok {
					continue
				}
				now := time.Now()
				t := tasks[p]
				if t == nil {
					tasks[p] = &task{at: now, delay: d}
					continue
				}
				waited, dt := d-t.delay, now.Sub(t.at)
				if waited >= dt/2 {
					t.stretch += waited
				} else {
					t.stretch = waited // a wait may start here
				}
				longest = max(longest, t.stretch)
				t.at, t.delay = now, d
			}
		}
	}()
	return func() time.Duration {
		close(quit)
		return <-done
	}
}

// threadStats lists the schedstat files of every thread of every
// process named comm.
func threadStats(comm string) []string {
	procs, _ := filepath.Glob("/proc/[0-9]*/comm")
	var out []string
	for _, c := range procs {
		b, err := os.ReadFile(c)
		if err != nil || string(bytes.TrimSpace(b)) != comm {
			continue
		}
		ts, _ := filepath.Glob(filepath.Join(filepath.Dir(c), "task", "*", "schedstat"))
		out = append(out, ts...)
	}
	return out
}

// runDelay reads a schedstat file's run_delay (ns).
func runDelay(path string) (time.Duration, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	f := bytes.Fields(b)
	if len(f) < 2 {
		return 0, false
	}
	v, err := strconv.ParseInt(string(f[1]), 10, 64)
	return time.Duration(v), err == nil
}
