package tickframe

// The tests of this package run the real command. TestMain builds it once,
// and each test runs it as a subprocess: GLFW and OpenGL need a process's
// main thread, which a test function does not have. The tests that open a
// window need an X display in $DISPLAY (make test provides one) and skip,
// saying so, without one. They assert on what the command writes (exit
// status, messages, reports, profiles, recordings), never on how fast the
// machine is.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tickframe/tickframe/platform/internal/observe"
)

// binary is the tickframe command that TestMain built.
var binary string

// The live runs that check what a run leaves and says (files, exit
// status, recordings, the viewer), not its timing, call t.Parallel: go
// test runs them after the timing tests, which run alone, two at a time
// on this machine's two cores. Their bounds (tens of seconds to start,
// ticks counted, not rates) hold with a second app beside them, as they
// hold beside other work. The runs that press keys run alone too: GLFW
// focuses a window it shows, and the keys go where the focus is.
func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "tickframe-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	binary = filepath.Join(dir, "tickframe")
	// Built without -race whatever the tests run with: the timing the
	// reports hold must be the product's, not the race detector's.
	if out, err := exec.Command("go", "build", "-o", binary, "../../../cmd/tickframe").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build tickframe: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}

// small makes a run quick: a small window and world. -focuspause=false
// because, with no window manager, every window that opens on the display
// takes the focus (make test runs other packages' window tests at the same
// time), and the demo pauses its simulation when it loses the focus.
var small = []string{"-width", "320", "-height", "240", "-bodies", "256", "-focuspause=false"}

// withSmall returns small followed by args.
func withSmall(args ...string) []string { return append(slices.Clone(small), args...) }

// needDisplay skips a test that opens a window when there is no display.
func needDisplay(t *testing.T) {
	t.Helper()
	if os.Getenv("DISPLAY") == "" {
		t.Skip("opens a window: needs an X display in DISPLAY (make test starts Xvfb)")
	}
}

// runLimit bounds one run of the command, far above the longest run here,
// so that a hang fails its test instead of stalling the whole suite.
const runLimit = 90 * time.Second

// opts say how to run the command; the zero value runs it in the current
// directory with the test's environment, for at most runLimit.
type opts struct {
	dir   string        // working directory
	env   []string      // environment changes: "K=V" sets K, a bare "K" unsets it
	limit time.Duration // kill the command after this long; 0 means runLimit
	wrap  []string      // a command that runs the binary (unshare ...), or none
}

// result is what a finished run did.
type result struct {
	code           int // exit status, -1 if killed by a signal
	stdout, stderr string
	took           time.Duration
}

// proc is a running command.
type proc struct {
	t              *testing.T
	cmd            *exec.Cmd
	stdout, stderr syncBuffer
	start          time.Time
	cancel         context.CancelFunc
	res            *result
}

// syncBuffer is a buffer the command writes while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// start starts the command with args; the test's cleanup kills it if the
// test did not wait for it.
func start(t *testing.T, o opts, args ...string) *proc {
	t.Helper()
	limit := o.limit
	if limit == 0 {
		limit = runLimit
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	p := &proc{t: t, cancel: cancel}
	if len(o.wrap) > 0 {
		p.cmd = exec.CommandContext(ctx, o.wrap[0], append(append(slices.Clone(o.wrap[1:]), binary), args...)...)
	} else {
		p.cmd = exec.CommandContext(ctx, binary, args...)
	}
	p.cmd.Dir = o.dir
	p.cmd.Env = environ(o.env)
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	p.cmd.WaitDelay = 5 * time.Second
	t.Logf("tickframe %s", strings.Join(args, " "))
	p.start = time.Now()
	if err := p.cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if p.res == nil {
			p.cmd.Process.Kill()
			p.cmd.Wait()
		}
		cancel()
	})
	return p
}

// signal sends sig to the command.
func (p *proc) signal(sig os.Signal) {
	p.t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		p.t.Fatalf("send %v: %v", sig, err)
	}
}

