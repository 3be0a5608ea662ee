package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
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

	"github.com/go-gl/mathgl/mgl32"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/simthread"
)

const dt = 1.0 / 120 // the lessons' step, the app's default rate

// TestEnergyDecaysAsRestitutionSays drops one ball from 3 m onto the
// floor and measures the height of each bounce's apex above the contact:
// each must be the one before times restitution² (the energy left after
// a bounce that keeps 0.7 of the speed), within the error of the
// semi-implicit Euler step and of putting the ball back on the floor (a
// step's fall, a few cm).
func TestEnergyDecaysAsRestitutionSays(t *testing.T) {
	const h0 = 3.0
	w := &box{balls: []ball{{pos: mgl64.Vec3{-3, radius + h0, 0}}}}
	var apexes []float64
	rising, top := false, h0
	for tick := uint64(1); tick < 120*12 && len(apexes) < 4; tick++ {
		w.Step(tick, dt, nil)
		y, vy := w.balls[0].pos[1]-radius, w.balls[0].vel[1]
		if vy > 0 {
			rising, top = true, y
		} else if rising {
			rising = false
			apexes = append(apexes, math.Max(top, y))
		}
	}
	if len(apexes) < 4 {
		t.Fatalf("only %d bounces in 12 s", len(apexes))
	}
	prev, e2 := h0, restitution*restitution
	for k, h := range apexes {
		ratio := h / prev
		t.Logf("bounce %d: apex %.4f m, %.4f of the one before (restitution² %.4f)", k+1, h, ratio, e2)
		// The floor's clamp moves the ball up by at most a step's fall,
		// v·dt, which is relatively larger as the bounces get lower.
		tol := 2 * math.Sqrt(2*gravity*prev) * dt / prev
		if math.Abs(ratio-e2) > tol*e2+0.01 {
			t.Errorf("bounce %d: apex %.4f m, %.4f of %.4f m, want %.4f ± %.3f", k+1, h, ratio, prev, e2, tol*e2+0.01)
		}
		prev = h
	}
}

// inBox reports whether a ball's centre is where the box and the thin
// wall let it be: inside, and not in the wall.
func inBox(p mgl32.Vec3) bool {
	const eps = 1e-4
	r := float32(radius - eps)
	if p[0] < -halfX+r || p[0] > halfX-r || p[1] < r || p[1] > height-r || p[2] < -halfZ+r || p[2] > halfZ-r {
		return false
	}
	return p[0] <= wallX-wallHalf-r || p[0] >= wallX+wallHalf+r
}

// TestNoBallLeavesTheBox runs the world for 5 s with the bullet fired at
// 600 m/s every second, and checks every published snapshot and what the
// renderer draws between them (renderer.BodyPose, the shader's CPU
// reference, which renderer's tests hold the GPU to) in lerp and Hermite
// mode at 32 points of each step: no ball outside the box, none in or
// through the thin wall. With -discrete the bullet goes through the wall,
// and the world counts it.
func TestNoBallLeavesTheBox(t *testing.T) {
	for _, discrete := range []bool{false, true} {
		w := newBox(60, 1, discrete)
		w.reg = renderer.NewRegistry()
		var prev, next simthread.Snapshot
		w.Snapshot(&prev)
		bad, crossed, hermite := 0, 0, 0
		for tick := uint64(1); tick <= 600; tick++ {
			w.Step(tick, dt, nil)
			w.Snapshot(&next)
			next.Tick = tick
			for i, b := range next.Bodies {
				if !inBox(b.Pos) {
					bad++
				}
				if i < len(prev.Bodies) && prev.Bodies[i].Epoch == b.Epoch && (prev.Bodies[i].Pos[0] < wallX) != (b.Pos[0] < wallX) {
					crossed++
				}
				for _, mode := range []renderer.MotionMode{renderer.MotionLerp, renderer.MotionHermite} {
					for k := 1; k < 32 && !discrete; k++ {
						plan := renderer.Plan{Ready: true, Prev: &prev, Next: &next, Alpha: float32(k) / 32, Motion: mode, Span: dt}
						p, _, _ := renderer.BodyPose(&plan, i, nil)
						if !inBox(p.Pos) {
							if bad++; bad < 5 {
								t.Errorf("%v, tick %d, ball %d: drawn at %v at alpha %v, between %v and %v", mode, tick, i, p.Pos, plan.Alpha, prev.Bodies[i].Pos, b.Pos)
							}
						}
					}
				}
				if i < len(prev.Bodies) && renderer.Consistent(b.Pos.Sub(prev.Bodies[i].Pos), prev.Bodies[i].Vel, b.Vel, dt) {
					hermite++
				}
			}
			prev, next = next, prev
		}
		t.Logf("discrete %v: %d balls, %d crossings of the thin wall seen, %d counted; %d ball steps drawn with Hermite's cubic",
			discrete, len(w.balls), crossed, w.tunnelled, hermite)
		switch {
		case bad > 0 && !discrete:
			t.Errorf("%d ball positions outside the box or in the thin wall", bad)
		case !discrete && (crossed > 0 || w.tunnelled > 0):
			t.Errorf("with the swept test, %d crossings of the thin wall (%d counted)", crossed, w.tunnelled)
		case discrete && (crossed == 0 || w.tunnelled < crossed):
			t.Errorf("-discrete: %d crossings seen, %d counted: the bullet should tunnel", crossed, w.tunnelled)
		case hermite < 600*10:
			t.Errorf("only %d ball steps followed Hermite's cubic", hermite)
		}
	}
}

