//go:build linux

package app

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/platform/internal/framelog"
	"github.com/tickframe/tickframe/platform/internal/record"
	"github.com/tickframe/tickframe/platform/internal/refworld"
	"github.com/tickframe/tickframe/platform/internal/sim"
	"github.com/tickframe/tickframe/platform/internal/window"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/simthread"
)

// The exit-path test runs the real app (Main's run, flags and all) in a
// child process, the test binary itself, ends it each way a run can end
// and checks every file it leaves. The child's world is the reference
// world with faults the parent asks for in its environment.
const (
	childEnv    = "TICKFRAME_EXITPATH_CHILD" // the child's flags, one per line
	faultEnv    = "TICKFRAME_EXITPATH_FAULT" // step:N, snapshot:N or mesh:N
	exitBodies  = 32
	exitSeed    = 7
	exitRate    = 120
	tickingLine = "exitpath: ticking"
	startLine   = "exitpath: started"
	sceneLine   = "exitpath: scene"
)

// faultyWorld is the reference world that panics in Step or Snapshot at a
// tick, or registers a mesh the renderer cannot upload (an index past its
// positions), which the next frame reports: the draw path's error. It says
// on stderr when it has run half a second, so that the parent acts on a
// running app.
type faultyWorld struct {
	*refworld.World
	kind string
	at   uint64
	reg  *renderer.Registry
}

func (w *faultyWorld) Step(tick uint64, dt float64, in []simthread.Input) {
	w.World.Step(tick, dt, in)
	if tick == exitRate/2 {
		fmt.Fprintln(os.Stderr, tickingLine)
	}
	if w.kind == "step" && tick == w.at {
		panic("exitpath: step fault")
	}
	if w.kind == "mesh" && tick == w.at {
		w.reg.AddMesh(renderer.Part{Positions: []mgl32.Vec3{{0, 0, 0}}, Indices: []uint32{0, 0, 5}})
	}
}

func (w *faultyWorld) Snapshot(dst *simthread.Snapshot) {
	if w.kind == "snapshot" && w.World.Tick() == w.at {
		panic("exitpath: snapshot fault")
	}
	w.World.Snapshot(dst)
}

// TestExitPathChild is the child of TestExitPaths: it runs the app with
// the flags in its environment and exits with Main's status. Run without
// that environment, it does nothing.
func TestExitPathChild(t *testing.T) {
	args := os.Getenv(childEnv)
	if args == "" {
		return
	}
	world, err := refworld.New(exitBodies, exitSeed)
	if err != nil {
		t.Fatal(err)
	}
	fw := &faultyWorld{World: world}
	if f := os.Getenv(faultEnv); f != "" {
		kind, at, _ := strings.Cut(f, ":")
		fw.kind = kind
		fw.at, _ = strconv.ParseUint(at, 10, 64)
	}
	cfg := Config{Title: "exitpath", Rate: exitRate, Look: Look{HideHUD: true}}
	var set Settings
	set.Display.KeepRunningUnfocused = true
	set.Sim.InitSnapshot = func(s *simthread.Snapshot) { s.Bodies = make([]simthread.Body, 0, exitBodies) }
	cfg.Scene = func(r *renderer.Renderer) error {
		fw.reg = r.Registry()
		if fw.kind == "early" {
			// The window is open, the simulation not started: a signal
			// now ends the run before its first tick.
			fmt.Fprintln(os.Stderr, sceneLine)
			time.Sleep(time.Second)
		}
		return nil
	}
	fmt.Fprintln(os.Stderr, startLine)
	code := 0
	window.Call(func() {
		code = run(append([]string{"exitpath"}, strings.Split(args, "\n")...), os.Stderr, cfg, fw, WithSettings(&set))
	})
	os.Exit(code)
}

// exitCase is one way a run ends.
type exitCase struct {
	name  string
	fault string                                         // the world's fault (faultEnv)
	args  []string                                       // more flags
	end   func(t *testing.T, c *child, dir string)       // ends the run; nil: the run ends itself
	code  int                                            // the exit status wanted
	files bool                                           // files are wanted (false: the run never opened, or was killed)
	keys  bool                                           // presses a key in its window: runs alone (see TestExitPaths)
	check func(t *testing.T, r map[string]any, c *child) // more checks of the report
}

