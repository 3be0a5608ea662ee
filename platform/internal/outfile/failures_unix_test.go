//go:build unix

package outfile_test

// The write failures as a Unix system words them, and the rerun as an
// unprivileged user that makes root see a directory's mode.

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tickframe/tickframe/platform/internal/outfile"
)

// TestWriteFails: every failure names the path in one line and leaves no
// file at the path and no temporary file beside it (the cases record's
// WriteFile was tested on, when it wrote files itself).
func TestWriteFails(t *testing.T) {
	for _, tc := range []struct {
		name     string
		setup    func(t *testing.T, dir string) (path string)
		want     string
		dropRoot bool // root writes whatever a directory's mode: run the case as nobody
	}{
		{"missing directory", func(t *testing.T, dir string) string {
			return filepath.Join(dir, "missing", "run.rec")
		}, "no such file or directory", false},
		{"parent is a file", func(t *testing.T, dir string) string {
			if err := os.WriteFile(filepath.Join(dir, "file"), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(dir, "file", "run.rec")
		}, "not a directory", false},
		{"path is a directory", func(t *testing.T, dir string) string {
			path := filepath.Join(dir, "run.rec")
			if err := os.Mkdir(path, 0o755); err != nil {
				t.Fatal(err)
			}
			return path
		}, "is a directory", false},
		{"read-only directory", func(t *testing.T, dir string) string {
			ro := filepath.Join(dir, "ro")
			if err := os.Mkdir(ro, 0o555); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Chmod(ro, 0o755) })
			return filepath.Join(ro, "run.rec")
		}, "permission denied", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.dropRoot && os.Geteuid() == 0 {
				rerunAsNobody(t)
				return
			}
			dir := t.TempDir()
			path := tc.setup(t, dir)
			before := names(t, dir)
			err := outfile.Write(path, func(w io.Writer) error { _, err := io.WriteString(w, "a run"); return err })
			if err == nil {
				t.Fatal("Write succeeded")
			}
			t.Logf("error: %v", err)
			if msg := err.Error(); !strings.Contains(msg, path) || !strings.Contains(msg, tc.want) || strings.Contains(msg, "\n") {
				t.Fatalf("error %q, want one line naming %s and saying %q", msg, path, tc.want)
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

// nobody is the user ID, and group ID, that rerunAsNobody runs a test as:
// 65534, the overflow ID, which owns nothing.
const nobody = 65534

// rerunAsNobody runs the test t, and only it, in a copy of the test binary
// as user and group nobody, and fails t unless it ran there and passed. It
// is for tests of what an unprivileged user cannot do, run as root: root
// ignores file modes (CAP_DAC_OVERRIDE), so they would pass or fail for
// the wrong reason.
func rerunAsNobody(t *testing.T) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// go test builds its binary in a directory only root may enter, and
	// t.TempDir is one too: copy the binary to a directory nobody can
	// enter, beside a temporary directory nobody owns.
	base, err := os.MkdirTemp("", "outfile-test-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	tmp := filepath.Join(base, "tmp")
	bin := filepath.Join(base, filepath.Base(exe))
	data, err := os.ReadFile(exe)
	if err == nil {
		err = os.WriteFile(bin, data, 0o755)
	}
	if err == nil {
		err = os.Chmod(base, 0o755)
	}
	if err == nil {
		err = os.Mkdir(tmp, 0o700)
	}
	if err == nil {
		err = os.Chown(tmp, nobody, nobody)
	}
	if err != nil {
		t.Fatal(err)
	}

	var run []string
	for _, part := range strings.Split(t.Name(), "/") {
		run = append(run, "^"+regexp.QuoteMeta(part)+"$")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-test.run="+strings.Join(run, "/"), "-test.v", "-test.count=1", "-test.timeout=1m")
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "HOME="+tmp)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody, Groups: []uint32{}}}
	out, err := cmd.CombinedOutput()
	t.Logf("as user %d: %s\n%s", nobody, strings.Join(cmd.Args, " "), out)
	if err != nil {
		t.Fatalf("as user %d: %v", nobody, err)
	}
	if !strings.Contains(string(out), "--- PASS: "+t.Name()+" ") {
		t.Fatalf("as user %d: %s did not run", nobody, t.Name())
	}
}
