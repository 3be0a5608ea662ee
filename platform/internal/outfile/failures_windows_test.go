package outfile_test

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tickframe/tickframe/platform/internal/outfile"
)

// TestWriteFailsOnWindows is TestWriteFails (failures_unix_test.go) as
// Windows words the failures, without the read-only directory, which
// Windows does not honour. Each failure names the path in one line, leaves
// what the path held and no temporary file beside it.
func TestWriteFailsOnWindows(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, dir string) (path string)
		want  string
		is    error
	}{
		{"missing directory", func(t *testing.T, dir string) string {
			return filepath.Join(dir, "missing", "run.rec")
		}, "", fs.ErrNotExist},
		{"parent is a file", func(t *testing.T, dir string) string {
			if err := os.WriteFile(filepath.Join(dir, "file"), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(dir, "file", "run.rec")
		}, "", nil},
		{"path is a directory", func(t *testing.T, dir string) string {
			path := filepath.Join(dir, "run.rec")
			if err := os.Mkdir(path, 0o755); err != nil {
				t.Fatal(err)
			}
			return path
		}, "is a directory", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := tc.setup(t, dir)
			before := dirNames(t, dir)
			old, oldErr := os.ReadFile(path)
			err := outfile.Write(path, func(w io.Writer) error { _, err := io.WriteString(w, "a run"); return err })
			if err == nil {
				t.Fatal("Write succeeded")
			}
			t.Logf("error: %v", err)
			if msg := err.Error(); !strings.Contains(msg, path) || !strings.Contains(msg, tc.want) || strings.Contains(msg, "\n") {
				t.Fatalf("error %q, want one line naming %s and saying %q", msg, path, tc.want)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Fatalf("error %v is not %v", err, tc.is)
			}
			if after := dirNames(t, dir); !slices.Equal(after, before) {
				t.Fatalf("directory went from %q to %q", before, after)
			}
			if now, err := os.ReadFile(path); oldErr == nil && (err != nil || string(now) != string(old)) {
				t.Fatalf("%s held %q, now %q (%v)", path, old, now, err)
			}
		})
	}
}

// dirNames lists dir's entries.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n []string
	for _, e := range ents {
		n = append(n, e.Name())
	}
	return n
}