// Every way out of a run leaves true files: a report whose every figure is
// a finite number in range, a recording that replays on a fresh world to
// the tick it ends at with the same hash, CPU and heap profiles that are
// whole gzip streams, a trace with its header. Ways the process cannot
// write its files (SIGKILL, the X server dropping the connection, a window
// that never opens) leave nothing under the files' names and keep the
// files that were there before.
func TestExitPaths(t *testing.T) {
	if os.Getenv("DISPLAY") == "" {
		t.Fatal("needs a display: run make test, which starts Xvfb, or set DISPLAY")
	}
	// After the 2 s warm-up, so that the steady-state figures are taken
	// on the failing paths too.
	late := strconv.Itoa(exitRate * 3)
	signal := func(sig syscall.Signal) func(*testing.T, *child, string) {
		return func(t *testing.T, c *child, _ string) { c.waitFor(t, tickingLine); c.signal(t, sig) }
	}
	failed := func(substr string) func(*testing.T, map[string]any, *child) {
		return func(t *testing.T, _ map[string]any, c *child) {
			line := c.errLine(t)
			if !strings.Contains(line, substr) {
				t.Errorf("stderr %q, want it to say %q", line, substr)
			}
			if strings.Count(line, substr) != 1 {
				t.Errorf("stderr says %q more than once: %q", substr, line)
			}
		}
	}
	cases := []exitCase{
		{name: "duration", args: []string{"-duration", "3s"}, files: true},
		{name: "esc", end: func(t *testing.T, c *child, _ string) { c.waitFor(t, tickingLine); c.press(t, "Escape") }, files: true, keys: true},
		{name: "window close", end: func(t *testing.T, c *child, _ string) { c.waitFor(t, tickingLine); c.closeWindow(t) }, files: true},
		{name: "SIGINT", end: signal(syscall.SIGINT), files: true},
		{name: "SIGTERM", end: signal(syscall.SIGTERM), files: true},
		{name: "SIGHUP", end: signal(syscall.SIGHUP), files: true},
		{name: "early SIGINT", fault: "early", end: func(t *testing.T, c *child, _ string) { c.waitFor(t, sceneLine); c.signal(t, syscall.SIGINT) }, files: true},
		{name: "panic in Step", fault: "step:" + late, code: 1, files: true, check: failed("world panicked at tick " + late)},
		{name: "panic in Snapshot", fault: "snapshot:" + late, code: 1, files: true, check: failed("world panicked at tick " + late)},
		{name: "draw error", fault: "mesh:" + late, code: 1, files: true, check: failed("past 1 positions")},
		{name: "screenshot fails", args: []string{"-duration", "3s", "-screenshot", "gone/last.png"}, code: 1, files: true,
			end: func(t *testing.T, c *child, dir string) {
				c.waitFor(t, tickingLine)
				if err := os.RemoveAll(filepath.Join(dir, "gone")); err != nil {
					t.Fatal(err)
				}
			}},
		{name: "SIGKILL", end: signal(syscall.SIGKILL), code: -1},
		{name: "X connection lost", end: func(t *testing.T, c *child, _ string) { c.waitFor(t, tickingLine); c.killClient(t) }, code: 1},
		{name: "no display", args: []string{"-duration", "3s"}, code: 1},
	}
	// Each case is a child process of its own, with its own window, and
	// checks what it leaves, not how fast: they run two at a time (the
	// machine's two cores), which halves the 35 s they took in turn.
	// A case that presses a key runs first, alone: a window shown beside
	// it takes the focus (GLFW focuses the windows it shows), and the
	// key with it, which ended the other case's run (an Escape) or
	// never reached its own.
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if !tc.keys {
				t.Parallel()
			}
			runExitCase(t, tc)
		})
	}
}

// outputs are the files every case asks for, by flag.
var outputs = []struct{ flag, name string }{
	{"-report", "report.json"}, {"-record", "run.rec"}, {"-cpuprofile", "cpu.prof"},
	{"-trace", "run.trace"}, {"-memprofile", "mem.prof"}, {"-framelog", "frames.log"},
}

