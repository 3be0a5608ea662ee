package verify

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/tickframe/tickframe/platform/internal/refworld"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/simthread"
	"github.com/tickframe/tickframe/sync/waitfree"
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

// runOne runs and evaluates one cell with test options (interpolated
// rows in the lerp motion mode).
func runOne(t *testing.T, o Options, sim int, display string, mode Mode) Row {
	t.Helper()
	return runMotion(t, o, sim, display, mode, renderer.MotionLerp)
}

// runMotion is runOne in a motion mode.
func runMotion(t *testing.T, o Options, sim int, display string, mode Mode, motion renderer.MotionMode) Row {
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
	row := runCell(&o, cell{sim: sim, disp: p, mode: mode, motion: motion}, ref)
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
	for _, name := range []string{"hash", "ticks", "steps", "backwards", "counted", "measured", "clamps", "pos", "anim", "pos max", "anim max"} {
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
// position error checks, and the run must fail.
func TestBrokenInterpolationFails(t *testing.T) {
	o := Options{breakInterpolation: func() planEdit { return func(_ time.Duration, p *renderer.Plan, _ held) { p.Alpha = 0 } }}
	row := runOne(t, o, 60, "144", Interpolated)
	failedOnly(t, &row, "pos,pos max")
	if row.PosErr.P99 < 0.5 {
		t.Errorf("p99 position error %.4f ticks with alpha forced to 0: the meter missed it", row.PosErr.P99)
	}

	o.Sims, o.Displays, o.Duration = []int{60}, []Pattern{mustPattern(t, "144")}, testDuration
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	// The lerp and the hermite rows; extrapolate has no alpha to break.
	if res.Pass || res.Failed != 2 {
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
	o := Options{breakInterpolation: func() planEdit {
		return func(_ time.Duration, p *renderer.Plan, _ held) {
			n++
			if n%50 == 0 {
				p.SimTick -= 0.5
			}
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

// realRows are rows the real planner passes, on which every deliberately
// broken renderer must fail: a slow, a fast and an irregular display, a
// hitch and a pause, at a low, a middling and a high simulation rate.
var realRows = []struct {
	sim     int
	display string
}{
	{30, "60"},
	{60, "144"},
	{120, "vrr"},
	{240, "hitch"},
	{500, "pause:144:0.5"},
}

// TestLiesFail runs each deliberately broken renderer on rows the real
// planner passes: every row must fail, and so must Run.
func TestLiesFail(t *testing.T) {
	for _, tc := range realRows {
		row := runOne(t, Options{}, tc.sim, tc.display, Interpolated)
		if !row.Pass {
			t.Errorf("real planner, %d Hz × %s: failed %s", tc.sim, tc.display, failedNames(&row))
		}
	}
	for _, name := range Lies() {
		t.Run(name, func(t *testing.T) {
			o := Options{breakInterpolation: lies[name], broken: name}
			for _, tc := range realRows {
				row := runOne(t, o, tc.sim, tc.display, Interpolated)
				if row.Pass {
					t.Errorf("%d Hz × %s passed: %+v", tc.sim, tc.display, row.Checks)
				}
			}
			o.Sims, o.Displays, o.Duration = []int{60}, []Pattern{mustPattern(t, "144")}, testDuration
			res, err := Run(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			if res.Pass || res.Broken != name {
				t.Errorf("Run passed (broken %q)", res.Broken)
			}
		})
	}
}

// TestRareLieCaughtByMax: the wrong pair once a second touches too few
// frames for every p99 to see, but not the maximum.
func TestRareLieCaughtByMax(t *testing.T) {
	row := runOne(t, Options{breakInterpolation: lies["wrong-pair"]}, 60, "500", Interpolated)
	if c := check(t, &row, "pos"); !c.OK {
		t.Errorf("the p99 saw the wrong pair after all (%s): pick a display where it does not", c.Detail)
	}
	if c := check(t, &row, "pos max"); c.OK {
		t.Errorf("pos max passed with the wrong pair once a second: %s", c.Detail)
	}
}

// TestLieMechanics checks that the broken renderers do what they claim on
// a real history.
func TestLieMechanics(t *testing.T) {
	var plans []renderer.Plan
	edits := make(map[string]planEdit)
	for _, name := range Lies() {
		edits[name] = lies[name]()
	}
	o := Options{breakInterpolation: func() planEdit {
		return func(f time.Duration, p *renderer.Plan, h held) {
			if !p.Ready || f < warmup() {
				return
			}
			real := *p
			for _, name := range Lies() {
				q := real
				edits[name](f, &q, h)
				switch name {
				case "alpha-late":
					if len(plans) > 0 && q.Alpha != plans[len(plans)-1].Alpha {
						t.Fatalf("alpha-late at %v: alpha %v, the last frame's %v", f, q.Alpha, plans[len(plans)-1].Alpha)
					}
				case "zero-delay":
					if q.Delay != 0 || q.RenderTime != f || !q.Late {
						t.Fatalf("zero-delay at %v: delay %v, render time %v, late %v", f, q.Delay, q.RenderTime, q.Late)
					}
				case "upload-off":
					if q.NextSeq != real.NextSeq || (real.NextSeq > 1 && q.Next.Tick >= real.Next.Tick) {
						t.Fatalf("upload-off at %v: next tick %d seq %d, real %d seq %d", f, q.Next.Tick, q.NextSeq, real.Next.Tick, real.NextSeq)
					}
				case "wrong-pair":
					if q.NextSeq != real.NextSeq && (q.NextSeq != real.NextSeq-1 || q.Prev.Tick >= real.Prev.Tick) {
						t.Fatalf("wrong-pair at %v: seq %d, real %d", f, q.NextSeq, real.NextSeq)
					}
				}
			}
			plans = append(plans, real)
		}
	}}
	row := runOne(t, o, 60, "144", Interpolated)
	if !row.Pass || len(plans) < 280 {
		t.Errorf("%d plans; the row failed %s", len(plans), failedNames(&row))
	}
}

// TestEvaluateDoctored feeds evaluate rows doctored from a real one, to
// show that each new check catches what it is for.
func TestEvaluateDoctored(t *testing.T) {
	good := runOne(t, Options{}, 120, "144", Interpolated)
	hitch := runOne(t, Options{}, 120, "hitch", Interpolated)
	if !good.Pass || !hitch.Pass || hitch.Stalls == 0 {
		t.Fatalf("real rows: %s; %s (%d stalls)", failedNames(&good), failedNames(&hitch), hitch.Stalls)
	}
	for _, tc := range []struct {
		name   string
		row    Row
		doctor func(r *Row)
		fails  string
	}{
		{"a meter that skips everything", good, func(r *Row) { r.Skipped += r.PosSamples; r.PosSamples = 0 }, "measured"},
		{"a meter that skips a tenth", good, func(r *Row) { r.Skipped += r.PosSamples / 10; r.PosSamples -= r.PosSamples / 10 }, "measured"},
		{"a frame not counted", good, func(r *Row) { r.Frames++ }, "counted"},
		{"a clamp the planner hid", good, func(r *Row) { r.Counted = false }, "counted"},
		{"late clamps", good, func(r *Row) { r.Late = uint64(r.Frames) / 50 }, "clamps"},
		{"early clamps", good, func(r *Row) { r.Early = uint64(r.Frames) / 50 }, "clamps"},
		{"one frame off", good, func(r *Row) { r.PosErr.Max = 2 * PosErrLimit }, "pos max"},
		{"one jerk", good, func(r *Row) { r.AnimErr.Max = 2 * AnimErrLimit }, "anim max"},
		{"slow recovery", hitch, func(r *Row) { r.Recovery = RecoveryFrames + 1 }, "recovery"},
		{"settled off", hitch, func(r *Row) { r.SettledPos = 2 * PosErrLimit }, "settled"},
	} {
		bad := tc.row
		bad.Checks = nil
		tc.doctor(&bad)
		evaluate(&bad)
		if got := failedNames(&bad); got != tc.fails {
			t.Errorf("%s: failed %q, want %q", tc.name, got, tc.fails)
		}
	}

	// Beyond its lateness budget a row has no error bound, but the loss
	// must be there to see.
	beyond := good
	beyond.Checks = nil
	beyond.Lateness.Max = 1000 * float64(budget(&good)) / 1e6
	beyond.PosErr.P99 = 10 * PosErrLimit
	beyond.Coarse, beyond.Rising, beyond.Late, beyond.Early = 0, 0, 0, 0
	evaluate(&beyond)
	if beyond.Within || failedNames(&beyond) != "loss" {
		t.Errorf("errors beyond the budget with no loss counted: within %v, failed %q", beyond.Within, failedNames(&beyond))
	}
	beyond.Checks, beyond.Late = nil, 3
	evaluate(&beyond)
	if !beyond.Pass {
		t.Errorf("errors beyond the budget with the loss counted: failed %s", failedNames(&beyond))
	}
}

// TestStressRows runs the stress latenesses where they stay within the
// budget and where they go beyond it, and checks that the loss beyond it is
// counted, never hidden.
func TestStressRows(t *testing.T) {
	within := runOne(t, Options{}, 30, "144@stress", Interpolated)
	if !within.Within || within.Lateness.P50 < 5 {
		t.Errorf("30 Hz × 144@stress: within %v (budget %v), lateness %+v ms",
			within.Within, within.LateBudget, within.Lateness)
	}
	for _, name := range []string{"measured", "clamps", "pos", "anim"} {
		check(t, &within, name) // bounded, pass or fail
	}

	for _, tc := range []struct {
		sim     int
		display string
	}{{500, "144@heavy"}, {1000, "vrr@heavy"}, {120, "60@heavy"}} {
		row := runOne(t, Options{}, tc.sim, tc.display, Interpolated)
		if row.Within {
			t.Errorf("%d Hz × %s within its %v budget with wakes %v ms late", tc.sim, tc.display, row.LateBudget, row.Lateness.Max)
		}
		if !row.Pass {
			t.Errorf("%d Hz × %s: failed %s", tc.sim, tc.display, failedNames(&row))
		}
		for _, c := range row.Checks {
			if c.Name == "pos" || c.Name == "anim" {
				t.Errorf("%d Hz × %s beyond its budget has a %s bound", tc.sim, tc.display, c.Name)
			}
		}
		if row.Late+row.Early+row.DiscardedTicks+row.Skipped+row.Coarse+row.Rising == 0 {
			t.Errorf("%d Hz × %s: %d late, %d early, %d ticks discarded, %d skipped, %d coarse, %d rising: the loss went uncounted",
				tc.sim, tc.display, row.Late, row.Early, row.DiscardedTicks, row.Skipped, row.Coarse, row.Rising)
		}
		if uint64(row.Frames) != row.PosSamples+row.Skipped+row.PausedFrames || !row.Counted {
			t.Errorf("%d Hz × %s: %d frames, %d measured, %d skipped, %d paused; %s",
				tc.sim, tc.display, row.Frames, row.PosSamples, row.Skipped, row.PausedFrames, row.CountDetail)
		}
	}
}

// TestLatenessDraws checks the stress lateness's distribution and the
// render thread's stalls.
func TestLatenessDraws(t *testing.T) {
	for _, tc := range []struct {
		name     string
		p50, p99 time.Duration
	}{{"stress", DefaultStressP50, DefaultStressP99}, {"heavy", DefaultStressP50, HeavyStressP99}} {
		l, err := ParseLateness(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		w := newWakes(l, rngFor(1, "test"))
		const n = 100000
		d := make([]time.Duration, n)
		for i := range d {
			d[i] = w.next()
		}
		slices.Sort(d)
		got50, got99 := d[n/2], d[n*99/100]
		if got50 < tc.p50*95/100 || got50 > tc.p50*105/100 || got99 < tc.p99*92/100 || got99 > tc.p99*108/100 {
			t.Errorf("%s: p50 %v, p99 %v; want about %v, %v", tc.name, got50, got99, tc.p50, tc.p99)
		}
		a, b := newWakes(l, rngFor(1, "test")), newWakes(l, rngFor(1, "test"))
		for range 100 {
			if x, y := a.next(), b.next(); x != y {
				t.Fatalf("%s: the same seed drew %v and %v", tc.name, x, y)
			}
		}
	}

	s := newStalls(namedLateness["stress"], rngFor(1, "stalls"))
	var n int
	var prevEnd time.Duration
	for t0 := time.Duration(0); t0 < 100*time.Second; t0 += time.Millisecond {
		if s.stalled(t0) && s.start != prevEnd {
			if d := s.end - s.start; d < StallMin || d > StallMax {
				t.Errorf("a stall of %v", d)
			}
			prevEnd = s.start
			n++
		}
	}
	if n < 80 || n > 120 {
		t.Errorf("%d stalls in 100 s, want about %v", n, 100*DefaultStalls)
	}

	// The stalls only take frames away: the others are the display's.
	p := mustPattern(t, "144@stress")
	calm := newFrames(mustPattern(t, "144"), rngFor(1, "d"), rngFor(1, "s"), 10*time.Second)
	stressed := newFrames(p, rngFor(1, "d"), rngFor(1, "s"), 10*time.Second)
	all := make(map[time.Duration]bool)
	for f := calm.next(); f < 10*time.Second; f = calm.next() {
		all[f] = true
	}
	missed, stalls := len(all), 0
	for f := stressed.next(); f < 10*time.Second; f = stressed.next() {
		if !all[f] {
			t.Fatalf("frame at %v is not the display's", f)
		}
		missed--
		if stressed.stalled {
			stalls++
		}
	}
	if stalls < 5 || missed < stalls {
		t.Errorf("%d stalls missed %d frames in 10 s", stalls, missed)
	}
}

// TestRunDriven: rows whose Sim runs on its own goroutine through Sim.Run
// give exactly the rows driven through Sim.Wake, also when the Sim wakes
// at once after a wake that overran (discards at 500 Hz under stress).
func TestRunDriven(t *testing.T) {
	ds := []Pattern{mustPattern(t, "144"), mustPattern(t, "144@stress")}
	res, err := Run(context.Background(), Options{Sims: []int{120, 500}, Displays: ds, Driven: ds, Duration: testDuration})
	if err != nil {
		t.Fatal(err)
	}
	runs := 0
	for i := range res.Rows {
		r := &res.Rows[i]
		if r.Driver != ByRun {
			continue
		}
		runs++
		if c := check(t, r, "same"); !c.OK {
			t.Errorf("%d Hz × %s: %s", r.Sim, r.Display, c.Detail)
		}
	}
	if runs != 4 {
		t.Errorf("%d rows driven by Sim.Run, want 4", runs)
	}
	if err := (&Options{Sims: []int{60}, Displays: ds, Driven: []Pattern{mustPattern(t, "pause")}}).validate(); err == nil {
		t.Error("a pause pattern driven by Sim.Run passed validation")
	}
}

func TestHistoryFor(t *testing.T) {
	for _, tc := range []struct {
		sim     int
		display string
		want    int
	}{
		{30, "500", 10},  // 267 ms limit, one snapshot per 33 ms step
		{120, "60", 8},   // 100 ms limit, one per 16.7 ms frame
		{120, "144", 15}, // one per 8.3 ms step
		{1000, "500", 52},
		{1000, "10000", waitfree.MaxHistory},
		{60, "30", simthread.DefaultHistory}, // 6 would do: never fewer than the default
	} {
		if got := historyFor(tc.sim, mustPattern(t, tc.display)); got != tc.want {
			t.Errorf("%d Hz × %s: history %d, want %d", tc.sim, tc.display, got, tc.want)
		}
	}
}
