package tickframe

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestViewWritesItsFiles: the output flags view takes from the apps'
// (-report, -plot, -cpuprofile, -memprofile, -trace) are written, not
// checked and dropped; -record and -replay, which the turntable cannot
// honour, are refused with one line, exit 2 and no file.
func TestViewWritesItsFiles(t *testing.T) {
	t.Parallel() // a functional run: beside another (main_test.go)
	needDisplay(t)
	dir := t.TempDir()
	model := redGreenModel(t, dir, "box.glb")
	r := tickframe(t, opts{dir: dir}, "view", model, "-width", "320", "-height", "240", "-duration", "1500ms",
		"-report", "r.json", "-plot", "p.svg", "-cpuprofile", "cpu.prof", "-memprofile", "mem.prof", "-trace", "run.trace")
	wantOK(t, r)
	for _, f := range []string{"r.json", "p.svg", "cpu.prof", "mem.prof", "run.trace"} {
		fi, err := os.Stat(filepath.Join(dir, f))
		if err != nil || fi.Size() == 0 {
			t.Errorf("view did not write %s: %v", f, err)
		}
	}
	var rep map[string]any
	if b, err := os.ReadFile(filepath.Join(dir, "r.json")); err != nil || json.Unmarshal(b, &rep) != nil {
		t.Fatalf("report: %v", err)
	}
	if frames, _ := rep["frames"].(float64); frames < 1 {
		t.Errorf("report: %v frames", rep["frames"])
	}
	for _, flag := range []string{"-record", "-replay"} {
		out := t.TempDir()
		arg := "x.rec"
		if flag == "-replay" {
			arg = filepath.Join(dir, "r.json")
		}
		r := tickframe(t, opts{dir: out}, "view", model, "-duration", "1s", flag, arg)
		if line := wantOneLine(t, r, 2); !strings.Contains(line, flag) {
			t.Errorf("view %s: %q does not name the flag", flag, line)
		}
		if files := listFiles(t, out); len(files) > 0 {
			t.Errorf("view %s: left files: %q", flag, files)
		}
	}
}