// wait waits for the command to exit.
func (p *proc) wait() result {
	p.t.Helper()
	err := p.cmd.Wait()
	p.cancel()
	r := result{code: p.cmd.ProcessState.ExitCode(), stdout: p.stdout.String(), stderr: p.stderr.String(), took: time.Since(p.start)}
	p.res = &r
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		p.t.Fatalf("tickframe: %v", err)
	}
	p.t.Logf("  exit %d after %v", r.code, r.took.Round(time.Millisecond))
	if r.code == -1 {
		p.t.Fatalf("tickframe was killed (%v); stderr:\n%s", p.cmd.ProcessState, r.stderr)
	}
	return r
}

// waitFor waits until the command's stderr holds a line containing substr
// and returns that line, or fails the test after limit.
func (p *proc) waitFor(substr string, limit time.Duration) string {
	p.t.Helper()
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		for line := range strings.Lines(p.stderr.String()) {
			if strings.Contains(line, substr) && strings.HasSuffix(line, "\n") {
				return strings.TrimSuffix(line, "\n")
			}
		}
		if p.cmd.ProcessState != nil {
			break
		}
	}
	p.t.Fatalf("no line with %q on stderr within %v; stderr:\n%s", substr, limit, p.stderr.String())
	return ""
}

// tickframe runs the command to its end.
func tickframe(t *testing.T, o opts, args ...string) result {
	t.Helper()
	return start(t, o, args...).wait()
}

// environ returns the test's environment with changes applied.
func environ(changes []string) []string {
	env := os.Environ()
	for _, c := range changes {
		key, _, _ := strings.Cut(c, "=")
		env = slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, key+"=") })
		if strings.Contains(c, "=") {
			env = append(env, c)
		}
	}
	return env
}

// wantOK fails the test unless r exited 0 without reporting an error.
func wantOK(t *testing.T, r result) {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("exit status %d, want 0; stderr:\n%s", r.code, r.stderr)
	}
	for line := range strings.Lines(r.stderr) {
		if strings.Contains(line, "error") {
			t.Errorf("stderr reports an error on success: %q", line)
		}
	}
}

// wantOneLine fails the test unless r exited with status code and wrote
// exactly one line, starting "tickframe: ", on stderr and nothing on
// stdout. It returns the line.
func wantOneLine(t *testing.T, r result, code int) string {
	t.Helper()
	if r.code != code {
		t.Errorf("exit status %d, want %d", r.code, code)
	}
	if r.stdout != "" {
		t.Errorf("stdout %q, want nothing", r.stdout)
	}
	line, ok := strings.CutSuffix(r.stderr, "\n")
	if !ok || strings.Contains(line, "\n") || !strings.HasPrefix(line, "tickframe: ") {
		t.Errorf("stderr is not one line starting \"tickframe: \":\n%s", r.stderr)
	}
	return line
}

// listFiles returns the paths under dir, relative to it, sorted.
func listFiles(t *testing.T, dir string) []string {
	t.Helper()
	var paths []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if path != dir {
			rel, _ := filepath.Rel(dir, path)
			paths = append(paths, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return paths
}

// readReport reads a -report file as the Report it holds and as the raw
// JSON object, for the keys.
// measured returns a figure of the report that the run must have
// measured (the demo always has its truth), failing t where it is null.
func measured[Q any](t testing.TB, key string, q *Q) Q {
	t.Helper()
	if q == nil {
		t.Fatalf("report: %s is null: not measured", key)
	}
	return *q
}

func readReport(t *testing.T, path string) (*Report, map[string]any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("report: %v", err)
	}
	var r Report
	var raw map[string]any
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatalf("report %s: %v", path, err)
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatalf("report %s: %v", path, err)
	}
	// A figure the run did not measure is null: logged as NaN.
	p50, most, allocs, cycles := math.NaN(), math.NaN(), math.NaN(), math.NaN()
	if fi := r.FrameIntervalMs; fi != nil {
		p50, most = fi.P50, fi.Max
	}
	if r.AllocsPerFrame != nil {
		allocs = *r.AllocsPerFrame
	}
	if r.GCCycles != nil {
		cycles = float64(*r.GCCycles)
	}
	t.Logf("report: %.3f s, %d ticks (%.2f Hz), %d frames (%.1f fps at %.4g Hz %s), frame p50 %.2f ms max %.1f ms, "+
		"discarded %d ticks (%.3f s), clamped %.3f s, paused %.3f s, steps/wake %v, allocs/frame %.3f, %.0f GC cycles",
		r.DurationS, r.Ticks, r.TickRateHz, r.Frames, r.FPS, r.RefreshHz, r.RefreshSource,
		p50, most, r.DiscardedTicks, r.DiscardedS, r.ClampedS, r.PausedS,
		r.StepsPerWakeHist, allocs, cycles)
	return &r, raw
}

