package verify

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/tickframe/tickframe/renderer"
)

// TestMotionRows runs a calm 30 Hz sim on a 144 Hz display in the three
// motion modes and checks what each is for: lerp turns the spinner
// backwards in nearly every frame; hermite never does, and its position
// error is a hundredth of lerp's or less; extrapolate adds no render
// delay, turns the spinner the right way, keeps its corrections within
// 0.05 tick and counts the kick's.
func TestMotionRows(t *testing.T) {
	lerp := runMotion(t, Options{}, 30, "144", Interpolated, renderer.MotionLerp)
	herm := runMotion(t, Options{}, 30, "144", Interpolated, renderer.MotionHermite)
	extr := runMotion(t, Options{}, 30, "144", Interpolated, renderer.MotionExtrapolate)
	for _, r := range []*Row{&lerp, &herm, &extr} {
		if !r.Pass {
			t.Errorf("%s: failed %s: %+v", r.Motion, failedNames(r), r.Checks)
		}
		t.Logf("%-11s pos p99 %.6f ticks, spinner p99 %.3g°, wrong way %d of %d, delay %v, corrections %d (p99 %.4f ticks), kick %.3f ticks",
			r.Motion, r.PosErr.P99, r.RotErr.P99, r.WrongWay, r.Spins, r.DelayMax, r.Corrections, r.Correction.P99, r.KickMax)
	}
	check(t, &herm, "spin")
	for _, name := range []string{"delay", "kick", "spin", "correction"} {
		check(t, &extr, name)
	}
	switch {
	case lerp.Spins < 100 || lerp.WrongWay < lerp.Spins*9/10:
		t.Errorf("lerp turned the spinner backwards in only %d of %d frames", lerp.WrongWay, lerp.Spins)
	case herm.PosErr.P99 > HermiteRatio*lerp.PosErr.P99:
		t.Errorf("hermite p99 %.6f ticks, lerp %.6f", herm.PosErr.P99, lerp.PosErr.P99)
	case extr.DelayMax != 0 || lerp.DelayMax < time.Second/30:
		t.Errorf("render delay: extrapolate %v, lerp %v", extr.DelayMax, lerp.DelayMax)
	case !extr.Kicked || extr.KickCorrections != 1 || extr.KickMax < 0.1:
		t.Errorf("extrapolate: kicked %v, %d kick corrections, %.3f ticks", extr.Kicked, extr.KickCorrections, extr.KickMax)
	}
}

// TestMotionLiesFail: a renderer that draws the hermite rows as lerp fails
// their spin check and the bouncer's arcs check, and the check against
// lerp's position error through Run; the extrapolate rows' checks fail on
// doctored rows.
func TestMotionLiesFail(t *testing.T) {
	asLerp := func() planEdit {
		return func(_ time.Duration, p *renderer.Plan, _ held) { p.Motion = renderer.MotionLerp }
	}
	o := Options{breakInterpolation: asLerp, Motions: []renderer.MotionMode{renderer.MotionLerp, renderer.MotionHermite}}
	herm := runMotion(t, o, 30, "144", Interpolated, renderer.MotionHermite)
	failedOnly(t, &herm, "arcs,spin")

	o.Sims, o.Displays, o.Duration = []int{30}, []Pattern{mustPattern(t, "144")}, testDuration
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Rows {
		if r.Motion == "hermite" {
			failedOnly(t, &r, "arcs,spin,vs lerp")
		}
	}

	extr := runMotion(t, Options{}, 30, "144", Interpolated, renderer.MotionExtrapolate)
	herm = runMotion(t, Options{}, 30, "144", Interpolated, renderer.MotionHermite)
	for _, tc := range []struct {
		name   string
		row    Row
		doctor func(r *Row)
		fails  string
	}{
		{"a render delay", extr, func(r *Row) { r.DelayMax = time.Millisecond }, "delay"},
		{"the kick missed", extr, func(r *Row) { r.KickCorrections = 0 }, "kick"},
		{"a spin backwards", extr, func(r *Row) { r.WrongWay = 1 }, "spin"},
		{"large corrections", extr, func(r *Row) { r.Correction.P99 = 2 * CorrectionLimit }, "correction"},
		{"no corrections", extr, func(r *Row) { r.Corrections = 0 }, "correction"},
		{"a hermite spin backwards", herm, func(r *Row) { r.WrongWay = 1 }, "spin"},
		{"nothing judged", herm, func(r *Row) { r.Spins = 0 }, "spin"},
	} {
		bad := tc.row
		bad.Checks = nil
		tc.doctor(&bad)
		evaluate(&bad)
		if got := failedNames(&bad); got != tc.fails {
			t.Errorf("%s: failed %q, want %q", tc.name, got, tc.fails)
		}
	}
}

// TestExtrapolateUnderStress: under stress an extrapolate row has no
// position bound (its prediction reaches as far as the lateness), but
// still no render delay, and its counts hold.
func TestExtrapolateUnderStress(t *testing.T) {
	row := runMotion(t, Options{}, 60, "144@stress", Interpolated, renderer.MotionExtrapolate)
	if !row.Pass {
		t.Errorf("failed %s", failedNames(&row))
	}
	for _, c := range row.Checks {
		if c.Name == "pos" {
			t.Errorf("an extrapolate row under stress has a position bound: %+v", c)
		}
	}
	check(t, &row, "delay")
	check(t, &row, "anim")
}

// TestMotionCells: every interpolated cell runs once per motion mode, the
// Sim.Run row and the baselines once.
func TestMotionCells(t *testing.T) {
	o := Options{Sims: []int{60}, Displays: []Pattern{mustPattern(t, "144")}, Baselines: []Pattern{mustPattern(t, "144")},
		Driven: []Pattern{mustPattern(t, "144")}}
	o = o.withDefaults()
	var got []string
	for _, c := range o.cells() {
		got = append(got, string(c.mode)+"/"+c.motion.String()+"/"+string(c.driver))
	}
	want := []string{"interp/lerp/", "interp/lerp/run", "interp/hermite/", "interp/extrapolate/", "noint/lerp/", "naive/lerp/"}
	if !slices.Equal(got, want) {
		t.Errorf("cells %q, want %q", got, want)
	}
	o.Motions = []renderer.MotionMode{renderer.MotionHermite, renderer.MotionHermite}
	if o.validate() == nil {
		t.Error("a motion mode given twice validated")
	}
}
