package main

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
	press := platform.Event{Kind: platform.KeyEvent, Key: 'R', Action: platform.Press}
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
	t.Parallel() // a run of the built example: beside another (each checks what it leaves)
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

// build builds the example into a temporary directory and returns the
// binary's path.
func build(t *testing.T) string {
	t.Helper()
	gotool, err := exec.LookPath("go")
	if err != nil {
		t.Fatal("no go command in PATH to build the example with")
	}
	bin := filepath.Join(t.TempDir(), "minimal")
	if out, err := exec.Command(gotool, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestBadValuesExitTwoBeforeAWindow runs the example with values that
// cannot run and no display at all: each must exit 2 with one line naming
// the problem. Had the app tried to open its window first, it would have
// failed on the missing display instead, with status 1.
func TestBadValuesExitTwoBeforeAWindow(t *testing.T) {
	t.Parallel() // a run of the built example: beside another (each checks what it leaves)
	bin := build(t)
	missing := filepath.Join(t.TempDir(), "no", "such", "dir")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-width", "0"}, "window size 0x720"},
		{[]string{"-height", "0"}, "window size 1280x0"},
		{[]string{"-width", "20000"}, "window size"},
		{[]string{"-screenshot", filepath.Join(missing, "x.png")}, "does not exist"},
		{[]string{"-report", filepath.Join(missing, "r.json")}, "does not exist"},
		{[]string{"-plot", filepath.Join(missing, "p.png")}, "does not exist"},
		{[]string{"-cpuprofile", filepath.Join(missing, "cpu.pprof")}, "does not exist"},
		{[]string{"-report", t.TempDir()}, "is a directory"},
		{[]string{"-screenshot", "last.jpg"}, ".png"},
		{[]string{"-motion", "cubic"}, "motion"},
	} {
		cmd := exec.Command(bin, tc.args...)
		cmd.Env = append(os.Environ(), "DISPLAY=", "WAYLAND_DISPLAY=")
		out, err := cmd.CombinedOutput()
		code := -1
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		msg := string(out)
		if code != 2 || strings.Count(msg, "\n") != 1 || !strings.HasPrefix(msg, "minimal: ") || !strings.Contains(msg, tc.want) {
			t.Errorf("%v: exit %d, output %q; want 2 and one line \"minimal: ...%s...\"", tc.args, code, msg, tc.want)
		}
	}
}

// TestReport runs the example, unchanged, with -report: the template
// writes the standard timing report, with the demo's keys.
func TestReport(t *testing.T) {
	t.Parallel() // a run of the built example: beside another (each checks what it leaves)
	if os.Getenv("DISPLAY") == "" {
		t.Fatal("needs a display: run `make test`, which starts Xvfb, or set DISPLAY")
	}
	bin := build(t)
	rep := filepath.Join(t.TempDir(), "r.json")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, bin, "-duration", "3s", "-refresh", "60", "-report", rep).CombinedOutput(); err != nil {
		t.Fatalf("minimal -report: %v\n%s", err, out)
	}
	data, err := os.ReadFile(rep)
	if err != nil {
		t.Fatal(err)
	}
	var r map[string]any
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatalf("report: %v\n%s", err, data)
	}
	for _, key := range []string{"duration_s", "sim_hz", "refresh_hz", "refresh_source", "ticks", "frames", "tick_rate_hz",
		"fps", "frame_interval_ms", "tick_lateness_ms", "ticks_per_frame_hist_frames", "alpha_fraction", "snapshot_age_ms",
		"gc_cycles", "alloc_objects_per_frame", "steady_alloc_objects", "missed_vblanks", "present_time_source", "sched_latency_ms", "gomaxprocs",
		"motion_mode", "latency_mode", "bodies", "go_version", "gl_renderer"} {
		if _, ok := r[key]; !ok {
			t.Errorf("report lacks %q", key)
		}
	}
	// The demo's loads are the demo's keys (app.Report.Extra), not every
	// app's.
	for _, key := range []string{"stress", "stepcost_ms", "gcpressure_mb_s"} {
		if _, ok := r[key]; ok {
			t.Errorf("report has the demo's key %q", key)
		}
	}
	// The app gives no truth (Config.Tools.Truth): what it would measure
	// is null, never a zero that reads as perfect, and drawn_source is
	// absent.
	for _, key := range []string{"pose_error_ticks", "planned_pose_error_ticks", "animation_error_ms",
		"planned_animation_error_ms", "display_lag_ms", "gpu_cpu_max_diff_m"} {
		if v, ok := r[key]; !ok || v != nil {
			t.Errorf("%s %v (present %v): want null, as the run measured no error", key, v, ok)
		}
	}
	if v, ok := r["drawn_source"]; ok {
		t.Errorf("drawn_source %q: want absent without a truth", v)
	}
	// The figures are the run's: 3 s of a 120 Hz simulation, twelve
	// cubes, frames drawn. (A loaded machine may discard ticks or miss
	// frames: the bounds are what no run can pass.)
	if hz, _ := r["sim_hz"].(float64); hz != 120 {
		t.Errorf("sim_hz %v, want 120", r["sim_hz"])
	}
	d, _ := r["duration_s"].(float64)
	ticks, _ := r["ticks"].(float64)
	discarded, _ := r["discarded_ticks"].(float64)
	if d < 3 || d > 10 || ticks < 1 || ticks+discarded > 120*d+2 {
		t.Errorf("%v ticks and %v discarded in %v s, want 3 s or a little more at 120 Hz", ticks, discarded, d)
	}
	if f, _ := r["frames"].(float64); f < 1 || f > 61*d {
		t.Errorf("%v frames in %v s on a 60 Hz display", r["frames"], d)
	}
	if b, _ := r["bodies"].(float64); b != cubes {
		t.Errorf("bodies %v, want %d", r["bodies"], cubes)
	}
}

// TestRecordAndReplay records a run and replays it: the replay must match
// the recording hash for hash, and a damaged recording exits 2.
func TestRecordAndReplay(t *testing.T) {
	t.Parallel() // a run of the built example: beside another (each checks what it leaves)
	if os.Getenv("DISPLAY") == "" {
		t.Fatal("needs a display: run `make test`, which starts Xvfb, or set DISPLAY")
	}
	bin := build(t)
	dir := t.TempDir()
	rec := filepath.Join(dir, "run.tfr")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, bin, "-duration", "2s", "-record", rec).CombinedOutput(); err != nil {
		t.Fatalf("minimal -record: %v\n%s", err, out)
	}
	out, err := exec.CommandContext(ctx, bin, "-replay", rec).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "minimal: replay matches the recording") {
		t.Fatalf("minimal -replay: %v\n%s", err, out)
	}
	data, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.tfr")
	if err := os.WriteFile(bad, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, bin, "-replay", bad)
	cmd.Env = append(os.Environ(), "DISPLAY=") // refused before any window
	out, err = cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || strings.Count(string(out), "\n") != 1 {
		t.Errorf("minimal -replay of a truncated recording: %v, %q; want exit 2 and one line", err, out)
	}
}