// checkTickAccount checks that the ticks run plus the time not caught up
// (clamped, discarded, paused) add up to the run's duration at the tick
// rate, within 2 % and a tick or two at either end of the run. owed is how
// many more ticks may have fallen due, neither run nor discarded, during
// the wake the run stopped in: 0 unless steps take longer than the step.
func checkTickAccount(t *testing.T, r *Report, owed int) {
	t.Helper()
	lost := r.ClampedS + r.DiscardedS + r.PausedS
	want := float64(r.SimHz) * (r.DurationS - lost)
	if got := float64(r.Ticks); got < want-0.02*want-2-float64(owed) || got > want+0.02*want+2 {
		t.Errorf("%d ticks in %.3f s at %d Hz with %.3f s not caught up (clamped %.3f, discarded %.3f, paused %.3f): want %.0f ± 2 %% (%d owed)",
			r.Ticks, r.DurationS, r.SimHz, lost, r.ClampedS, r.DiscardedS, r.PausedS, want, owed)
	}
	if want := float64(r.DiscardedTicks) / float64(r.SimHz); math.Abs(r.DiscardedS-want) > 0.001 {
		t.Errorf("discarded_s %v for %d ticks at %d Hz, want %.4f", r.DiscardedS, r.DiscardedTicks, r.SimHz, want)
	}
	// Every tick ran in some wake: the histogram of steps per wake
	// accounts for them all unless its last, open bucket is used.
	hist := r.StepsPerWakeHist
	if len(hist) > 0 && hist[len(hist)-1] == 0 {
		var steps uint64
		for i, n := range hist {
			steps += uint64(i) * n
		}
		if steps != r.Ticks {
			t.Errorf("steps_per_wake_hist_wakes %v adds up to %d steps, ticks %d", hist, steps, r.Ticks)
		}
	}
	if final := measured(t, "final_tick", r.FinalTick); final != r.Ticks {
		t.Errorf("final_tick %d, ticks %d: want equal", final, r.Ticks)
	}
}

// checkMaxSteps checks that no wake ran more than maxSteps steps.
func checkMaxSteps(t *testing.T, r *Report, maxSteps int) {
	t.Helper()
	for i, n := range r.StepsPerWakeHist {
		if i > maxSteps && n > 0 {
			t.Errorf("steps_per_wake_hist_wakes %v: %d wakes ran %d steps, more than -maxsteps %d", r.StepsPerWakeHist, n, i, maxSteps)
		}
	}
}

// decodePNG decodes the PNG file at path.
func decodePNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return img
}

// colours counts the distinct colours of img.
func colours(img image.Image) int {
	seen := map[[4]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, a := img.At(x, y).RGBA()
			seen[[4]uint32{r, g, bl, a}] = true
		}
	}
	return len(seen)
}

// goTool runs `go tool args...` and returns its output, failing the test
// if it fails.
func goTool(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", append([]string{"tool"}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("go tool %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String()
}

// runDir is t.TempDir for a live run whose files (frame log, report, the
// observer's watch and JSON) explain a failure: when the test fails they
// are copied, under the test's name, into $TICKFRAME_KEEP_FAILED
// (.ci/beside-build-loop.sh sets it) or else tickframe-failed in the
// temporary directory, before the temporary folder goes, and the test
// prints the command that makes them a golden case of the observer's
// analysis (platform/internal/observe/testdata/golden): a failure seen
// once, under whatever load, is then replayed bit for bit on every
// machine. With TICKFRAME_KEEP_RUNS=1 the runs that pass are kept too
// (into the same folder), to record golden cases from them.
func runDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Cleanup(func() {
		if !t.Failed() && os.Getenv("TICKFRAME_KEEP_RUNS") != "1" {
			return
		}
		if dst, err := keepRun(t.Name(), dir); err != nil {
			t.Logf("keeping the run's files: %v", err)
		} else {
			t.Logf("the run's files are kept in %s", dst)
			if hasWatch(dst) {
				t.Logf("to make it a golden case: %s", goldenCommand(t.Name(), dst))
			}
		}
	})
	return dir
}

