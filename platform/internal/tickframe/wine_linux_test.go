package tickframe

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tickframe/tickframe/platform/internal/refworld"
)

// wineArgs is the run the Windows targets name: 320×240, 64
// bodies, an emulated 144 Hz display and the default 120 Hz simulation,
// for 10 s.
var wineArgs = withSmall("-bodies", "64", "-refresh", "144", "-duration", "10s", "-report", "r.json", "-screenshot", "s.png")

// TestWindowsDemoUnderWine cross-builds the demo for Windows with mingw-w64,
// runs it under Wine on this display and checks what it wrote against what
// Linux computes: the state hash at its final tick (the reference world
// stepped here), the tick rate, the clock (QueryPerformanceCounter), and
// priorities read back through the Windows API with no Linux lever
// claimed. make test installs Wine and mingw-w64 (.ci/deps.sh) and runs
// it; .ci/windows/test.sh demo runs it alone.
func TestWindowsDemoUnderWine(t *testing.T) {
	needDisplay(t)
	for _, tool := range []string{"wine", "wineserver", "x86_64-w64-mingw32-gcc"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is missing: run make deps (Debian: wine wine64 gcc-mingw-w64-x86-64)", tool)
		}
	}
	dir := t.TempDir()
	exe := filepath.Join(dir, "tickframe.exe")
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	build := exec.CommandContext(ctx, "go", "build", "-o", exe, "../../../cmd/tickframe")
	build.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=1", "CC=x86_64-w64-mingw32-gcc")
	start := time.Now()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("cross-build: %v\n%s", err, out)
	}
	t.Logf("cross-built tickframe.exe in %v", time.Since(start).Round(time.Second))
	// A Wine prefix of the test's own (about 15 s to make), unless
	// .ci/windows/test.sh gives its run's: no other Wine user of the
	// machine shares its server, and the clean-up ends only this one.
	mk := exec.CommandContext(ctx, "../../../.ci/windows/prefix.sh")
	if os.Getenv("TICKFRAME_WINEPREFIX") == "" {
		mk.Env = append(os.Environ(), "TICKFRAME_WINEPREFIX="+filepath.Join(dir, "prefix"))
	}
	var stderr strings.Builder
	mk.Stderr = &stderr
	prefix, err := mk.Output()
	if err != nil {
		t.Fatalf("wine prefix: %v\n%s", err, stderr.String())
	}
	env := append(os.Environ(), "WINEPREFIX="+strings.TrimSpace(string(prefix)), "WINEDEBUG=-all", "WINEDLLOVERRIDES=mscoree,mshtml=")
	t.Cleanup(func() {
		for _, arg := range []string{"-k", "-w"} {
			k := exec.Command("wineserver", arg)
			k.Env = env
			k.Run()
		}
	})
	run := exec.CommandContext(ctx, "wine", append([]string{exe}, wineArgs...)...)
	run.Dir, run.Env = dir, env
	out, err := run.CombinedOutput()
	if err != nil {
		t.Fatalf("tickframe.exe under Wine: %v\n%s", err, out)
	}
	rep, raw := readReport(t, filepath.Join(dir, "r.json"))
	t.Logf("under Wine: %.2f ticks/s, %.1f fps, tick lateness p50 %.3f p99 %.3f ms, beat %v (%d frames), animation error p99 %.4f tick, render delay %.1f ms, final tick %d",
		rep.TickRateHz, rep.FPS, measured(t, "tick_lateness_ms", rep.TickLatenessMs).P50, rep.TickLatenessMs.P99, rep.BeatDetected, rep.BeatFrames,
		measured(t, "pose_error_ticks", rep.PoseErrorTicks).P99, rep.RenderDelayMs, rep.FinalTick)

	// The simulation: the same world as Linux's, tick for tick.
	if want := referenceHash(t, rep.Bodies, rep.SimHz, measured(t, "final_tick", rep.FinalTick)); rep.StateHash != want {
		t.Errorf("state hash %s at tick %d, Linux's world there is %s", rep.StateHash, *rep.FinalTick, want)
	}
	if d := math.Abs(rep.TickRateHz-float64(rep.SimHz)) / float64(rep.SimHz); d > 0.01 {
		t.Errorf("tick rate %.2f Hz, %.2f %% from %d", rep.TickRateHz, 100*d, rep.SimHz)
	}
	if !strings.Contains(strings.ToLower(rep.GLRenderer), "llvmpipe") {
		t.Errorf("GL renderer %q: not the host's Mesa through Wine", rep.GLRenderer)
	}

	// The platform's levers, in its own terms.
	if s, _ := raw["clock_source"].(string); s != "qpc" {
		t.Errorf("clock_source %q, want qpc", raw["clock_source"])
	}
	prio, _ := raw["thread_priority"].(map[string]any)
	for _, c := range []struct{ thread, level string }{{"sim", "THREAD_PRIORITY_HIGHEST"}, {"render", "THREAD_PRIORITY_ABOVE_NORMAL"}} {
		tp, _ := prio[c.thread].(map[string]any)
		native, _ := prio[c.thread+"_native"].(string)
		// Wine's MMCSS is a stub: SetThreadPriority is what it grants, and
		// the native read-back says what the host thread got.
		if tp["how"] != "raised" || !strings.Contains(native, "GetThreadPriority "+c.level) ||
			!strings.Contains(native, "MMCSS not in force") || !strings.Contains(native, "host thread nice ") {
			t.Errorf("%s thread: how %v, native %q; want raised, %s read back, MMCSS not in force, the host thread's nice", c.thread, tp["how"], native, c.level)
		}
		t.Logf("%s thread: how %v, %s", c.thread, tp["how"], native)
		if tp["nice"] != 0.0 || tp["slice"] != "unsupported" || tp["slice_us"] != 0.0 {
			t.Errorf("%s thread: a Linux lever reported on Windows: %v", c.thread, tp)
		}
	}
	if v, ok := raw["background_nice"]; !ok || v != nil || raw["background_priority"] != "THREAD_PRIORITY_BELOW_NORMAL" {
		t.Errorf("background_nice %v, background_priority %v: want null (not Linux) and THREAD_PRIORITY_BELOW_NORMAL", raw["background_nice"], raw["background_priority"])
	}

	// The picture.
	img := decodePNG(t, filepath.Join(dir, "s.png"))
	if b := img.Bounds(); b.Dx() != 320 || b.Dy() != 240 {
		t.Errorf("screenshot %v, want 320×240", b)
	}
	if n := colours(img); n < 16 {
		t.Errorf("screenshot has %d colours: not the scene", n)
	}
}

