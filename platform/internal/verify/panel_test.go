package verify

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestPanelRows runs the VRR matrix (-vrr): each panel row, in its motion
// modes (lerp, hermite) and at 60 and 120 Hz simulations, keeps the drawn error within the
// bounds (the maximum too on steady and jittery costs); the same rows with
// each frame animated to a fixed grid at the panel's highest rate instead
// of its predicted present time (-break vrr-grid) fail, every one of them.
func TestPanelRows(t *testing.T) {
	var displays []Pattern
	for _, name := range panelRows {
		displays = append(displays, mustPattern(t, name))
	}
	for _, broken := range []bool{false, true} {
		opts := Options{Sims: []int{60, 120}, Displays: displays, Motions: panelMotions, Duration: 8 * time.Second, gridAlpha: broken}
		if broken {
			opts.broken = breakVRRGrid
		}
		res, err := Run(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		rows, failed := 0, 0
		for _, row := range res.Rows {
			if row.Kind != Panel {
				continue
			}
			rows++
			if !row.Pass {
				failed++
			}
			if !broken && !row.Pass {
				t.Errorf("%s %s at %d Hz failed: %s", row.Display, row.Motion, row.Sim, describe(&row))
			}
			if broken && row.Pass {
				t.Errorf("%s %s at %d Hz passed animated to the fixed grid: %s", row.Display, row.Motion, row.Sim, describe(&row))
			}
			if !broken {
				t.Logf("%-22s %-11s %3d Hz: anim p99 %.3f max %.3f ms, pos p99 %.4f ticks, late %d early %d of %d",
					row.Display, row.Motion, row.Sim, row.AnimErr.P99, row.AnimErr.Max, row.PosErr.P99, row.Late, row.Early, row.Frames)
			}
		}
		if rows != len(panelRows)*2*2 {
			t.Fatalf("%d panel rows, want %d", rows, len(panelRows)*2*2)
		}
		t.Logf("broken %v: %d of %d panel rows failed", broken, failed, rows)
	}
}

func describe(row *Row) string {
	var b strings.Builder
	for _, c := range row.Checks {
		if !c.OK {
			b.WriteString(c.Name + ": " + c.Detail + "; ")
		}
	}
	return b.String()
}

// TestPanelScansOut checks the panel and the policy on their own: every
// scan-out comes at least the fastest interval after the last; a gap
// longer than the slowest interval holds a repeat (low framerate
// compensation), after which the frame waits for the repeat's scan; the
// frames are capped panelCapBelow Hz below the highest rate; and a frame
// that costs what the policy predicted is shown when it predicted: every
// frame once the window has seen the costs, but for heavy-tailed ones.
func TestPanelScansOut(t *testing.T) {
	for _, name := range panelRows {
		p := mustPattern(t, name)
		f := newFrames(p, rngFor(1, "display", name), rngFor(1, "stall", name), 10*time.Second)
		fastest := time.Duration(float64(time.Second) / p.MaxHz)
		slowest := time.Duration(float64(time.Second) / p.MinHz)
		capped := time.Duration(float64(time.Second) / (p.MaxHz - panelCapBelow))
		var last panelFrame
		repeats, exact, late := 0, 0, 0
		for i := 0; i < 4000; i++ {
			s := f.next()
			pf := f.panel.gen
			if pf.start != s || pf.shown < pf.planned || pf.planned < pf.start {
				t.Fatalf("%s frame %d: %+v", name, i, pf)
			}
			if i > 0 {
				gap := pf.shown - last.shown
				switch {
				case gap < capped-1 && pf.shown != pf.planned:
					t.Fatalf("%s frame %d: shown %v after the last, under the cap's %v", name, i, gap, capped)
				case gap < fastest:
					t.Fatalf("%s frame %d: shown %v after the last, faster than the panel", name, i, gap)
				case gap > slowest:
					repeats++
					// It waited for a repeat's scan, or came after it.
					k := (gap - 1) / slowest
					if rep := last.shown + k*slowest; pf.shown < rep+fastest {
						t.Fatalf("%s frame %d: shown %v into a repeat at %v", name, i, pf.shown-rep, rep)
					}
				}
			}
			switch {
			case pf.shown == pf.planned:
				exact++
			case i >= panelWindow:
				late++ // (before that, the window has not seen the costs)
			}
			last = pf
		}
		t.Logf("%s: %d frames shown when predicted, %d late (after the first %d), %d gaps with a repeat", name, exact, late, panelWindow, repeats)
		if p.Costs != PanelHeavy && late > 0 {
			t.Errorf("%s: %d frames shown later than predicted with bounded costs", name, late)
		}
		if p.Costs == PanelHeavy && (late == 0 || repeats == 0) {
			t.Errorf("%s: heavy costs made %d late frames and %d repeats; the row lacks its case", name, late, repeats)
		}
	}
}