// keepRun copies a failed run's folder into the keeping folder, under
// the test's name, and returns where.
func keepRun(test, dir string) (string, error) {
	keep := os.Getenv("TICKFRAME_KEEP_FAILED")
	if keep == "" {
		keep = filepath.Join(os.TempDir(), "tickframe-failed")
	}
	if err := os.MkdirAll(keep, 0o755); err != nil {
		return "", err
	}
	dst, err := os.MkdirTemp(keep, goldenName(test)+"-")
	if err != nil {
		return "", err
	}
	return dst, os.CopyFS(dst, os.DirFS(dir))
}

// hasWatch reports whether a kept run has the observer's watch and the
// app's frame log, what a golden case replays.
func hasWatch(dir string) bool {
	for _, f := range []string{"watch.json", "frames.log"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			return false
		}
	}
	return true
}

// goldenName is a test's name as a folder's.
func goldenName(test string) string {
	return strings.ToLower(strings.NewReplacer("/", "-", " ", "_", ".", "_").Replace(test))
}

// goldenCommand is the shell command, run at the repository's root, that
// turns a kept run into a golden case: its watch, frame log (with the
// app's vblank reports), the app's report and the observer's copied, a
// SOURCE naming the run, and the analyses' verdicts written by the
// golden tests' -update (the observer's comparison, the app's vblank
// fit); review want.json and grid.json before committing them.
func goldenCommand(test, dir string) string {
	g := "platform/internal/observe/testdata/golden/" + goldenName(test)
	return fmt.Sprintf("mkdir -p %[1]s && cp %[2]s/*.json %[2]s/frames.log %[1]s/ && "+
		"echo %[3]q > %[1]s/SOURCE && go test ./platform/internal/observe -run '^TestGoldenCases$/^%[4]s$' -update && "+
		"go test ./platform/internal/present -run '^TestGridGoldenCases$/^%[4]s$' -update && "+
		"go test ./platform/internal/tickframe -run '^TestGolden(Behind)?Verdicts$/^%[4]s$' -update",
		g, dir, "live run of "+test+", kept in "+dir+" (say where it ran, under what load, and why it is a case)", goldenName(test))
}

// A failed live run's files are kept, and the command printed for them
// makes a golden case the observer's golden test reads: run here (in a
// scratch root, up to its go test) on a kept copy of a recorded case.
func TestKeptRunBecomesAGoldenCase(t *testing.T) {
	t.Setenv("TICKFRAME_KEEP_FAILED", t.TempDir())
	run := t.TempDir()
	src := filepath.Join("..", "observe", "testdata", "golden", "x144-refresh0-starved")
	if err := os.CopyFS(run, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	kept, err := keepRun("TestUnderMutter/up 49.8 days", run)
	if err != nil {
		t.Fatal(err)
	}
	if !hasWatch(kept) {
		t.Fatalf("%s: no watch and frame log kept", kept)
	}
	cmd := goldenCommand("TestUnderMutter/up 49.8 days", kept)
	shell, _, ok := strings.Cut(cmd, " && go test ")
	if !ok || !strings.Contains(cmd, "-run '^TestGoldenCases$/^testundermutter-up_49_8_days$' -update") {
		t.Fatalf("the command does not update the case's verdicts: %s", cmd)
	}
	root := t.TempDir()
	c := exec.Command("sh", "-c", shell)
	c.Dir = root
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", shell, err, out)
	}
	g := filepath.Join(root, "platform/internal/observe/testdata/golden/testundermutter-up_49_8_days")
	if b, err := os.ReadFile(filepath.Join(g, "SOURCE")); err != nil || !strings.Contains(string(b), "TestUnderMutter/up 49.8 days") {
		t.Errorf("SOURCE %q, %v: want the run named", b, err)
	}
	if _, err := observe.ReadRecord(filepath.Join(g, "watch.json")); err != nil {
		t.Error(err)
	}
	if _, err := observe.ReadFrameLog(filepath.Join(g, "frames.log")); err != nil {
		t.Error(err)
	}
	for _, f := range []string{"report.json", "observe.json"} {
		if _, err := os.Stat(filepath.Join(g, f)); err != nil {
			t.Error(err)
		}
	}
}
