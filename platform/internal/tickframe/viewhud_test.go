package tickframe

import (
	"image"
	"path/filepath"
	"testing"
)

// TestViewHUDSmallWindow runs `tickframe view` in a 480×360 window, the
// turntable still, with its defaults and with -hud: by default no HUD is
// drawn and the whole model is in the frame (its pixels touch no edge);
// with -hud the compact HUD (the model's name and counts, no timing, in
// three lines wrapped to fit) is the only difference between the two
// frames: within its panel's 61 px of height and the window's width, its
// third row drawn; the two runs draw the same frame elsewhere.
func TestViewHUDSmallWindow(t *testing.T) {
	t.Parallel() // a functional run: beside another (main_test.go)
	needDisplay(t)
	dir := t.TempDir()
	model := redGreenModel(t, dir, "box.glb")
	const w, h = 480, 360
	shot := func(name string, extra ...string) image.Image {
		path := filepath.Join(dir, name+".png")
		args := append([]string{"view", model, "-width", "480", "-height", "360", "-turn", "0", "-duration", "1s", "-screenshot", path}, extra...)
		wantOK(t, tickframe(t, opts{}, args...))
		return decodePNG(t, path)
	}
	plain, withHUD := shot("default"), shot("hud", "-hud")
	if plain.Bounds().Dx() != w || plain.Bounds().Dy() != h {
		t.Fatalf("the frame is %v, want %dx%d", plain.Bounds(), w, h)
	}
	red, green, box := hueCount(plain)
	if red+green < w*h/10 || box.Min.X <= 0 || box.Min.Y <= 0 || box.Max.X >= w || box.Max.Y >= h {
		t.Errorf("by default the model's %d pixels span %v: not the whole model in the frame", red+green, box)
	}
	var diff image.Rectangle
	n := 0
	for y := range h {
		for x := range w {
			r0, g0, b0, _ := plain.At(x, y).RGBA()
			r1, g1, b1, _ := withHUD.At(x, y).RGBA()
			if absDiff32(r0, r1) > 8<<8 || absDiff32(g0, g1) > 8<<8 || absDiff32(b0, b1) > 8<<8 {
				diff = diff.Union(image.Rect(x, y, x+1, y+1))
				n++
			}
		}
	}
	// Three rows of text within the old panel's 61 px (the panel itself
	// barely darkens the night sky: the text shows). The HUD's text is
	// 9 px at the least (renderer: 12 px at 720 px high, following the
	// height), whose lines are 10 px apart or more: from the first row's
	// top to the third's baseline is 2 lines and a capital's 6 px at the
	// least.
	if panel := image.Rect(0, 0, w, 3*16-3+16); n < 500 || !diff.In(panel) || diff.Dy() < 2*10+6 {
		t.Errorf("-hud changed %d pixels within %v: want the compact HUD's three rows, within %v", n, diff, panel)
	}
}

func absDiff32(a, b uint32) uint32 {
	if a > b {
		return a - b
	}
	return b - a
}