func runExitCase(t *testing.T, tc exitCase) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "gone"), 0o755); err != nil {
		t.Fatal(err)
	}
	var args []string
	old := []byte("a file from before the run\n")
	for _, o := range outputs {
		args = append(args, o.flag, o.name)
		if err := os.WriteFile(filepath.Join(dir, o.name), old, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	args = append(args, "-width", "320", "-height", "240")
	args = append(args, tc.args...)
	env := []string{childEnv + "=" + strings.Join(args, "\n"), faultEnv + "=" + tc.fault}
	if tc.name == "no display" {
		env = append(env, "DISPLAY=", "WAYLAND_DISPLAY=")
	}
	c := startChild(t, dir, env)
	if tc.end != nil {
		tc.end(t, c, dir)
	}
	code := c.wait(t)
	if code != tc.code {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, tc.code, c.stderr.String())
	}
	for _, o := range outputs {
		p := filepath.Join(dir, o.name)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatalf("%s %s: %v", o.flag, o.name, err)
		}
		if !tc.files {
			if !bytes.Equal(b, old) {
				t.Errorf("%s %s: a run that could not write its files changed the file there (%d bytes)", o.flag, o.name, len(b))
			}
			continue
		}
		if bytes.Equal(b, old) {
			t.Errorf("%s %s: not written", o.flag, o.name)
			continue
		}
		switch o.flag {
		case "-report":
			r := checkReport(t, b)
			if tc.check != nil && r != nil {
				tc.check(t, r, c)
			}
		case "-record":
			checkRecording(t, p, tc.fault)
		case "-cpuprofile", "-memprofile":
			checkProfile(t, o.name, b)
		case "-framelog":
			if _, err := framelog.Read(p); err != nil {
				t.Errorf("%s: %v", o.name, err)
			}
		case "-trace":
			if len(b) < 64 || !bytes.HasPrefix(b, []byte("go 1.")) || !bytes.Contains(b[:16], []byte(" trace\x00")) {
				t.Errorf("%s: no trace header: %q", o.name, b[:min(len(b), 16)])
			}
		}
	}
	if kind, at, _ := strings.Cut(tc.fault, ":"); kind == "step" {
		// The app itself replays the recording to the tick before the
		// panic, and says so.
		want := "exitpath: -record run.rec: recorded up to tick " + strconv.Itoa(mustAtoi(t, at)-1) + ", the last before the world panicked"
		if !strings.Contains(c.stdout.String(), want) {
			t.Errorf("stdout %q, want %q", c.stdout.String(), want)
		}
		r := startChild(t, dir, []string{childEnv + "=-replay\nrun.rec\n-width\n320\n-height\n240", faultEnv + "="})
		if code := r.wait(t); code != 0 {
			t.Fatalf("-replay of the panicked run: exit %d; stderr:\n%s", code, r.stderr.String())
		}
		want = "replay matches the recording: 0 inputs, 2 checkpoints, final tick " + strconv.Itoa(mustAtoi(t, at)-1)
		if !strings.Contains(r.stdout.String(), want) {
			t.Errorf("-replay stdout %q, want %q", r.stdout.String(), want)
		}
	}
	// Temporary files are left only by a process that was killed.
	if ents, _ := os.ReadDir(dir); tc.files || tc.name == "no display" {
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), ".") {
				t.Errorf("temporary file %s left behind", e.Name())
			}
		}
	}
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// checkReport parses the report and checks that every number in it is
// finite and in range: no count near 2^64 (an unsigned subtraction gone
// below zero), and a run that ran has its length, rates and frames.
func checkReport(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var r map[string]any
	if err := json.Unmarshal(b, &r); err != nil {
		t.Errorf("report: %v", err)
		return nil
	}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case float64:
			// 2^53: no count or figure of a run of minutes comes near it.
			if math.IsNaN(v) || math.Abs(v) > 1<<53 {
				t.Errorf("report %s = %v: out of range", path, v)
			}
			if v < 0 && !strings.Contains(path, "nice") && !strings.Contains(path, "priority") {
				t.Errorf("report %s = %v: negative", path, v)
			}
		case map[string]any:
			for k, x := range v {
				walk(path+"."+k, x)
			}
		case []any:
			for i, x := range v {
				walk(fmt.Sprintf("%s[%d]", path, i), x)
			}
		}
	}
	walk("", r)
	frames, _ := r["frames"].(float64)
	if frames == 0 {
		return r // the run ended before its first frame: no rates to have
	}
	for _, k := range []string{"duration_s", "fps"} {
		if v, _ := r[k].(float64); !(v > 0) {
			t.Errorf("report %s = %v after %v frames, want above 0", k, r[k], frames)
		}
	}
	// A rate over the steady state: a simulation that ran two seconds'
	// worth of ticks has one, however starved the machine left it.
	if ticks, _ := r["ticks"].(float64); ticks >= 2*exitRate {
		if v, _ := r["tick_rate_hz"].(float64); !(v > 0) {
			t.Errorf("report tick_rate_hz = %v after %v ticks, want above 0", r["tick_rate_hz"], ticks)
		}
	}
	if fps, _ := r["fps"].(float64); fps > 10000 {
		t.Errorf("report fps = %v", fps)
	}
	return r
}

