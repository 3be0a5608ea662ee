//go:build unix

package renderer_test

import (
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/tickframe/tickframe/renderer"
)

// A screenshot path that is a link to a file in another directory is
// written there, the way every output is (internal/outfile): the link
// stays a link and leads to the new PNG, and nothing is left beside the
// link.
func TestSavePNGThroughLink(t *testing.T) {
	root := t.TempDir()
	links, real := filepath.Join(root, "links"), filepath.Join(root, "real")
	for _, d := range []string{links, real} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	target := filepath.Join(real, "shot.png")
	if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(links, "shot.png")
	if err := os.Symlink("../real/shot.png", path); err != nil {
		t.Fatal(err)
	}
	img := image.NewRGBA(image.Rect(0, 0, 3, 2))
	img.Set(1, 1, color.RGBA{R: 200, A: 255})
	if err := renderer.SavePNG(path, img); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", fi.Mode(), err)
	}
	f, err := os.Open(target)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := png.Decode(f)
	if err != nil {
		t.Fatalf("the link's target is not a PNG: %v", err)
	}
	if got.Bounds() != img.Bounds() || color.RGBAModel.Convert(got.At(1, 1)) != img.At(1, 1) {
		t.Fatalf("the link's target holds another image: %v", got.Bounds())
	}
	for _, d := range []string{links, real} {
		if ents, _ := os.ReadDir(d); len(ents) != 1 {
			t.Fatalf("%s holds %d files", d, len(ents))
		}
	}
}
