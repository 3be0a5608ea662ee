package outfile_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tickframe/tickframe/platform/internal/outfile"
)

func TestWriteIsAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "r.json")
	if err := outfile.Write(p, func(w io.Writer) error { _, err := io.WriteString(w, "one"); return err }); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := outfile.Write(p, func(w io.Writer) error { io.WriteString(w, "partial"); return boom })
	if !errors.Is(err, boom) {
		t.Fatalf("Write = %v, want boom", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "one" {
		t.Fatalf("a failed write changed the file to %q", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("a failed write left %d files", len(ents))
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o644 {
		t.Fatalf("mode %v", fi.Mode())
	}
}

func TestCheckWritable(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	os.WriteFile(file, nil, 0o644)
	for _, bad := range []string{dir, filepath.Join(dir, "missing", "x"), filepath.Join(file, "x")} {
		if err := outfile.CheckWritable(bad); err == nil {
			t.Errorf("CheckWritable(%s) = nil", bad)
		}
	}
	if err := outfile.CheckWritable(filepath.Join(dir, "ok")); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("CheckWritable left %d files", len(ents))
	}
}

// A name as long as the directory takes passes the check and is written:
// the check makes the same temporary file Create does, and tries the name
// itself; one byte longer fails the check, not the write after the work.
func TestLongNames(t *testing.T) {
	dir := t.TempDir()
	longest := 255 // NAME_MAX on Linux, macOS and NTFS
	ok := filepath.Join(dir, strings.Repeat("r", longest-5)+".json")
	if err := outfile.CheckWritable(ok); err != nil {
		t.Fatalf("CheckWritable(%d-byte name) = %v", longest, err)
	}
	if err := outfile.Write(ok, func(w io.Writer) error { _, err := io.WriteString(w, "{}"); return err }); err != nil {
		t.Fatalf("Write(%d-byte name) = %v", longest, err)
	}
	tooLong := filepath.Join(dir, strings.Repeat("r", longest-4)+".json")
	if err := outfile.CheckWritable(tooLong); err == nil {
		t.Fatalf("CheckWritable(%d-byte name) = nil", longest+1)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("%d files left, want the one written", len(ents))
	}
}

// Create's file is not under its name until Commit; Abort leaves the
// earlier file; a file never committed (a killed process) leaves only a
// temporary file, never a partial one under the final name.
func TestCreateCommitAbort(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "cpu.prof")
	os.WriteFile(p, []byte("old"), 0o644)
	f, err := outfile.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(f, "new, partial")
	if b, _ := os.ReadFile(p); string(b) != "old" {
		t.Fatalf("before Commit the file holds %q", b)
	}
	f.Abort()
	if b, _ := os.ReadFile(p); string(b) != "old" {
		t.Fatalf("after Abort the file holds %q", b)
	}
	if f, err = outfile.Create(p); err != nil {
		t.Fatal(err)
	}
	io.WriteString(f, "new")
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "new" {
		t.Fatalf("after Commit the file holds %q", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("%d files left", len(ents))
	}
}