// checkRecording reads the recording and replays it on a fresh world on
// a virtual clock: it must reach its final tick with the recorded hashes.
// After a panic at tick T the recording ends at T−1.
func checkRecording(t *testing.T, path, fault string) {
	t.Helper()
	l, err := record.ReadFile(path)
	if err != nil {
		t.Errorf("recording: %v", err)
		return
	}
	if fault == "early" && l.FinalTick != 0 {
		t.Errorf("recording ends at tick %d, want 0: the run stopped before its first tick", l.FinalTick)
	}
	if kind, at, ok := strings.Cut(fault, ":"); ok && kind != "mesh" {
		if want, _ := strconv.ParseUint(at, 10, 64); l.FinalTick != want-1 {
			t.Errorf("recording ends at tick %d, want %d, the tick before the panic", l.FinalTick, want-1)
		}
	}
	world, _ := refworld.New(exitBodies, exitSeed)
	if l.FinalTick == 0 {
		if err := l.Verify(nil, 0, world.Hash()); err != nil {
			t.Errorf("empty recording: %v", err)
		}
		return
	}
	clock := new(sim.VirtualClock)
	s, err := sim.New(l.ReplayConfig(), world, clock)
	if err != nil {
		t.Errorf("replay: %v", err)
		return
	}
	for !s.Stopped() {
		if _, err := s.Wake(); err != nil {
			t.Errorf("replay: %v", err)
			return
		}
		clock.Advance(time.Second / 64)
	}
	if err := l.Verify(s.Checkpoints(), world.Tick(), world.Hash()); err != nil {
		t.Errorf("replay of %d ticks: %v", l.FinalTick, err)
	}
}

// checkProfile checks that a pprof file is a whole gzip stream (its CRC
// and length checked at its end) holding a protocol buffer that starts
// with a profile's first field.
func checkProfile(t *testing.T, name string, b []byte) {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Errorf("%s: truncated or damaged: %v", name, err)
		return
	}
	// A profile.proto message: its first byte is the tag of one of
	// Profile's fields (1 to 14), varint or length-delimited.
	if len(raw) < 2 || raw[0]>>3 < 1 || raw[0]>>3 > 14 || raw[0]&7 != 0 && raw[0]&7 != 2 {
		t.Errorf("%s: not a profile (%d bytes, first %x)", name, len(raw), raw[:min(len(raw), 4)])
	}
}

// child is the app running in a child process.
type child struct {
	cmd            *exec.Cmd
	stdout, stderr syncBuf
	done           chan struct{}
}

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func startChild(t *testing.T, dir string, env []string) *child {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	c := &child{done: make(chan struct{})}
	c.cmd = exec.CommandContext(ctx, os.Args[0], "-test.run=^TestExitPathChild$")
	c.cmd.Dir = dir
	c.cmd.Env = append(os.Environ(), env...)
	c.cmd.Stdout, c.cmd.Stderr = &c.stdout, &c.stderr
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { c.cmd.Wait(); close(c.done) }()
	t.Cleanup(func() { c.cmd.Process.Kill(); <-c.done })
	return c
}

// wait waits for the child and returns its exit status, -1 if a signal
// killed it.
func (c *child) wait(t *testing.T) int {
	t.Helper()
	<-c.done
	return c.cmd.ProcessState.ExitCode()
}

// waitFor waits for a line on the child's stderr.
func (c *child) waitFor(t *testing.T, line string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if strings.Contains(c.stderr.String(), line+"\n") {
			return
		}
		select {
		case <-c.done:
			t.Fatalf("the child exited before %q; stderr:\n%s", line, c.stderr.String())
		default:
		}
	}
	t.Fatalf("no %q from the child in 30 s; stderr:\n%s", line, c.stderr.String())
}

// errLine is the child's error line: stderr without the test's own lines.
func (c *child) errLine(t *testing.T) string {
	t.Helper()
	var lines []string
	for line := range strings.Lines(c.stderr.String()) {
		if line = strings.TrimSpace(line); line != "" && line != startLine && line != tickingLine && line != sceneLine {
			lines = append(lines, line)
		}
	}
	if len(lines) != 1 {
		t.Errorf("stderr holds %d lines, want the error alone: %q", len(lines), lines)
	}
	return strings.Join(lines, "\n")
}

