package gltf_test

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/tickframe/tickframe/renderer/gltf"
)

// writeGLTF writes the textured box as a .gltf beside its buffer file,
// binName, into a new directory, edited by edit; it returns the .gltf's
// path and the buffer's bytes.
func writeGLTF(t *testing.T, binName string, edit func(doc map[string]any)) (string, []byte) {
	t.Helper()
	js, bin, err := texturedBox().GLTF(binName)
	if err != nil {
		t.Fatal(err)
	}
	doc := decodeJSON(t, js)
	if edit != nil {
		edit(doc)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "model.gltf")
	if err := os.WriteFile(path, encodeJSON(t, doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, bin
}

// grow makes the file at path size bytes long, sparse: no disk is used.
func grow(t *testing.T, path string, size int64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
}

// allocated returns the bytes the Go heap allocated while f ran.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestLoadReadsNoMoreThanClaimed: a buffer file far longer than its
// byteLength is read up to byteLength only (issue 24: a 1 860-byte
// buffer backed by a 3 GB file read all 3 GB); an image file over the
// 1 GiB an image may take is refused unread, as a limit.
func TestLoadReadsNoMoreThanClaimed(t *testing.T) {
	const big = 256 << 20
	path, bin := writeGLTF(t, "model.bin", nil)
	binPath := filepath.Join(filepath.Dir(path), "model.bin")
	if err := os.WriteFile(binPath, bin, 0o644); err != nil {
		t.Fatal(err)
	}
	var small uint64
	for _, size := range []int64{int64(len(bin)), big} {
		grow(t, binPath, size)
		var m *gltf.Model
		var err error
		n := allocated(func() { m, err = gltf.Load(path) })
		if err != nil {
			t.Fatalf("buffer file of %d bytes: %v", size, err)
		}
		checkModel(t, m)
		if size == int64(len(bin)) {
			small = n
			continue
		}
		// The same model from a file 256 MiB longer: what it allocates
		// beyond the exact file's is not the file.
		if n > small+big/16 {
			t.Fatalf("Load allocated %d bytes with a %d-byte buffer file, %d with the exact one: it read past byteLength %d",
				n, size, small, len(bin))
		}
	}

	path, _ = writeGLTF(t, "model.bin", func(doc map[string]any) {
		set(doc, "images.0", map[string]any{"uri": "huge.png"})
	})
	if err := os.WriteFile(filepath.Join(filepath.Dir(path), "model.bin"), bin, 0o644); err != nil {
		t.Fatal(err)
	}
	grow(t, filepath.Join(filepath.Dir(path), "huge.png"), 1<<30+1)
	var err error
	if n := allocated(func() { _, err = gltf.Load(path) }); n > big/16 {
		t.Fatalf("Load allocated %d bytes refusing a 1 GiB image file", n)
	}
	if !errors.Is(err, gltf.ErrLimit) {
		t.Fatalf("a 1 GiB + 1 image file: %v, want an error matching ErrLimit", err)
	}
	checkError(t, err, path, "images[0].uri")
}

// TestLoadRefusesDirectories: a URI naming a directory is refused, the
// URI quoted.
func TestLoadRefusesDirectories(t *testing.T) {
	name := "sub\x1b[2J" // an escape code the error must not carry raw
	if runtime.GOOS == "windows" {
		name = "sub dir" // Windows refuses control characters in a name
	}
	path, _ := writeGLTF(t, name, nil)
	if err := os.Mkdir(filepath.Join(filepath.Dir(path), name), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := gltf.Load(path)
	if err == nil || !strings.Contains(err.Error(), "not a regular file (a directory)") {
		t.Fatalf("a directory as the buffer: %v", err)
	}
	checkError(t, err, path, "buffers[0].uri")
	if !printableLine(err.Error()) {
		t.Fatalf("error is not one printable line: %q", err)
	}
	if _, err := gltf.Load(filepath.Dir(path)); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("a directory as the model: %v", err)
	}
}