// buildApp builds the example into a temporary directory.
func buildApp(t *testing.T) (bin, dir string) {
	t.Helper()
	gotool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command in PATH to build the example with")
	}
	dir = t.TempDir()
	bin = filepath.Join(dir, "bounce")
	if out, err := exec.Command(gotool, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin, dir
}

var summaryRE = regexp.MustCompile(`bounce: (\d+) balls after (\d+) resets, (\d+) published outside the box, (\d+) went through the thin wall`)

// TestBounceRun runs the example under the display for 5 s, Hermite
// mode, the bullet fired at 600 m/s every second, and presses R, then B
// in its window (xdotool, through XTEST with the window focused, as a
// keyboard would): it must exit 0 and report one reset, then ten more
// balls, none outside the box
// and none through the thin wall; with -discrete, the bullet through it.
// The last frame must show the balls in their many materials.
func TestBounceRun(t *testing.T) {
	if os.Getenv("DISPLAY") == "" {
		t.Skip("needs a display: run `make test`, which starts Xvfb, or set DISPLAY")
	}
	if testing.Short() {
		t.Skip("builds and runs the example: skipped in -short mode")
	}
	xdotool, err := exec.LookPath("xdotool")
	if err != nil {
		t.Fatal("needs xdotool to press B in the window: make test installs it (.ci/deps.sh), or apt-get install xdotool")
	}
	bin, dir := buildApp(t)
	for _, discrete := range []bool{false, true} {
		// One after the other: the swept run presses keys, and a window
		// shown beside it takes the focus (GLFW focuses the windows it
		// shows) and the keys with it: the B that went missing at the
		// last stop (61 balls).
		t.Run(fmt.Sprintf("discrete=%v", discrete), func(t *testing.T) {
			bounceRun(t, bin, dir, xdotool, discrete)
		})
	}
}

