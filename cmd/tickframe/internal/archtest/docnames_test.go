package archtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every Go name the README and docs/ write in backquotes exists.
func TestDocsNameWhatExists(t *testing.T) {
	bad, err := DocNames("../../../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bad {
		t.Error(b)
	}
}

// A name that does not exist is caught, in each of the forms checked;
// one that does, or that is not the module's, is not.
func TestDocNamesFindsPlantedNames(t *testing.T) {
	root := t.TempDir()
	write := func(path, text string) {
		t.Helper()
		path = filepath.Join(root, path)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/m\n")
	write("a/base.go", "package a\n\ntype Base struct{ Inner int }\n\nfunc (Base) Hello() {}\n")
	write("a/a.go", "package a\n\n// Config is a config.\ntype Config struct {\n\tBase\n\tTitle string\n}\n\nfunc (c *Config) Check() error { return nil }\n\nfunc Run() {}\n\nvar Default = Config{}\n")
	write("docs/x.md", "`a.Config.Title`, `a.Config.Check()`, `a.Run()`, `a.Default.Title`, `Config.Hello`, `a.Config.Inner`, `time.Second`, `cfg.Whatever`\n"+
		"```go\na.Missing()\n```\n"+
		"`a.Config.Duration` and `a.Walk`\n")
	write("README.md", "`Config.HideHUD`\n")
	bad, err := DocNames(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"README.md:1: `Config.HideHUD`: Config has no field or method HideHUD",
		"docs/x.md:5: `a.Config.Duration`: a.Config has no field or method Duration",
		"docs/x.md:5: `a.Walk`: package a has no Walk",
	}
	if strings.Join(bad, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(bad, "\n"), strings.Join(want, "\n"))
	}
}
