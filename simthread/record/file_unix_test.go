//go:build unix

package record_test

// The write failures as a Unix system words them, and the rerun as an
// unprivileged user that makes root see a directory's mode.

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tickframe/tickframe/simthread/record"
)

// TestWriteFileFails: every failure names the path in one line and leaves
// no file at the path and no temporary file beside it.
func TestWriteFileFails(t *testing.T) {
	invalid := sampleLog(3)
	invalid.Rate = 0
	for _, tc := range []struct {
		name     string
		setup    func(t *testing.T, dir string) (path string)
		log      *record.Log
		want     string
		dropRoot bool // root writes whatever a directory's mode: run the case as nobody
	}{
		{"missing directory", func(t *testing.T, dir string) string {
			return filepath.Join(dir, "missing", "run.rec")
		}, sampleLog(3), "no such file or directory", false},
		{"parent is a file", func(t *testing.T, dir string) string {
			if err := os.WriteFile(filepath.Join(dir, "file"), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(dir, "file", "run.rec")
		}, sampleLog(3), "not a directory", false},
		{"path is a directory", func(t *testing.T, dir string) string {
			path := filepath.Join(dir, "run.rec")
			if err := os.Mkdir(path, 0o755); err != nil {
				t.Fatal(err)
			}
			return path
		}, sampleLog(3), "is a directory", false},
		{"read-only directory", func(t *testing.T, dir string) string {
			ro := filepath.Join(dir, "ro")
			if err := os.Mkdir(ro, 0o555); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Chmod(ro, 0o755) })
			return filepath.Join(ro, "run.rec")
		}, sampleLog(3), "permission denied", true},
		{"invalid log", func(t *testing.T, dir string) string {
			return filepath.Join(dir, "run.rec")
		}, invalid, "rate 0 out of range", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.dropRoot && os.Geteuid() == 0 {
				rerunAsNobody(t)
				return
			}
			dir := t.TempDir()
			path := tc.setup(t, dir)
			before := names(t, dir)
			err := record.WriteFile(path, tc.log)
			if err == nil {
				t.Fatal("WriteFile succeeded")
			}
			t.Logf("error: %v", err)
			if msg := err.Error(); !strings.HasPrefix(msg, "record: write "+path+": ") || !strings.Contains(msg, tc.want) || strings.Contains(msg, "\n") {
				t.Fatalf("error %q, want one line starting %q and saying %q", msg, "record: write "+path+": ", tc.want)
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
	base, err := os.MkdirTemp("", "record-test-nobody-")
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

// An existing non-regular file is written into, never replaced: a link to
// /dev/null (the test's own link, so that a broken WriteFile replaces the
// link, never the system's device) stays a link to the device; a FIFO
// with a reader gets the recording, one with none is refused at once.
func TestWriteFileIntoNonRegular(t *testing.T) {
	dir := t.TempDir()
	null := filepath.Join(dir, "null.rec")
	if err := os.Symlink(os.DevNull, null); err != nil {
		t.Fatal(err)
	}
	l := sampleLog(3)
	if err := record.WriteFile(null, l); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(null); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link to %s was replaced: %v %v", os.DevNull, fi.Mode(), err)
	}
	fifo := filepath.Join(dir, "fifo.rec")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := record.WriteFile(fifo, l); err == nil {
		t.Fatal("WriteFile into a FIFO with no reader = nil")
	}
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// The recording fits the pipe's buffer: written whole, then read.
	if err := record.WriteFile(fifo, l); err != nil {
		t.Fatal(err)
	}
	if got, err := record.Read(r); err != nil || got.FinalTick != l.FinalTick {
		t.Fatalf("read back through the FIFO: %v", err)
	}
	if fi, _ := os.Lstat(fifo); fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO was replaced: %v", fi.Mode())
	}
}

// A name as long as the directory takes is written: the temporary file's
// name does not grow with it.
func TestWriteFileLongName(t *testing.T) {
	p := filepath.Join(t.TempDir(), strings.Repeat("r", 251)+".rec")
	if err := record.WriteFile(p, sampleLog(3)); err != nil {
		t.Fatal(err)
	}
}

// A path that is a link to a recording in another directory is written
// there, the way every output is (internal/outfile): the link stays a link
// and leads to the new recording, and nothing is left beside the link.
func TestWriteFileThroughLink(t *testing.T) {
	root := t.TempDir()
	links, real := filepath.Join(root, "links"), filepath.Join(root, "real")
	for _, d := range []string{links, real} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	target := filepath.Join(real, "run.rec")
	if err := record.WriteFile(target, sampleLog(3)); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(links, "run.rec")
	if err := os.Symlink("../real/run.rec", path); err != nil {
		t.Fatal(err)
	}
	l := sampleLog(500)
	if err := record.WriteFile(path, l); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", fi.Mode(), err)
	}
	if got, err := record.ReadFile(target); err != nil || !equalLogs(got, l) {
		t.Fatalf("the link's target does not hold the recording: %v", err)
	}
	if n := names(t, links); !slices.Equal(n, []string{"run.rec"}) {
		t.Fatalf("the link's directory holds %q", n)
	}
	if n := names(t, real); !slices.Equal(n, []string{"run.rec"}) {
		t.Fatalf("the target's directory holds %q", n)
	}
}