// bounceRun runs the built example for 5 s and checks what it printed and
// left: with the swept test, R then B pressed in its window; with
// -discrete, no key, and balls through the thin wall.
func bounceRun(t *testing.T, bin, dir, xdotool string, discrete bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	shot := filepath.Join(dir, fmt.Sprintf("last-%v.png", discrete))
	report := filepath.Join(dir, fmt.Sprintf("report-%v.json", discrete))
	// -focuspause=false, as the demo's live tests: beside a build
	// loop this test failed about one run in four with 61 balls and
	// 1 reset (R applied, B's ten missing), and the focus moved to
	// the root window between R and B gives exactly that (the world
	// paused 3.18 s of the 4 s run, B queued behind the pause); with
	// the flag, 71. What moved it was the other subtest's window,
	// running beside this one then: GLFW focuses a window it shows.
	args := []string{"-duration", "5s", "-screenshot", shot, "-width", "480", "-height", "320", "-motion", "hermite", "-report", report,
		"-focuspause=false"}
	if discrete {
		args = append(args, "-discrete")
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pressed := false
	if win := strings.Fields(xdo(ctx, t, xdotool, "search", "--sync", "--pid", fmt.Sprint(cmd.Process.Pid))); len(win) > 0 && !discrete {
		time.Sleep(500 * time.Millisecond)
		xdo(ctx, t, xdotool, "windowfocus", "--sync", win[0])
		xdo(ctx, t, xdotool, "key", "--window", win[0], "r")
		time.Sleep(200 * time.Millisecond)
		xdo(ctx, t, xdotool, "key", "--window", win[0], "b")
		pressed = true
	}
	err := cmd.Wait()
	cancel()
	if err != nil {
		t.Fatalf("bounce %s: %v\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	m := summaryRE.FindStringSubmatch(stdout.String())
	if m == nil {
		t.Fatalf("stdout %q has no summary", stdout.String())
	}
	t.Logf("%s", m[0])
	n, _ := strconv.Atoi(m[1])
	resets, _ := strconv.Atoi(m[2])
	outside, _ := strconv.Atoi(m[3])
	through, _ := strconv.Atoi(m[4])
	switch {
	case pressed && (n != 71 || resets != 1):
		t.Errorf("%d balls and %d resets after pressing R, then B, want 61 + 10 and 1 (report: %s)", n, resets, pausedOf(report))
	case outside > 0:
		t.Errorf("%d balls published outside the box", outside)
	case !discrete && through > 0:
		t.Errorf("%d balls went through the thin wall despite the swept test", through)
	case discrete && through == 0:
		t.Errorf("-discrete: no ball went through the thin wall at 600 m/s")
	}
	checkShot(t, shot)
	var r map[string]any
	if data, err := os.ReadFile(report); err != nil {
		t.Error(err)
	} else if err := json.Unmarshal(data, &r); err != nil {
		t.Errorf("report: %v", err)
	} else if r["motion_mode"] != "hermite" || r["bodies"] != float64(n) || r["frames"] == nil {
		t.Errorf("the standard report says motion %v, %v bodies, %v frames; want hermite, %d", r["motion_mode"], r["bodies"], r["frames"], n)
	}
}

func xdo(ctx context.Context, t *testing.T, xdotool string, args ...string) string {
	out, err := exec.CommandContext(ctx, xdotool, args...).Output()
	if err != nil {
		t.Errorf("xdotool %s: %v", strings.Join(args, " "), err)
	}
	return string(out)
}

// checkShot checks the last frame: balls of many colours (one material
// each: at least 20 distinct saturated hues, coarsely binned) and the
// bullet's orange.
func checkShot(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	hues := map[int]int{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			hi, lo := max(r, g, bl)>>8, min(r, g, bl)>>8
			if hi > 60 && hi-lo > 40 { // saturated: a ball, not the grey walls and floor
				hues[int(r>>13)<<6|int(g>>13)<<3|int(bl>>13)]++
			}
		}
	}
	distinct := 0
	for _, c := range hues {
		if c >= 4 {
			distinct++
		}
	}
	if distinct < 20 {
		t.Errorf("%s shows %d distinct ball colours, want the balls' many materials", path, distinct)
	}
}

// TestBadFlagsExit2 runs the example with flags and values that cannot
// run, and no display at all: each must exit 2 with one line naming the
// problem (a window it tried to open would have failed with status 1).
func TestBadFlagsExit2(t *testing.T) {
	bin, dir := buildApp(t)
	missing := filepath.Join(dir, "no", "such", "dir")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-width", "0"}, "window size 0x"},
		{[]string{"-screenshot", filepath.Join(missing, "x.png")}, "does not exist"},
		{[]string{"-report", filepath.Join(missing, "r.json")}, "does not exist"},
		{[]string{"-motion", "sideways"}, "motion"},
		{[]string{"-discrete=maybe"}, "discrete"},
		{[]string{"-nonsense"}, "nonsense"},
		{[]string{"extra"}, "extra"},
	} {
		cmd := exec.Command(bin, tc.args...)
		cmd.Env = append(os.Environ(), "DISPLAY=", "WAYLAND_DISPLAY=")
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		code := -1
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		}
		if msg := string(out); code != 2 || strings.Count(msg, "\n") != 1 || !strings.HasPrefix(msg, "bounce: ") || !strings.Contains(msg, tc.want) {
			t.Errorf("%v: exit %d, output %q; want 2 and one line \"bounce: ...%s...\"", tc.args, code, msg, tc.want)
		}
	}
}

// TestMainFitsInItsLines keeps the example the size a reader takes in:
// issue 18 asked for about 250 lines, flags and main included (its own
// -discrete goes to app.Main through Config.AppFlags).
func TestMainFitsInItsLines(t *testing.T) {
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(src, []byte("\n")); n > 250 {
		t.Errorf("main.go has %d lines, more than 250", n)
	}
}

// TestStepDoesNotAllocate: a tick of 61 balls, once each has its
// material, allocates nothing (nor does publishing it).
func TestStepDoesNotAllocate(t *testing.T) {
	w := newBox(60, 1, false)
	w.reg = renderer.NewRegistry()
	var snap simthread.Snapshot
	tick := uint64(0)
	step := func() {
		tick++
		w.Step(tick, dt, nil)
		w.Snapshot(&snap)
	}
	for range 10 {
		step()
	}
	if n := testing.AllocsPerRun(200, step); n != 0 {
		t.Errorf("a tick allocates %v times", n)
	}
}

// pausedOf is what a report says of the run's pauses, for a failure.
func pausedOf(report string) string {
	var r struct {
		PausedS      any `json:"paused_s"`
		PausedFrames any `json:"paused_frames"`
	}
	data, err := os.ReadFile(report)
	if err == nil {
		err = json.Unmarshal(data, &r)
	}
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("paused %v s, %v frames", r.PausedS, r.PausedFrames)
}
