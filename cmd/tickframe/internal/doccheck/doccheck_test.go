package doccheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocsNameWhatExists is the check make test runs.
func TestDocsNameWhatExists(t *testing.T) {
	root, err := filepath.Abs("../../../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatal(err)
	}
	bad, err := CheckFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bad {
		t.Error(b)
	}
}

// TestCheckCatchesWhatDoesNotExist runs the check on a planted module
// and a planted doc: a missing function, field and method are each
// reported, and the names that exist, the standard library's and the
// files' are not.
func TestCheckCatchesWhatDoesNotExist(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, src string) {
		t.Helper()
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module x\n")
	write("app/app.go", `package app
type Tools struct{ Truth func() }
type Config struct {
	Title string
	Tools Tools
	inner
}
type inner struct{ Seed int }
func Main(cfg Config) {}
func (c *Config) Validate() error { return nil }
`)
	write("README.md", "Call `app.Main` with `app.Config.Title`, `Config.Tools.Truth`, `Config.Seed`, `cfg.Validate()`;\n"+
		"see `runtime.ReadMemStats`, `grid.json`.\n"+
		"Wrong: `app.MainFunc`, `Config.Duration`, `app.Config.Tools.Replay`, `Config.Validate.X`.\n")
	bad, err := CheckFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(bad, "\n")
	for _, want := range []string{"`app.MainFunc`", "`Config.Duration`", "`app.Config.Tools.Replay`", "`Config.Validate.X`"} {
		if !strings.Contains(got, want) {
			t.Errorf("%s not reported; got:\n%s", want, got)
		}
	}
	if len(bad) != 4 {
		t.Errorf("%d reports, want 4:\n%s", len(bad), got)
	}
}
