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

// TestWriteFileFailsOnWindows is TestWriteFileFails (file_unix_test.go) as
// Windows words the failures, without the read-only directory, which
// Windows does not honour. Each failure names the path in one line, leaves
// what the path held and no temporary file beside it.
func TestWriteFileFailsOnWindows(t *testing.T) {
	invalid := sampleLog(3)
	invalid.Rate = 0
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, dir string) (path string)
		log   *record.Log
		want  string
		is    error
	}{
		{"missing directory", func(t *testing.T, dir string) string {
			return filepath.Join(dir, "missing", "run.rec")
		}, sampleLog(3), "", fs.ErrNotExist},
		{"parent is a file", func(t *testing.T, dir string) string {
			if err := os.WriteFile(filepath.Join(dir, "file"), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(dir, "file", "run.rec")
		}, sampleLog(3), "", nil},
		{"path is a directory", func(t *testing.T, dir string) string {
			path := filepath.Join(dir, "run.rec")
			if err := os.Mkdir(path, 0o755); err != nil {
				t.Fatal(err)
			}
			return path
		}, sampleLog(3), "is a directory", nil},
		{"invalid log", func(t *testing.T, dir string) string {
			return filepath.Join(dir, "run.rec")
		}, invalid, "rate 0 out of range", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := tc.setup(t, dir)
			before := names(t, dir)
			old, oldErr := os.ReadFile(path)
			err := record.WriteFile(path, tc.log)
			if err == nil {
				t.Fatal("WriteFile succeeded")
			}
			t.Logf("error: %v", err)
			if msg := err.Error(); !strings.HasPrefix(msg, "record: write "+path+": ") || !strings.Contains(msg, tc.want) || strings.Contains(msg, "\n") {
				t.Fatalf("error %q, want one line starting %q and saying %q", msg, "record: write "+path+": ", tc.want)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Fatalf("error %v is not %v", err, tc.is)
			}
			if after := names(t, dir); !slices.Equal(after, before) {
				t.Fatalf("directory went from %q to %q", before, after)
			}
			if now, err := os.ReadFile(path); oldErr == nil && (err != nil || string(now) != string(old)) {
				t.Fatalf("%s held %q, now %q (%v)", path, old, now, err)
			}
		})
	}
}
