package instrument

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An app's own figures (Report.Extra) are written after the runtime's, at
// the top level, in the order the app's value encodes them; a key of the
// runtime's, or a value that is not an object, is refused.
func TestReportExtra(t *testing.T) {
	type loads struct {
		Stress int     `json:"stress"`
		Cost   float64 `json:"stepcost_ms"`
	}
	r := Report{Frames: 42, Extra: loads{Stress: 8, Cost: 1.5}}
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Report
		loads
	}
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if back.Frames != 42 || back.Stress != 8 || back.Cost != 1.5 {
		t.Errorf("read back frames %d, stress %d, stepcost_ms %v from %s", back.Frames, back.Stress, back.Cost, data)
	}
	s := string(data)
	if i, j := strings.Index(s, `"display_server"`), strings.Index(s, `"stress"`); i < 0 || j < i || !strings.HasSuffix(s, `"stepcost_ms":1.5}`) {
		t.Errorf("the app's keys are not after the runtime's, in order: %s", s)
	}
	// Without Extra, the runtime's keys alone.
	plain, err := json.Marshal(Report{Frames: 42})
	if err != nil || strings.Contains(string(plain), "stress") || strings.Contains(string(plain), "Extra") {
		t.Errorf("no Extra: %s, %v", plain, err)
	}
	// An empty object adds nothing.
	if empty, err := json.Marshal(Report{Extra: map[string]int{}}); err != nil || string(empty) != string(mustMarshal(t, Report{})) {
		t.Errorf("empty Extra: %s, %v", empty, err)
	}

	var ee *ExtraError
	if _, err := json.Marshal(Report{Extra: map[string]int{"frames": 1}}); !errors.As(err, &ee) || ee.Key != "frames" {
		t.Errorf("Extra with the runtime's key frames: %v, want an ExtraError naming it", err)
	}
	for _, bad := range []any{42, "x", []int{1}, nil} {
		if bad == nil {
			continue
		}
		if _, err := json.Marshal(Report{Extra: bad}); err == nil || !strings.Contains(err.Error(), "not a JSON object") {
			t.Errorf("Extra %#v: %v, want it refused as not an object", bad, err)
		}
	}

	// WriteFile writes them too, and a refused Extra writes no file.
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	if err := r.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(path); err != nil || !strings.Contains(string(got), `"stepcost_ms": 1.5`) {
		t.Errorf("WriteFile: %s, %v", got, err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := (&Report{Extra: map[string]int{"fps": 1}}).WriteFile(bad); err == nil {
		t.Error("WriteFile wrote a report whose Extra repeats fps")
	}
	if _, err := os.Stat(bad); !os.IsNotExist(err) {
		t.Errorf("a refused report left %s (%v)", bad, err)
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
