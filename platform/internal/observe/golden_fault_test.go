package observe

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// Every golden case notices a broken analysis (TestGoldenCases holds each
// case's want.json byte for byte): with each of three faults put in on
// purpose (compareFault), the replayed comparison must differ from
// want.json in at least one, and each fault must move some case (a case
// that has noticed is not replayed again under a fault that has moved
// one: the replays take 0.2 s a case). The
// faults are what a careless change of the analysis would do: time a
// frame by the poll that saw it, not between the two polls; count the
// frames over the observer's stalls as dropped; place frames a vblank
// early.
func TestGoldenCasesCatchABrokenComparison(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("testdata", "golden", "*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) == 0 {
		t.Fatal("no golden case in testdata/golden")
	}
	noticed := map[string][]string{}
	for _, fault := range []struct {
		name string
		f    int
	}{{"a vblank early", faultVblankEarly}, {"timed by the poll that saw it", faultPollTime}, {"blind to the observer's stalls", faultBlindToStalls}} {
		moved := 0
		for _, dir := range dirs {
			if moved > 0 && len(noticed[filepath.Base(dir)]) > 0 {
				continue
			}
			want, err := os.ReadFile(filepath.Join(dir, "want.json"))
			if err != nil {
				t.Fatal(err)
			}
			compareFault = fault.f
			got := replayComparison(t, dir)
			compareFault = 0
			if !bytes.Equal(got, want) {
				noticed[filepath.Base(dir)] = append(noticed[filepath.Base(dir)], fault.name)
				moved++
			}
		}
		t.Logf("%s: %d cases notice", fault.name, moved)
		if moved == 0 {
			t.Errorf("%s: no case notices", fault.name)
		}
	}
	for _, dir := range dirs {
		if len(noticed[filepath.Base(dir)]) == 0 {
			t.Errorf("%s: each broken comparison gives its want.json: the case does not notice", filepath.Base(dir))
		}
	}
}

// replayComparison is the comparison of a golden case's watch with its
// frame log, as TestGoldenCases writes it.
func replayComparison(t *testing.T, dir string) []byte {
	t.Helper()
	res, err := ReadRecord(filepath.Join(dir, "watch.json"))
	if err != nil {
		t.Fatal(err)
	}
	log, err := ReadFrameLog(filepath.Join(dir, "frames.log"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.MarshalIndent(Compare(res, log), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(data, '\n')
}
