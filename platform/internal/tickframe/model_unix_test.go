//go:build unix

package tickframe

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestFIFOModel (issue 24, item 15): a model file that is a FIFO is
// refused at once by view and -model (the loader waited for a writer
// forever): exit 2, one line.
func TestFIFOModel(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe.glb")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"view", "-duration", "2s", fifo},
		withSmall("-duration", "2s", "-model", fifo),
	} {
		r := tickframe(t, opts{dir: t.TempDir()}, args...)
		if line := wantOneLine(t, r, 2); !strings.Contains(line, "not a regular file (a FIFO)") {
			t.Errorf("%q: %q, want a refusal of the FIFO", args, line)
		}
	}
}