func (c *child) signal(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := c.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
}

// window returns the child's window id, from xdotool.
func (c *child) window(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// xdotool walks every window of the display; once, beside a build
	// loop, it exited 1 after 0.9 s, long before its deadline (a window
	// of another case, which run two at a time, going away during the
	// walk is the likely cause, not shown): it is asked again until the
	// deadline.
	for {
		out, err := exec.CommandContext(ctx, xdotool(t), "search", "--sync", "--pid", strconv.Itoa(c.cmd.Process.Pid)).Output()
		if f := strings.Fields(string(out)); err == nil && len(f) > 0 {
			return f[0]
		}
		if ctx.Err() != nil {
			t.Fatalf("xdotool search --pid: the window did not appear in 20 s: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// press focuses the child's window and presses key in it.
func (c *child) press(t *testing.T, key string) {
	t.Helper()
	win := c.window(t)
	if out, err := exec.Command(xdotool(t), "windowfocus", "--sync", win).CombinedOutput(); err != nil {
		t.Fatalf("xdotool windowfocus: %v\n%s", err, out)
	}
	if out, err := exec.Command(xdotool(t), "key", "--window", win, key).CombinedOutput(); err != nil {
		t.Fatalf("xdotool key: %v\n%s", err, out)
	}
}

// closeWindow asks the child's window to close as a window manager does
// (WM_DELETE_WINDOW), with a small X client built for the test.
func (c *child) closeWindow(t *testing.T) {
	t.Helper()
	win := c.window(t)
	if out, err := exec.Command(wmDelete(t), win).CombinedOutput(); err != nil {
		t.Fatalf("wm-delete %s: %v\n%s", win, err, out)
	}
}

// killClient makes the X server drop the child's connection (XKillClient),
// as when the server goes away.
func (c *child) killClient(t *testing.T) {
	t.Helper()
	if out, err := exec.Command(xdotool(t), "windowkill", c.window(t)).CombinedOutput(); err != nil {
		t.Fatalf("xdotool windowkill: %v\n%s", err, out)
	}
}

func xdotool(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("xdotool")
	if err != nil {
		t.Fatal("needs xdotool, which make test installs (.ci/deps.sh): apt-get install xdotool")
	}
	return p
}

var wmDeleteOnce struct {
	sync.Once
	path string
	err  error
}

// wmDelete builds the X client that sends WM_DELETE_WINDOW, once.
func wmDelete(t *testing.T) string {
	t.Helper()
	wmDeleteOnce.Do(func() {
		dir, err := os.MkdirTemp("", "wm-delete-")
		if err != nil {
			wmDeleteOnce.err = err
			return
		}
		afterTests = append(afterTests, func() { os.RemoveAll(dir) })
		src := filepath.Join(dir, "wm-delete.c")
		wmDeleteOnce.path = filepath.Join(dir, "wm-delete")
		os.WriteFile(src, []byte(wmDeleteC), 0o644)
		cc := os.Getenv("CC")
		if cc == "" {
			cc = "cc"
		}
		if out, err := exec.Command(cc, "-o", wmDeleteOnce.path, src, "-lX11").CombinedOutput(); err != nil {
			wmDeleteOnce.err = fmt.Errorf("%v\n%s", err, out)
		}
	})
	if wmDeleteOnce.err != nil {
		t.Fatalf("build the WM_DELETE_WINDOW client: %v", wmDeleteOnce.err)
	}
	return wmDeleteOnce.path
}

const wmDeleteC = `#include <X11/Xlib.h>
#include <stdlib.h>
int main(int argc, char **argv) {
	if (argc != 2) return 2;
	Display *d = XOpenDisplay(NULL);
	if (!d) return 1;
	Window w = strtoul(argv[1], NULL, 0);
	XEvent e = {0};
	e.xclient.type = ClientMessage;
	e.xclient.window = w;
	e.xclient.message_type = XInternAtom(d, "WM_PROTOCOLS", False);
	e.xclient.format = 32;
	e.xclient.data.l[0] = XInternAtom(d, "WM_DELETE_WINDOW", False);
	e.xclient.data.l[1] = CurrentTime;
	if (!XSendEvent(d, w, False, NoEventMask, &e)) return 1;
	XCloseDisplay(d);
	return 0;
}
`
