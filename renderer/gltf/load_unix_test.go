//go:build unix

package gltf_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tickframe/tickframe/renderer/gltf"
)

// TestLoadRefusesFIFOs: a model file or a buffer URI naming a FIFO is
// refused at once (issue 24: the loader waited for a writer forever).
func TestLoadRefusesFIFOs(t *testing.T) {
	path, _ := writeGLTF(t, "pipe.bin", nil)
	dir := filepath.Dir(path)
	buf, model := filepath.Join(dir, "pipe.bin"), filepath.Join(dir, "pipe.glb")
	for _, p := range []string{buf, model} {
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{path, model} {
		done := make(chan error, 1)
		go func() {
			_, err := gltf.Load(p)
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "not a regular file (a FIFO)") {
				t.Fatalf("Load(%s): %v, want a refusal of the FIFO", filepath.Base(p), err)
			}
		case <-time.After(30 * time.Second): // it returns in microseconds
			// Unblock the open, so that the goroutine ends.
			for _, q := range []string{buf, model} {
				if f, err := os.OpenFile(q, os.O_RDWR, 0); err == nil {
					defer f.Close()
				}
			}
			t.Fatalf("Load(%s) still waits on the FIFO after 30 s", filepath.Base(p))
		}
	}
}
