package tickframe

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tickframe/tickframe/platform/internal/framelog"
	"github.com/tickframe/tickframe/platform/internal/observe"
)

var updateVerdicts = flag.Bool("update", false, "rewrite each golden case's verdict.json from its replay")

// goldenCases is where the recorded runs are (package observe's golden
// cases).
const goldenCases = "../observe/testdata/golden"

// goldenCellName is a recorded display cell's name: x, the display's
// rate, -refresh and the demo's -refresh, then its load or fault.
var goldenCellName = regexp.MustCompile(`^x(\d+)-refresh(\d+)(?:-(stress4|busy2|starved|breakpresent|breakinput))?$`)

// goldenCell is the display cell a golden case recorded, from its name.
func goldenCell(name string) (displayCell, bool) {
	m := goldenCellName.FindStringSubmatch(name)
	if m == nil {
		return displayCell{}, false
	}
	fps, _ := strconv.Atoi(m[1])
	refresh, _ := strconv.ParseFloat(m[2], 64)
	if fps == 60 {
		fps = 0 // Xvfb's default
	}
	c := displayCell{fps: fps, refresh: refresh}
	switch m[3] {
	case "stress4":
		c.args = []string{"-stress", "4"}
	case "busy2":
		c.busy = 2
	case "starved":
		c.starved = true
	case "breakpresent":
		c.broken = true
	case "breakinput":
		c.input = true
	}
	return c, true
}

// goldenVerdict is what the live display test says of a recorded run:
// why the observer could not serve as its instrument ("": it could), and
// where the app and the observer disagree (none: they agree).
type goldenVerdict struct {
	Instrument    string   `json:"instrument"`
	Disagreements []string `json:"disagreements"`
}

// replayObserve replays a case's watch against flog (its frame log or a
// changed copy) through tickframe observe -replay and returns the
// observer's report.
func replayObserve(t *testing.T, dir, flog string) ObserveReport {
	t.Helper()
	js := filepath.Join(t.TempDir(), "observe.json")
	var stdout, stderr bytes.Buffer
	if code := observeMain([]string{"-replay", filepath.Join(dir, "watch.json"), "-framelog", flog, "-json", js}, &stdout, &stderr); code != 0 {
		t.Fatalf("observe -replay: exit status %d: %s", code, stderr.String())
	}
	return readJSON[ObserveReport](t, js)
}

// replayVerdict replays a recorded run's watch against its frame log
// (flog, the recorded one or a changed copy) through tickframe observe
// -replay, and judges it as TestDisplayMatrix judges a live run.
func replayVerdict(t *testing.T, dir, flog string, c displayCell) goldenVerdict {
	t.Helper()
	run := displayRun{o: replayObserve(t, dir, flog)}
	run.r, _ = readReport(t, filepath.Join(dir, "report.json"))
	var err error
	if run.log, err = observe.ReadFrameLog(flog); err != nil {
		t.Fatal(err)
	}
	v := goldenVerdict{Instrument: run.instrumentFailure(), Disagreements: []string{}}
	if v.Instrument == "" {
		v.Disagreements = append(v.Disagreements, run.judge(t, c)...)
	}
	return v
}

// verdictCases lists the golden cases recorded with the app's report,
// which the verdict is judged from, and the cell each recorded.
func verdictCases(t *testing.T) map[string]displayCell {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(goldenCases, "*"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]displayCell{}
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "report.json")); err != nil {
			continue // recorded before the report was kept: the comparison's golden case only
		}
		c, ok := goldenCell(filepath.Base(d))
		if !ok {
			// A kept run of another live test (goldenCommand): its
			// comparison and fit are the other golden tests'.
			t.Logf("%s: not a display cell's run (%s): its verdict is its own test's", d, goldenCellName)
			continue
		}
		out[d] = c
	}
	if len(out) < 13 {
		t.Fatalf("%d golden cases with the app's report, want 13", len(out))
	}
	return out
}

// The live display test's verdict, on recorded runs: each case's watch
// replayed against its frame log (the observer's comparison, package
// observe's golden cases) and judged with the app's report as
// TestDisplayMatrix judges a live run gives the verdict in its
// verdict.json, on any machine (-update rewrites them: review them).
func TestGoldenVerdicts(t *testing.T) {
	for dir, c := range verdictCases(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			checkVerdict(t, dir, replayVerdict(t, dir, filepath.Join(dir, "frames.log"), c))
		})
	}
}

// checkVerdict holds a replayed verdict to the case's verdict.json, or
// writes it there under -update.
func checkVerdict(t *testing.T, dir string, got goldenVerdict) {
	t.Helper()
	data, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	data = append(data, '\n')
	path := filepath.Join(dir, "verdict.json")
	if *updateVerdicts {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run %s -update writes it)", err, strings.Split(t.Name(), "/")[0])
	}
	if !bytes.Equal(data, want) {
		t.Errorf("the verdict on %s changed:\ngot  %s\nwant %s", dir, data, want)
	}
}

// Each golden case the live test found in agreement notices an app whose
// display times are a period late (its frame log shifted): the verdict
// is no longer agreement.
func TestGoldenVerdictsCatchAShiftedLog(t *testing.T) {
	for dir, c := range verdictCases(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			if want := readJSON[goldenVerdict](t, filepath.Join(dir, "verdict.json")); want.Instrument != "" || len(want.Disagreements) > 0 {
				t.Logf("recorded in disagreement: %+v", want)
				return
			}
			r, _ := readReport(t, filepath.Join(dir, "report.json"))
			period := time.Duration(1e9 / measured(t, "present_figures_hz", r.PresentFiguresHz))
			got := replayVerdict(t, dir, shiftedLog(t, dir, period), c)
			if got.Instrument == "" && len(got.Disagreements) == 0 {
				t.Errorf("display times a period (%v) late: the verdict is still agreement", period)
			}
			t.Logf("a period late: %s%s", got.Instrument, strings.Join(got.Disagreements, "; "))
		})
	}
}

// shiftedLog writes a case's frame log with every display time d later
// and returns where.
func shiftedLog(t *testing.T, dir string, d time.Duration) string {
	t.Helper()
	frames, err := observe.ReadFrameLog(filepath.Join(dir, "frames.log"))
	if err != nil {
		t.Fatal(err)
	}
	l := framelog.New(len(frames))
	for _, f := range frames {
		if f.Display > 0 {
			f.Display += d
		}
		l.Add(f)
	}
	shifted := filepath.Join(t.TempDir(), "frames.log")
	if err := l.WriteFile(shifted); err != nil {
		t.Fatal(err)
	}
	return shifted
}
