package tickframe

import (
	"path/filepath"
	"strings"
	"testing"
)

// Input to photon, live, once: the demo at Xvfb's default 60 Hz under
// tickframe observe -inputs. Only what holds under any load is asserted
// (inputDisagreements): every press seen or missed with a reason, nine
// in ten seen, the latencies positive, the outside figure's p50 within
// its poll's wait (0 to a period) of the app's input age, half a period
// either way for the sample and the observer's floor. The broken variant's
// frame more is measured by make agree, not here.
func TestInputToPhoton(t *testing.T) {
	dir := runDir(t)
	js, rep := filepath.Join(dir, "observe.json"), filepath.Join(dir, "report.json")
	r := tickframe(t, opts{}, "observe", "-fps", "0", "-inputs", "25", "-report", rep, "-json", js, "--",
		binary, "-marker", "-report", rep, "-duration", "3s", "-width", "160", "-height", "120", "-bodies", "8", "-focuspause=false")
	if r.code != 0 {
		t.Fatalf("exit status %d; stderr:\n%s", r.code, r.stderr)
	}
	t.Logf("%s", r.stdout)
	o := readJSON[ObserveReport](t, js)
	if o.Inputs == nil || o.Inputs.Sent < 10 {
		t.Fatalf("inputs %+v: want at least 10 presses in 3 s", o.Inputs)
	}
	if ds := inputDisagreements(o.Inputs, o.periodMs(), o.periodMs(), o.FloorMs, false); len(ds) > 0 {
		t.Errorf("%s", strings.Join(ds, "\n"))
	}
	if p := o.Inputs.ToPhotonMs; p[2] > 1000 {
		t.Errorf("input to photon max %.3f ms: over a second", p[2])
	}
}

// The bounds of inputDisagreements: the outside figure from the app's
// input age to a period and a half above it (less half a period and the
// floor below), the broken variant's age at a period.
func TestInputDisagreements(t *testing.T) {
	const period, floor = 16.667, 0.5
	good := func(outside, app float64) *InputsReport {
		return &InputsReport{Sent: 20, Seen: 20, ToFramebufferMs: [3]float64{outside / 2, outside, outside},
			ToPhotonMs: &[3]float64{outside, outside + 5, outside + 8}, AppInputAgeMs: &[2]float64{app, app + 2}}
	}
	for _, c := range []struct {
		what          string
		r             *InputsReport
		broken        bool
		disagreements int
	}{
		{"half a period over the age", good(12, 4), false, 0},
		{"just under the age", good(3, 4), false, 0},
		{"two periods over the age", good(4+2*period, 4), false, 1},
		{"a period under the age", good(4, 4+period), false, 1},
		{"broken, a frame's age", good(16+period/2, 16), true, 0},
		{"broken, the age of a lead", good(4+period/2, 4), true, 1},
		{"broken, three quarters of a period", good(12.5+period/2, 12.5), true, 1},
		{"a press neither seen nor missed", &InputsReport{Sent: 20, Seen: 19, ToFramebufferMs: [3]float64{5, 5, 5},
			ToPhotonMs: &[3]float64{12, 12, 12}, AppInputAgeMs: &[2]float64{4, 4}}, false, 1},
		{"three missed", &InputsReport{Sent: 20, Seen: 17, Missed: 3, MissedWhy: []string{"a", "b", "c"}, ToFramebufferMs: [3]float64{5, 5, 5},
			ToPhotonMs: &[3]float64{12, 12, 12}, AppInputAgeMs: &[2]float64{4, 4}}, false, 1},
		{"no presses", &InputsReport{Error: "no XTEST"}, false, 1},
	} {
		if ds := inputDisagreements(c.r, period, period, floor, c.broken); len(ds) != c.disagreements {
			t.Errorf("%s: %d disagreements, want %d: %q", c.what, len(ds), c.disagreements, ds)
		}
	}
	// 360 Hz emulated over a 60 Hz display (make agree's cells): the
	// photon waits for the real vblank too, up to 16.7 ms more, which the
	// app's age on the emulated vblanks does not hold; on a display of the
	// emulated rate the same figures disagree.
	const fast = 2.778
	if ds := inputDisagreements(good(10.1, 2.8), fast, period, floor, false); len(ds) != 0 {
		t.Errorf("360 Hz over 60 Hz, the photon 7.3 ms after the age: %q", ds)
	}
	if ds := inputDisagreements(good(10.1, 2.8), fast, fast, floor, false); len(ds) != 1 {
		t.Errorf("360 Hz on 360 Hz, the photon 7.3 ms after the age: %d disagreements, want 1", len(ds))
	}
}
