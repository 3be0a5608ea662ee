package verify

import (
	"context"
	"testing"
	"time"

	"github.com/tickframe/tickframe/renderer/interp"
	"github.com/tickframe/tickframe/simthread"
	"github.com/tickframe/tickframe/simthread/refworld"
)

// testDuration keeps rows short: a second of warm-up, then two of
// measurement, the hash taken after the first of them.
const testDuration = MinDuration

func mustPattern(t *testing.T, s string) Pattern {
	t.Helper()
	p, err := ParsePattern(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// runOne runs and evaluates one cell with test options.
func runOne(t *testing.T, o Options, sim int, display string, mode Mode) Row {
	t.Helper()
	o.Sims = []int{sim}
	o.Duration = testDuration
	o = o.withDefaults()
	p := mustPattern(t, display)
	o.Displays = []Pattern{p}
	if err := o.validate(); err != nil {
		t.Fatal(err)
	}
	ref, err := reference(o.Bodies, o.Seed, sim, o.hashAt())
	if err != nil {
		t.Fatal(err)
	}
	row := runCell(&o, cell{sim, p, mode}, ref)
	evaluate(&row)
	return row
}

func check(t *testing.T, row *Row, name string) Check {
	t.Helper()
	for _, c := range row.Checks {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("%d Hz × %s %s: no %q check in %+v", row.Sim, row.Display, row.Mode, name, row.Checks)
	return Check{}
}

// failedOnly asserts that exactly the named checks failed.
func failedOnly(t *testing.T, row *Row, names string) {
	t.Helper()
	if got := failedNames(row); got != names {
		t.Errorf("%d Hz × %s %s: failed checks %q, want %q: %+v", row.Sim, row.Display, row.Mode, got, names, row.Checks)
	}
}

func TestPassingRow(t *testing.T) {
	row := runOne(t, Options{}, 60, "144", Interpolated)
	if !row.Pass {
		t.Fatalf("row failed: %+v", row.Checks)
	}
	for _, name := range []string{"hash", "ticks", "steps", "backwards", "frames", "pos", "anim"} {
		if c := check(t, &row, name); !c.OK {
			t.Errorf("%s: %s", name, c.Detail)
		}
	}
	if row.Hash != row.RefHash || !row.Hashed || row.HashTick != 60 {
		t.Errorf("hash %x after tick %d (hashed %v), reference %x", row.Hash, row.HashTick, row.Hashed, row.RefHash)
	}
	// 2 s measured at 144 Hz.
	if row.Frames < 280 || row.Frames > 290 {
		t.Errorf("%d frames measured, want 288", row.Frames)
	}
	if row.Ticks < 179 || row.Ticks > 180 {
		t.Errorf("%d ticks in 3 s at 60 Hz", row.Ticks)
	}
}

// TestBrokenInterpolationFails breaks interpolation on purpose: a renderer
// that always shows the older snapshot of the pair must fail its
// position error check, and the run must fail.
func TestBrokenInterpolationFails(t *testing.T) {
	o := Options{breakInterpolation: func(p *interp.Plan) { p.Alpha = 0 }}
	row := runOne(t, o, 60, "144", Interpolated)
	failedOnly(t, &row, "pos")
	if row.PosErr.P99 < 0.5 {
		t.Errorf("p99 position error %.4f ticks with alpha forced to 0: the meter missed it", row.PosErr.P99)
	}

	o.Sims, o.Displays, o.Duration = []int{60}, []Pattern{mustPattern(t, "144")}, testDuration
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Pass || res.Failed != 1 {
		t.Errorf("Run passed (%d failed) with broken interpolation", res.Failed)
	}
}

// TestHashCatchesChangedWorld feeds the Sim's world an input the
// reference never sees.
func TestHashCatchesChangedWorld(t *testing.T) {
	o := Options{tamper: func(tick uint64, in []simthread.Input) []simthread.Input {
		if tick == 7 {
			return append(in, simthread.Input{Kind: refworld.Kick, X: 0.001})
		}
		return in
	}}
	row := runOne(t, o, 60, "144", Interpolated)
	failedOnly(t, &row, "hash")
}

func TestBackwardsDetected(t *testing.T) {
	n := 0
	o := Options{breakInterpolation: func(p *interp.Plan) {
		n++
		if n%50 == 0 {
			p.SimTick -= 0.5
		}
	}}
	row := runOne(t, o, 60, "144", Interpolated)
	if c := check(t, &row, "backwards"); c.OK || row.Backwards == 0 {
		t.Errorf("displayed time went back half a tick every 50 frames, backwards check says %v: %s", c.OK, c.Detail)
	}
}

// TestTickAccounting runs the patterns that drop or stop time, checks that
// the accounting holds exactly, then doctors the rows to show that the
// check catches a tick too many or too few.
func TestTickAccounting(t *testing.T) {
	for _, tc := range []struct {
		sim     int
		display string
		want    func(r *Row) bool
	}{
		{120, "jitter", func(r *Row) bool { return r.DiscardedTicks == 0 && r.Clamped == 0 && r.Paused == 0 }},
		{60, "pause:144:1.5", func(r *Row) bool { return r.Paused > time.Second && check(t, r, "paused").OK }},
		{60, "overload", func(r *Row) bool { return r.DiscardedTicks > 0 && r.MostStepsPerWake == r.MaxSteps }},
		{30, "overload", func(r *Row) bool { return r.Clamped > 0 }},
	} {
		row := runOne(t, Options{}, tc.sim, tc.display, Interpolated)
		if !row.Pass || !tc.want(&row) {
			t.Errorf("%d Hz × %s: pass %v, %+v", tc.sim, tc.display, row.Pass, row)
			continue
		}
		step := simthread.Timing{Rate: tc.sim}.Step()
		for _, doctor := range []struct {
			name string
			f    func(r *Row)
		}{
			{"a tick more", func(r *Row) { r.Ticks++ }},
			{"a discarded tick less", func(r *Row) { r.Ticks--; r.DiscardedTicks++; r.Ticks-- }},
			{"a step of pause unaccounted", func(r *Row) { r.Paused += step }},
			{"a step clamped unaccounted", func(r *Row) { r.Clamped -= step }},
			{"ticks pending at the end", func(r *Row) { r.Pending = 2 }},
		} {
			bad := row
			bad.Checks = nil
			doctor.f(&bad)
			evaluate(&bad)
			if tc.display == "overload" && doctor.name == "ticks pending at the end" {
				// An overloaded wake outlasts a tick: pending ticks
				// are expected there.
				continue
			}
			if c := check(t, &bad, "ticks"); c.OK {
				t.Errorf("%d Hz × %s with %s: ticks check passed: %s", tc.sim, tc.display, doctor.name, c.Detail)
			}
		}
	}
}
