package record_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tickframe/tickframe/platform/internal/record"
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

// ReadFile reads back what Write wrote to a file.
func TestReadFileReadsWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.rec")
	for _, l := range []*record.Log{sampleLog(3), sampleLog(500)} {
		writeFile(t, path, l)
		got, err := record.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !equalLogs(got, l) {
			t.Fatalf("ReadFile(Write(l)) = %+v, want %+v", got, l)
		}
	}
}

// writeFile writes l to path with Write (an app writes its recording
// through package outfile).
func writeFile(t testing.TB, path string, l *record.Log) {
	t.Helper()
	if err := os.WriteFile(path, encode(t, l), 0o644); err != nil {
		t.Fatal(err)
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