// referenceHash steps the reference world as the demo does (seed 1, no
// input) to tick and returns its hash as the report writes it.
func referenceHash(t *testing.T, bodies, hz int, tick uint64) string {
	t.Helper()
	w, err := refworld.New(bodies, 1)
	if err != nil {
		t.Fatal(err)
	}
	for w.Tick() < tick {
		w.Step(w.Tick()+1, 1/float64(hz), nil)
	}
	return fmt.Sprintf("%016x", w.Hash())
}

// The reproduction above is Linux's own run, hash for hash: without it a
// mismatch under Wine could be the reproduction's.
func TestReferenceHashIsTheDemos(t *testing.T) {
	t.Parallel() // a functional run: beside another (main_test.go)
	needDisplay(t)
	dir := t.TempDir()
	wantOK(t, tickframe(t, opts{dir: dir}, withSmall("-refresh", "144", "-duration", "3s", "-report", "r.json")...))
	rep, _ := readReport(t, filepath.Join(dir, "r.json"))
	if want := referenceHash(t, rep.Bodies, rep.SimHz, measured(t, "final_tick", rep.FinalTick)); rep.StateHash != want {
		t.Fatalf("the demo's hash %s at tick %d, the reference world's %s", rep.StateHash, *rep.FinalTick, want)
	}
}
