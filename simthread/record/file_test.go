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

// TestWriteFileFails: every failure names the path and leaves no file at
// the path and no temporary file beside it.
func TestWriteFileFails(t *testing.T) {
	invalid := sampleLog(3)
	invalid.Rate = 0
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, dir string) (path string)
		log   *record.Log
		want  string
	}{
		{"missing directory", func(t *testing.T, dir string) string {
			return filepath.Join(dir, "missing", "run.rec")
		}, sampleLog(3), "no such file or directory"},
		{"parent is a file", func(t *testing.T, dir string) string {
			if err := os.WriteFile(filepath.Join(dir, "file"), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(dir, "file", "run.rec")
		}, sampleLog(3), "not a directory"},
		{"path is a directory", func(t *testing.T, dir string) string {
			path := filepath.Join(dir, "run.rec")
			if err := os.Mkdir(path, 0o755); err != nil {
				t.Fatal(err)
			}
			return path
		}, sampleLog(3), "rename"},
		{"read-only directory", func(t *testing.T, dir string) string {
			if os.Geteuid() == 0 {
				t.Skip("running as root, which may write to a read-only directory; the other cases cover a failed create")
			}
			ro := filepath.Join(dir, "ro")
			if err := os.Mkdir(ro, 0o555); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Chmod(ro, 0o755) })
			return filepath.Join(ro, "run.rec")
		}, sampleLog(3), "permission denied"},
		{"invalid log", func(t *testing.T, dir string) string {
			return filepath.Join(dir, "run.rec")
		}, invalid, "rate 0 out of range"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := tc.setup(t, dir)
			before := names(t, dir)
			err := record.WriteFile(path, tc.log)
			if err == nil {
				t.Fatal("WriteFile succeeded")
			}
			if msg := err.Error(); !strings.HasPrefix(msg, "record: write "+path+": ") || !strings.Contains(msg, tc.want) {
				t.Fatalf("error %q, want %q naming the path and saying %q", msg, "record: write "+path+": ", tc.want)
			}
			if after := names(t, dir); !slices.Equal(after, before) {
				t.Fatalf("directory went from %q to %q", before, after)
			}
			if fi, err := os.Stat(path); err == nil && !fi.IsDir() {
				t.Fatalf("a file appeared at %s", path)
			}
			if parent := filepath.Dir(path); parent != dir {
				if fi, err := os.Stat(parent); err == nil && fi.IsDir() {
					if n := names(t, parent); len(n) != 0 {
						t.Fatalf("%s holds %q", parent, n)
					}
				}
			}
		})
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
