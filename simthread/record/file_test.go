package record_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tickframe/tickframe/simthread/record"
)

// names lists dir's entries.
func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n []string
	for _, e := range entries {
		n = append(n, e.Name())
	}
	return n
}

func TestWriteFileReadFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.rec")
	for _, l := range []*record.Log{sampleLog(3), sampleLog(500)} { // the second replaces the first
		if err := record.WriteFile(path, l); err != nil {
			t.Fatal(err)
		}
		got, err := record.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !equalLogs(got, l) {
			t.Fatalf("ReadFile(WriteFile(l)) = %+v, want %+v", got, l)
		}
		if n := names(t, dir); !slices.Equal(n, []string{"run.rec"}) {
			t.Fatalf("directory holds %q, want only run.rec", n)
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode() != 0o644 {
			t.Fatalf("mode %v, want 0644", fi.Mode())
		}
	}
}

func TestWriteFileRelative(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := record.WriteFile("run.rec", sampleLog(1)); err != nil {
		t.Fatal(err)
	}
	if _, err := record.ReadFile("run.rec"); err != nil {
		t.Fatal(err)
	}
	if n := names(t, "."); !slices.Equal(n, []string{"run.rec"}) {
		t.Fatalf("directory holds %q, want only run.rec", n)
	}
}

func TestReadFileErrors(t *testing.T) {
	dir := t.TempDir()
	_, err := record.ReadFile(filepath.Join(dir, "missing.rec"))
	if !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), "record: open ") {
		t.Fatalf("missing file: %v", err)
	}

	path := filepath.Join(dir, "short.rec")
	if err := os.WriteFile(path, encode(t, sampleLog(3))[:100], 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = record.ReadFile(path)
	var fe *record.FormatError
	if !errors.As(err, &fe) || fe.Path != path || fe.Offset != 72 {
		t.Fatalf("truncated file: %v", err)
	}
	if want := "record: " + path + ": offset 72: truncated Inputs[0] of 3 (needs 32 bytes, 28 left)"; err.Error() != want {
		t.Fatalf("error %q, want %q", err, want)
	}

	if _, err := record.ReadFile(dir); err == nil || !strings.Contains(err.Error(), "offset 0") {
		t.Fatalf("reading a directory: %v", err)
	}
}
