package tickframe

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tickframe/tickframe/platform/internal/record"
)

// TestSoftwareScene: on a software rasterizer (make test's Xvfb draws
// with llvmpipe) the demo runs softBodies bodies unless -bodies says
// otherwise, says so with the flag for the full scene, and a recording
// of it names its real size, so that it replays.
func TestSoftwareScene(t *testing.T) {
	t.Parallel() // a functional run: beside another (main_test.go)
	needDisplay(t)
	dir := t.TempDir()
	base := []string{"-width", "320", "-height", "240", "-focuspause=false", "-duration", "1s"}
	r := tickframe(t, opts{dir: dir}, append(base, "-report", "light.json", "-record", "run.tfrec")...)
	wantOK(t, r)
	if !strings.Contains(r.stderr, "software rasterizer") || !strings.Contains(r.stderr, "-bodies 4096 draws them all") {
		t.Errorf("stderr does not say the scene was made light, nor how to ask for the full one:\n%s", r.stderr)
	}
	if rep, _ := readReport(t, filepath.Join(dir, "light.json")); rep.Bodies != softBodies {
		t.Errorf("software rasterizer, no -bodies: %d bodies, want %d", rep.Bodies, softBodies)
	}
	rec, err := record.ReadFile(filepath.Join(dir, "run.tfrec"))
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf(`{"flags":{"bodies":"%d"}}`, softBodies); string(rec.Params) != want {
		t.Errorf("the recording's flags %s, want %s: the size the run had", rec.Params, want)
	}
	r = tickframe(t, opts{dir: dir}, "-width", "320", "-height", "240", "-focuspause=false", "-replay", "run.tfrec")
	wantOK(t, r)
	if strings.Contains(r.stderr, "software rasterizer") || !strings.Contains(r.stdout, "replay matches") {
		t.Errorf("a replay takes the recording's size and matches:\nstdout %s\nstderr %s", r.stdout, r.stderr)
	}
	r = tickframe(t, opts{dir: dir}, append(base, "-bodies", "300", "-report", "given.json")...)
	wantOK(t, r)
	if rep, _ := readReport(t, filepath.Join(dir, "given.json")); rep.Bodies != 300 || strings.Contains(r.stderr, "software rasterizer") {
		t.Errorf("-bodies 300 on a software rasterizer: %d bodies, stderr %q; want 300 and no word of a light scene", rep.Bodies, r.stderr)
	}
}
