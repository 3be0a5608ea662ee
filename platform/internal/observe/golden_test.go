package observe_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/tickframe/tickframe/platform/internal/observe"
)

var update = flag.Bool("update", false, "rewrite the golden cases' want.json from the analysis as it is")

// The analysis on recorded runs: each case under testdata/golden is a
// real run's watch (tickframe observe -record) and the app's frame log
// (SOURCE says which run, on what machine, under what load), and
// want.json the comparison the analysis made of them (Compare: the
// placements on the app's vblanks, on the observer's own fit and on the
// framebuffer's changes, the fit, the floor). Replayed bit for bit, the
// same inputs give the same verdicts on any machine, under any load: a
// change of the analysis shows here as a diff, which a reviewer reads
// and accepts with -update, or fixes. A live run that failed becomes a
// case by copying its watch.json and frames.log here (the tickframe
// observe -record and -framelog files) with a SOURCE line.
func TestGoldenCases(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("testdata", "golden", "*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) == 0 {
		t.Fatal("no golden case in testdata/golden")
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			if _, err := os.Stat(filepath.Join(dir, "SOURCE")); err != nil {
				t.Fatalf("a golden case names the run it came from in SOURCE: %v", err)
			}
			got := goldenComparison(t, dir)
			want := filepath.Join(dir, "want.json")
			if *update {
				if err := os.WriteFile(want, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			data, err := os.ReadFile(want)
			if err != nil {
				t.Fatalf("%v (go test -run TestGoldenCases -update writes it)", err)
			}
			if !bytes.Equal(got, data) {
				t.Errorf("the analysis of %s changed:\ngot  %s\nwant %s", dir, got, data)
			}
		})
	}
}

// goldenComparison replays a case's watch against its frame log.
func goldenComparison(t *testing.T, dir string) []byte {
	t.Helper()
	res, err := observe.ReadRecord(filepath.Join(dir, "watch.json"))
	if err != nil {
		t.Fatal(err)
	}
	log, err := observe.ReadFrameLog(filepath.Join(dir, "frames.log"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.MarshalIndent(observe.Compare(res, log), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(data, '\n')
}
