package main

import (
	"bytes"
	"image"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tickframe/tickframe/simthread"
	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// maxLines is the example's promise: a complete game in under 350 lines.
const maxLines = 349

func TestMainFitsItsLines(t *testing.T) {
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(src, []byte("\n")); n > maxLines {
		t.Errorf("main.go has %d lines, more than %d", n, maxLines)
	}
}

// fly steps w as the simulation does, at the default rate, for d of
// simulated time; pilot, if set, is asked for the steering before every
// tick (nil: none) and its input, when it changes, is applied at the
// start of that tick.
func fly(w *flyer, d time.Duration, pilot func(w *flyer) (x, y float64)) {
	const dt = 1.0 / simthread.DefaultRate
	var sx, sy float64
	var inputs []simthread.Input
	for tick := uint64(1); tick <= uint64(d*simthread.DefaultRate/time.Second); tick++ {
		inputs = inputs[:0]
		if pilot != nil {
			if x, y := pilot(w); x != sx || y != sy {
				sx, sy = x, y
				inputs = append(inputs, simthread.Input{Kind: steer, X: x, Y: y})
			}
		}
		w.Step(tick, dt, inputs)
	}
}

// autopilot steers for the centre of the next ring as it will be when
// the ship reaches it, braking its side speed as it closes in.
func autopilot(w *flyer) (x, y float64) {
	rx, ry, _ := w.ring(w.next, w.time+(w.z-(-spacing*float64(w.next+1)))/w.speed)
	ex, ey := rx-(w.x+w.vx*0.4), ry-(w.y+w.vy*0.4)
	return math.Max(-1, math.Min(1, ex)), math.Max(-1, math.Min(1, ey))
}

// TestRingsScore: a pilot that aims for each ring scores a point for
// nearly every ring it flies, and never crashes; with no pilot, the
// drifting rings are mostly missed.
func TestRingsScore(t *testing.T) {
	w := newFlyer(7, 20)
	fly(w, 30*time.Second, autopilot)
	if w.next < 19 { // 600 m at 20 m/s: 20 rings
		t.Fatalf("flew %d rings in 30 s at 20 m/s, want 19 or more", w.next)
	}
	if w.score < w.next-1 || w.crashes != 0 {
		t.Errorf("the autopilot scored %d of %d rings with %d crashes, want all but one at most and none", w.score, w.next, w.crashes)
	}
	idle := newFlyer(7, 20)
	fly(idle, 30*time.Second, nil)
	t.Logf("autopilot: %d of %d rings, %d crashes; no steering: %d of %d, %d crashes", w.score, w.next, w.crashes, idle.score, idle.next, idle.crashes)
	if idle.score >= w.score {
		t.Errorf("with no steering the ship scored %d, the autopilot %d: the score does not depend on flying through the rings", idle.score, w.score)
	}
}

// TestCrashTeleports: diving into the ground teleports the ship to the
// last ring's plane at cruise height, with a new Epoch for the ship and
// the camera, so that neither is slid there.
func TestCrashTeleports(t *testing.T) {
	w := newFlyer(3, 20)
	var before simthread.Snapshot
	w.Snapshot(&before)
	fly(w, 2*time.Second, func(*flyer) (float64, float64) { return 0, -1 })
	if w.crashes == 0 {
		t.Fatal("diving for 2 s never crashed")
	}
	var after simthread.Snapshot
	w.Snapshot(&after)
	ship := after.Bodies[0]
	if ship.Epoch == before.Bodies[0].Epoch || after.Camera.Epoch == before.Camera.Epoch {
		t.Errorf("after %d crashes the ship's Epoch %d and the camera's %d, before %d and %d: a teleport must change both",
			w.crashes, ship.Epoch, after.Camera.Epoch, before.Bodies[0].Epoch, before.Camera.Epoch)
	}
	if ship.Pos.Y() < shipR || ship.Pos.Y() > cruise+1 {
		t.Errorf("the ship is at height %v after the crash, want it restarted near %v", ship.Pos.Y(), cruise)
	}
}

// TestScoreOverlay: the snapshot's overlay says the world's score, and
// publishing a changing score allocates nothing once the slot has held
// it.
func TestScoreOverlay(t *testing.T) {
	w := newFlyer(7, 20)
	fly(w, 8*time.Second, autopilot)
	var s simthread.Snapshot
	w.Snapshot(&s)
	if len(s.Overlay.Items) == 0 || string(s.Overlay.Items[0].Text) != "score "+strconv.Itoa(w.score) || w.score == 0 {
		t.Fatalf("overlay %+v for score %d", s.Overlay.Items, w.score)
	}
	w.score = 100000
	w.Snapshot(&s) // the longest score the test writes
	if n := testing.AllocsPerRun(100, func() { w.score++; w.Snapshot(&s) }); n != 0 {
		t.Errorf("a snapshot with a changing score allocates %.1f times", n)
	}
}

// build builds the example and returns the binary's path.
func build(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "flyer")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestRunDrawsTheScoreAndReplays runs the game under the display with a
// seed and -speed recorded, reads the score's text back from the last
// frame's pixels, then replays the recording with no other flag.
func TestRunDrawsTheScoreAndReplays(t *testing.T) {
	if os.Getenv("DISPLAY") == "" {
		t.Fatal("needs a display: run make test, which starts Xvfb, or set DISPLAY")
	}
	start := time.Now()
	bin := build(t)
	t.Logf("built in %v", time.Since(start).Round(time.Millisecond))
	dir := t.TempDir()
	shot, rec := filepath.Join(dir, "last.png"), filepath.Join(dir, "run.tfrec")
	out, err := exec.Command(bin, "-seed", "5", "-speed", "30", "-duration", "3s", "-width", "320", "-height", "240",
		"-focuspause=false", "-screenshot", shot, "-record", rec).CombinedOutput()
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	t.Logf("ran in %v", time.Since(start).Round(time.Millisecond))
	m := regexp.MustCompile(`flyer: score (\d+), crashes (\d+)`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("no score printed:\n%s", out)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	// The score as drawn: "score N" at the top left, white, in the
	// overlay's font at its size times the overlay's scale. The last frame may show the snapshot
	// before the final tick's: the score then, or one less.
	score, _ := strconv.Atoi(string(m[1]))
	text := "score " + strconv.Itoa(score)
	k := int(math.Round(48 * min(320.0/1280, 240.0/720))) // the overlay's scale: the smaller of width/1280, height/720
	best, other := math.Inf(1), math.Inf(1)
	for _, s := range []int{score, score - 1} {
		if s >= 0 {
			best = math.Min(best, textMismatch(img, "score "+strconv.Itoa(s), k))
		}
	}
	for _, s := range []int{score + 1, score + 2, score + 5, score + 11} { // other digits, other lengths
		other = math.Min(other, textMismatch(img, "score "+strconv.Itoa(s), k))
	}
	other = math.Min(other, textMismatch(img, "crashes "+string(m[2]), k))
	// The glyphs are drawn texel for texel from their rasterisation at
	// that size: the score's text matches within 2 %, and another
	// number, a digit of a few pixels apart, does not.
	t.Logf("%q at %d px: %.1f %% of its pixels wrong; other texts %.1f %% or more", text, k, 100*best, 100*other)
	if best > 0.02 || other <= 0.02 {
		t.Errorf("the top left reads %q with %.1f %% of its pixels wrong (want at most 2 %%); other texts %.1f %% (want more than 2 %%)",
			text, 100*best, 100*other)
	}
	start = time.Now()
	out, err = exec.Command(bin, "-replay", rec, "-duration", "120s", "-width", "320", "-height", "240").CombinedOutput()
	t.Logf("replayed in %v", time.Since(start).Round(time.Millisecond))
	if err != nil || !strings.Contains(string(out), "replay matches the recording") || !bytes.Contains(out, m[0]) {
		t.Errorf("replay with no other flag: %v\n%s\nwant a match and the recorded run's %q", err, out, m[0])
	}
}

// textMismatch returns the fraction of pixels that differ between the
// white pixels of img's top left and text drawn in the overlay's font (Go
// Regular) at px pixels, at the offset that fits best: the text's own
// pixels (those its glyphs cover 90 % or more) and the background
// between them (under 40 %) both count.
func textMismatch(img image.Image, text string, px int) float64 {
	f, err := opentype.Parse(goregular.TTF)
	if err != nil {
		panic(err)
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: float64(px), DPI: 72, Hinting: font.HintingFull})
	if err != nil {
		panic(err)
	}
	m := face.Metrics()
	w, h := font.MeasureString(face, text).Round(), m.Ascent.Ceil()+m.Descent.Ceil()
	cov := image.NewAlpha(image.Rect(0, 0, w, h))
	(&font.Drawer{Dst: cov, Src: image.Opaque, Face: face, Dot: fixed.P(0, m.Ascent.Ceil())}).DrawString(text)
	want := make([]int8, w*h) // 1: the text's, -1: the background's
	for i, a := range cov.Pix {
		if a >= 230 {
			want[i] = 1
		} else if a < 102 {
			want[i] = -1
		}
	}
	white := func(x, y int) bool {
		r, g, b, _ := img.At(x, y).RGBA()
		return r>>8 > 200 && g>>8 > 200 && b>>8 > 200
	}
	best := 1.0
	for oy := 0; oy < 24; oy++ {
		for ox := 0; ox < 24; ox++ {
			bad, on := 0, 0
			for y := range h {
				for x := range w {
					if want[y*w+x] > 0 {
						on++
					}
					if want[y*w+x] != 0 && white(ox+x, oy+y) != (want[y*w+x] > 0) {
						bad++
					}
				}
			}
			best = math.Min(best, float64(bad)/float64(max(on, 1)))
		}
	}
	return best
}
