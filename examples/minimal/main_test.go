package main

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/tickframe/tickframe/platform"
	"github.com/tickframe/tickframe/simthread"
)

// maxLines is the example's promise: a complete app in at most 100 lines.
const maxLines = 100

func TestMainFitsIn100Lines(t *testing.T) {
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	n := bytes.Count(src, []byte("\n"))
	if len(src) > 0 && src[len(src)-1] != '\n' {
		n++
	}
	if n > maxLines {
		t.Errorf("main.go has %d lines, more than the %d the example promises", n, maxLines)
	}
}

// TestReverse checks the one input path without a window: a press of R
// becomes the reverse input, a repeat or a release does not, and Step
// flips the spin.
func TestReverse(t *testing.T) {
	press := platform.Event{Kind: platform.KeyEvent, Key: platform.KeyR, Action: platform.Press}
	in, ok := input(press)
	if !ok || in.Kind != reverse {
		t.Fatalf("input(R press) = %+v, %v; want the reverse input", in, ok)
	}
	for _, a := range []platform.Action{platform.Repeat, platform.Release} {
		press.Action = a
		if _, ok := input(press); ok {
			t.Errorf("a key %v reversed the spin too", a)
		}
	}
	w := &ring{dir: 1}
	const dt = 1.0 / 120
	w.Step(1, dt, nil)
	w.Step(2, dt, []simthread.Input{in})
	if w.dir != -1 || w.spin != 0 {
		t.Errorf("after one step forward and one reversed: dir %v, spin %v rad; want -1, 0", w.dir, w.spin)
	}
}

// TestSmokeRun builds the example and runs it for two seconds under the
// display, then checks that it exited cleanly and that its last frame
// shows the coloured cubes.
func TestSmokeRun(t *testing.T) {
	if os.Getenv("DISPLAY") == "" {
		t.Skip("needs a display: run `make test`, which starts Xvfb, or set DISPLAY")
	}
	if testing.Short() {
		t.Skip("builds and runs the example: skipped in -short mode")
	}
	gotool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command in PATH to build the example with")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "minimal")
	if out, err := exec.Command(gotool, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	shot := filepath.Join(dir, "last.png")
	cmd := exec.CommandContext(ctx, bin, "-duration", "2s", "-screenshot", shot)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("minimal -duration 2s: %v\n%s", err, out)
	}

	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if n := vividPixels(img); n < 5000 {
		t.Errorf("screenshot %v shows %d vivid pixels; the twelve cubes should give tens of thousands", img.Bounds(), n)
	}
}

// vividPixels counts strongly coloured pixels. The ground, the sky and the
// HUD's text are grey; the cubes are the only large vivid surfaces.
func vividPixels(img image.Image) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			hi, lo := max(r, g, bl)>>8, min(r, g, bl)>>8
			if hi-lo > 80 {
				n++
			}
		}
	}
	return n
}
