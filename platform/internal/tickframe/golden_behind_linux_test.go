package tickframe

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tickframe/tickframe/platform/internal/observe"
)

// behindRun is what a run behind a nested compositor (observeBehind)
// keeps beside its watch, frame log and report, for a replay to judge it
// as its live test did (behind.json): the test and the app's arguments
// (its load, its faults), and how long the compositor and the X servers
// waited for a CPU at a stretch during the run (sampleWaits, read from
// /proc while it ran: the allowance the judges give a frame's lateness).
type behindRun struct {
	Test             string   `json:"test"`
	Compositor       string   `json:"compositor"`
	Args             []string `json:"args"`
	CompositorWaitNs int64    `json:"compositor_wait_ns"`
	DisplayWaitNs    int64    `json:"display_wait_ns"`
}

func writeBehindRun(t *testing.T, dir string, b behindRun) {
	t.Helper()
	data, err := json.MarshalIndent(b, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "behind.json"), append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// behindCases lists the golden cases recorded behind a compositor (those
// with a behind.json).
func behindCases(t *testing.T) map[string]behindRun {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(goldenCases, "*", "behind.json"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]behindRun{}
	for _, p := range paths {
		out[filepath.Dir(p)] = readJSON[behindRun](t, p)
	}
	// Recorded: Weston's Wayland client, the X11 build under Mutter up
	// 49.8 days (each case's SOURCE).
	for _, c := range []string{"weston", "mutter"} {
		if !slices.ContainsFunc(slices.Collect(maps.Values(out)), func(b behindRun) bool { return b.Compositor == c }) {
			t.Errorf("no golden case recorded behind %s", c)
		}
	}
	return out
}

// replayBehind replays a recorded run behind a compositor through
// tickframe observe -replay (its watch against flog, the recorded frame
// log or a changed copy) and judges it as its live test judged the run.
func replayBehind(t *testing.T, dir, flog string, b behindRun) goldenVerdict {
	t.Helper()
	ob := observation{obs: replayObserve(t, dir, flog), record: filepath.Join(dir, "watch.json"),
		compositorWait: time.Duration(b.CompositorWaitNs), displayWait: time.Duration(b.DisplayWaitNs)}
	ob.report, _ = readReport(t, filepath.Join(dir, "report.json"))
	var err error
	if ob.log, err = observe.ReadFrameLog(flog); err != nil {
		t.Fatal(err)
	}
	v := goldenVerdict{Instrument: instrumentFault(ob), Disagreements: []string{}}
	if v.Instrument != "" {
		return v
	}
	logf := func(string, ...any) {}
	switch b.Compositor {
	case "mutter":
		v.Disagreements = append(v.Disagreements, judgeMutter(ob, strings.Contains(b.Test, "up_49.8_days"), slices.Contains(b.Args, "-breakpresent"), logf)...)
	case "weston":
		mode := "xwayland"
		if strings.Contains(b.Test, "/wayland/") {
			mode = "wayland"
		}
		v.Disagreements = append(v.Disagreements, judgeWeston(ob, mode, len(b.Args) > 0, logf)...)
	default:
		t.Fatalf("%s: compositor %q: no judge", dir, b.Compositor)
	}
	return v
}

// The verdicts of the live runs behind Weston and Mutter, on recorded
// runs: each case's watch replayed against its frame log and judged, with
// the compositor's and the X servers' waits the run measured, as
// TestUnderWeston and TestUnderMutter judge a live run, gives the verdict
// in its verdict.json on any machine (-update rewrites them: review them).
func TestGoldenBehindVerdicts(t *testing.T) {
	for dir, b := range behindCases(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			checkVerdict(t, dir, replayBehind(t, dir, filepath.Join(dir, "frames.log"), b))
		})
	}
}

// Each case behind a compositor that its live test found in agreement
// notices an app whose display times are a period late (its frame log
// shifted by the refresh the compositor stated): the verdict is no
// longer agreement.
func TestGoldenBehindVerdictsCatchAShiftedLog(t *testing.T) {
	for dir, b := range behindCases(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			want := readJSON[goldenVerdict](t, filepath.Join(dir, "verdict.json"))
			if want.Instrument != "" || len(want.Disagreements) > 0 {
				t.Fatalf("recorded in disagreement: %+v: a case behind a compositor is one its test passed", want)
			}
			r, _ := readReport(t, filepath.Join(dir, "report.json"))
			if r.PresentClock == nil || r.PresentClock.RefreshMs == nil {
				t.Fatalf("present_clock %+v: no refresh stated", r.PresentClock)
			}
			period := time.Duration(*r.PresentClock.RefreshMs * 1e6)
			got := replayBehind(t, dir, shiftedLog(t, dir, period), b)
			if got.Instrument == "" && len(got.Disagreements) == 0 {
				t.Errorf("display times a period (%v) late: the verdict is still agreement", period)
			}
			t.Logf("a period late: %s%s", got.Instrument, strings.Join(got.Disagreements, "; "))
		})
	}
}
