package outfile_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tickframe/tickframe/platform/internal/outfile"
)

// A link in this process's descriptor table (/proc/self/fd/N, where
// /dev/stdout leads) is written through the descriptor, where the
// process's own writes to it go: after what it wrote before, at the end
// of a file opened to append, into a pipe; one open only for reading is
// refused up front and at Create, and its file is left as it was.
func TestDescriptors(t *testing.T) {
	for _, tc := range []struct {
		name string
		flag int    // how the test opens the file, as a shell's redirection would
		old  string // the file's content before
		want string // after "head", the output and "tail"
	}{
		{"truncated (>)", os.O_WRONLY | os.O_TRUNC, "old", "head" + "report" + "tail"},
		{"appended (>>)", os.O_WRONLY | os.O_APPEND, "old", "old" + "head" + "report" + "tail"},
		{"read and written (<>)", os.O_RDWR, "", "head" + "report" + "tail"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "out.json")
			if err := os.WriteFile(p, []byte(tc.old), 0o600); err != nil {
				t.Fatal(err)
			}
			f, err := os.OpenFile(p, tc.flag, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			path := "/proc/self/fd/" + strconv.Itoa(int(f.Fd()))
			if err := outfile.CheckWritable(path); err != nil {
				t.Fatalf("CheckWritable = %v", err)
			}
			io.WriteString(f, "head")
			if err := write(path, "report"); err != nil {
				t.Fatalf("Write = %v", err)
			}
			if _, err := io.WriteString(f, "tail"); err != nil {
				t.Fatalf("the descriptor after Write: %v", err)
			}
			if b, _ := os.ReadFile(p); string(b) != tc.want {
				t.Fatalf("the file holds %q, want %q", b, tc.want)
			}
			if n := names(t, dir); len(n) != 1 {
				t.Fatalf("the directory holds %q", n)
			}
		})
	}
	t.Run("a pipe", func(t *testing.T) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		defer w.Close()
		if err := write("/proc/self/fd/"+strconv.Itoa(int(w.Fd())), "report"); err != nil {
			t.Fatalf("Write = %v", err)
		}
		b := make([]byte, 16)
		if n, _ := r.Read(b); string(b[:n]) != "report" {
			t.Fatalf("the pipe's reader got %q", b[:n])
		}
	})
	t.Run("open only for reading", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "in.json")
		if err := os.WriteFile(p, []byte("old"), 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		path := "/proc/self/fd/" + strconv.Itoa(int(f.Fd()))
		if err := outfile.CheckWritable(path); err == nil || !strings.Contains(err.Error(), "not open for writing") {
			t.Errorf("CheckWritable = %v, want not open for writing", err)
		}
		if err := write(path, "report"); err == nil || !strings.Contains(err.Error(), "not open for writing") {
			t.Errorf("Write = %v, want not open for writing", err)
		}
		if b, _ := os.ReadFile(p); string(b) != "old" {
			t.Fatalf("the file holds %q", b)
		}
	})
}

// childEnv names the path a child run of the test binary writes its
// output through (TestMain); its stdout is the test's.
const childEnv = "OUTFILE_TEST_WRITE_THROUGH"

// childOutput is what a child writes: big enough to take many writes.
var childOutput = strings.Repeat("a line of a report, long enough to count\n", 5000)

func TestMain(m *testing.M) {
	if path := os.Getenv(childEnv); path != "" {
		// What a tool given -report PATH does: check first, print on its
		// stdout, write the output, print again.
		if err := outfile.CheckWritable(path); err != nil {
			fmt.Fprintln(os.Stderr, "check:", err)
			os.Exit(1)
		}
		fmt.Print("before\n")
		if err := write(path, childOutput); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Print("after\n")
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// `-report /dev/stdout > out.json`, for real: a child of the test binary
// whose stdout the test redirected to a file (or a pipe) writes through
// /dev/stdout, or through a link of the test's own to /proc/self/fd/1;
// the file holds the whole output, between what the child printed before
// and after, and the links are still links. The child that writes
// through the system's /dev/stdout runs as nobody when the test runs as
// root, so that a broken Write fails (it cannot write in /dev) and never
// replaces the system's link; a broken Write as root replaces the test's
// own link, which the test sees.
func TestStdoutRedirected(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// Everyone may enter dir and run the binary from it: go test's own
	// directory, and t.TempDir's, are root's alone.
	dir, err := os.MkdirTemp("", "outfile-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "outfile.test")
	data, err := os.ReadFile(exe)
	if err == nil {
		err = os.WriteFile(bin, data, 0o755)
	}
	if err != nil {
		t.Fatal(err)
	}
	ownLink := filepath.Join(dir, "stdout")
	if err := os.Symlink("/proc/self/fd/1", ownLink); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat("/dev/stdout"); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("this machine's /dev/stdout is not a link before the test: %v %v", fi.Mode(), err)
	}
	for _, tc := range []struct {
		name, path string
		drop       bool // as nobody when root
		pipe       bool // stdout a pipe, not a file
	}{
		{"/dev/stdout, unprivileged", "/dev/stdout", true, false},
		{"/dev/stdout, unprivileged, to a pipe", "/dev/stdout", true, true},
		{"a link to /proc/self/fd/1", ownLink, false, false},
		{"a link to /proc/self/fd/1, to a pipe", ownLink, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, "-test.run=^$")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), childEnv+"="+tc.path)
			var stderr, pipe bytes.Buffer
			cmd.Stderr = &stderr
			out := filepath.Join(t.TempDir(), "out.json")
			if tc.pipe {
				cmd.Stdout = &pipe
			} else {
				f, err := os.Create(out)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				cmd.Stdout = f
			}
			if tc.drop && os.Geteuid() == 0 {
				cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody, Groups: []uint32{}}}
			}
			err := cmd.Run()
			got := pipe.Bytes()
			if !tc.pipe {
				got, _ = os.ReadFile(out)
			}
			for _, l := range []string{"/dev/stdout", ownLink} {
				if fi, err := os.Lstat(l); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
					t.Errorf("%s is no longer a link: %v %v", l, fi.Mode(), err)
				}
			}
			if err != nil {
				t.Fatalf("the child: %v: %s", err, stderr.Bytes())
			}
			if want := "before\n" + childOutput + "after\n"; string(got) != want {
				t.Fatalf("stdout holds %d bytes, want %d: %.60q...", len(got), len(want), got)
			}
			if n := names(t, dir); len(n) != 2 {
				t.Fatalf("the link's directory holds %q", n)
			}
		})
	}
}
