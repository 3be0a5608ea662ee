//go:build unix

package tickframe

// SIGSTOP and SIGCONT, which Windows has no counterpart of: a process
// there cannot be frozen whole from outside.

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestStop freezes the process with SIGSTOP for 3 s: the simulation must
// not replay the gap, and must count the time it did not catch up.
func TestStop(t *testing.T) {
	t.Parallel() // a functional run: beside another (main_test.go)
	needDisplay(t)
	dir := t.TempDir()
	p := start(t, opts{dir: dir}, withSmall("-refresh", "60", "-duration", "6s", "-report", "r.json")...)
	time.Sleep(2 * time.Second)
	p.signal(syscall.SIGSTOP)
	time.Sleep(3 * time.Second)
	p.signal(syscall.SIGCONT)
	wantOK(t, p.wait())
	rep, _ := readReport(t, filepath.Join(dir, "r.json"))
	if fi := measured(t, "frame_interval_ms", rep.FrameIntervalMs); fi.Max < 2500 {
		t.Fatalf("longest frame interval %v ms: the stop did not fall within the run", fi.Max)
	}
	checkMaxSteps(t, rep, 8)
	if rep.ClampedS < 2.5 && rep.DiscardedTicks == 0 {
		t.Errorf("clamped_s %v, discarded_ticks %d: a 3 s stop must be counted as time not caught up", rep.ClampedS, rep.DiscardedTicks)
	}
	// MaxDelta (250 ms) is caught up at most 8 steps at a time; the rest
	// of the stop is clamped or discarded.
	if lost := rep.ClampedS + rep.DiscardedS; lost < 2.5 {
		t.Errorf("clamped %.3f s + discarded %.3f s = %.3f s for a 3 s stop, want ≥ 2.5 s", rep.ClampedS, rep.DiscardedS, lost)
	}
	checkTickAccount(t, rep, 0)
}
