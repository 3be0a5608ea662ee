//go:build unix

package outfile_test

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/tickframe/tickframe/platform/internal/outfile"
)

// An existing file that is not a regular file is written into, never
// replaced by a regular one: a character device (/dev/null) takes the
// bytes; a FIFO gets them when it has a reader and is refused at once,
// not waited on, when it has none.
func TestNonRegularFilesAreWrittenInto(t *testing.T) {
	write := func(p string) error {
		return outfile.Write(p, func(w io.Writer) error { _, err := io.WriteString(w, "report"); return err })
	}
	// Through a link of the test's own, so that a broken Write replaces
	// the link, which the test sees, and never the system's /dev/null.
	null := filepath.Join(t.TempDir(), "null")
	if err := os.Symlink(os.DevNull, null); err != nil {
		t.Fatal(err)
	}
	if err := outfile.CheckWritable(null); err != nil {
		t.Fatal(err)
	}
	if err := write(null); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(null); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link to %s was replaced: %v %v", os.DevNull, fi.Mode(), err)
	}
	if fi, err := os.Stat(os.DevNull); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("%s is no longer a character device: %v %v", os.DevNull, fi.Mode(), err)
	}
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := outfile.CheckWritable(fifo); err == nil {
		t.Fatal("CheckWritable(a FIFO with no reader) = nil")
	}
	if err := write(fifo); err == nil {
		t.Fatal("Write(a FIFO with no reader) = nil")
	}
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := write(fifo); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 16)
	if n, _ := r.Read(b); string(b[:n]) != "report" {
		t.Fatalf("the FIFO's reader got %q", b[:n])
	}
	if fi, _ := os.Lstat(fifo); fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO was replaced: %v", fi.Mode())
	}
}
