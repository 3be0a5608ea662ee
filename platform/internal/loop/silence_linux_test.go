//go:build linux && !wayland

package loop

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tickframe/tickframe/platform/internal/present"
	"github.com/tickframe/tickframe/platform/internal/refworld"
	"github.com/tickframe/tickframe/platform/internal/window"
	"github.com/tickframe/tickframe/simthread"
)

// silenceEnv makes TestSilenceChild run (the parent's display), and
// silenceRun is how long it runs.
const (
	silenceEnv = "TICKFRAME_SILENCE_CHILD"
	silenceRun = 1500 * time.Millisecond
)

// silenceResult is what TestSilenceChild saw of its run.
type silenceResult struct {
	Frames, Ticks, PausedFrames uint64
	Source, Fallback, Pacing    string
	Fallbacks, Returns          uint64
}

// TestSilenceChild is the child of TestSilenceNeverPauses: it runs the
// runtime on the display it is given and prints what it saw. Run without
// that environment, it does nothing.
func TestSilenceChild(t *testing.T) {
	if os.Getenv(silenceEnv) == "" {
		return
	}
	world, err := refworld.New(16, 1)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Title: "silence", Width: 160, Height: 120, Settings: Settings{Duration: silenceRun,
		Display: Display{KeepRunningUnfocused: true}},
		Sim: simthread.Tuning{InitSnapshot: func(s *simthread.Snapshot) { s.Bodies = make([]simthread.Body, 0, 16) }}}
	var r silenceResult
	window.Call(func() {
		var a *App
		w := &pauseWatch{r: &r}
		if a, err = New(cfg, world, w); err != nil {
			return
		}
		defer a.Close()
		w.a = a
		if err = a.Run(context.Background()); err != nil {
			return
		}
		src := a.src
		r.Ticks = a.Sim().Telemetry().Read().Ticks
		r.Source, r.Fallback, r.Pacing = src.Source(), src.Fallback(), a.pacing.source
		r.Fallbacks, r.Returns = src.Stats().Fallbacks, src.Stats().Returns
	})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(r)
	fmt.Printf("silence: %s\n", b)
}

// pauseWatch counts the frames the simulation was paused at.
type pauseWatch struct {
	NoHook
	a *App
	r *silenceResult
}

func (w *pauseWatch) Ended(*Frame) {
	w.r.Frames++
	if w.a.Paused() {
		w.r.PausedFrames++
	}
}

// A window manager's _NET_SUPPORTED that lists frame sync while nothing
// answers never pauses the world (issue 37: paused 1.9 s of 3, 135
// ticks), on an Xvfb of the test's own with no window manager: a stale
// _NET_SUPPORTED, with no _NET_SUPPORTING_WM_CHECK, is not taken (the
// frames are the X server's from the start); one whose check names a
// window that names itself is taken, and its silence makes the tracker
// fall back to the X server's round trip and vblanks, which the pacing
// follows.
func TestSilenceNeverPauses(t *testing.T) {
	disp := privateXvfb(t)
	props := wmProps(t)
	for _, c := range []struct {
		wm        string
		fallbacks uint64
	}{{"stale", 0}, {"alive", 1}} {
		t.Run(c.wm, func(t *testing.T) {
			set := exec.Command(props, c.wm)
			set.Env = append(os.Environ(), "DISPLAY="+disp)
			if out, err := set.CombinedOutput(); err != nil {
				t.Fatalf("wmprops %s: %v\n%s", c.wm, err, out)
			}
			r := runSilenceChild(t, disp)
			t.Logf("%+v", r)
			if r.PausedFrames != 0 {
				t.Errorf("the world was paused at %d frames of %d", r.PausedFrames, r.Frames)
			}
			// 1.5 s at 120 Hz is 180 ticks; a pause of a quarter of the
			// run took 45, and the run lost two thirds.
			if want := uint64(silenceRun.Seconds() * simthread.DefaultRate / 2); r.Ticks < want {
				t.Errorf("%d ticks, want more than %d", r.Ticks, want)
			}
			if r.Source != present.SourceRoundTrip && r.Source != present.SourceComplete {
				t.Errorf("present source %q, want the X server's", r.Source)
			}
			if r.Fallbacks != c.fallbacks || r.Returns != 0 {
				t.Errorf("%d fallbacks, %d returns; want %d, 0", r.Fallbacks, r.Returns, c.fallbacks)
			}
			if want := map[bool]string{true: present.SourceFrameTimings}[c.fallbacks > 0]; r.Fallback != want {
				t.Errorf("fallen back from %q, want %q", r.Fallback, want)
			}
			if r.Pacing != present.VblankPresentMSC {
				t.Errorf("paced on %q, want the X server's vblanks (%s)", r.Pacing, present.VblankPresentMSC)
			}
		})
	}
}

// runSilenceChild runs TestSilenceChild on display disp and returns what
// it saw.
func runSilenceChild(t *testing.T, disp string) silenceResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestSilenceChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), silenceEnv+"=1", "DISPLAY="+disp)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the child failed: %v\n%s", err, out)
	}
	for line := range strings.Lines(string(out)) {
		if j, ok := strings.CutPrefix(strings.TrimSpace(line), "silence: "); ok {
			var r silenceResult
			if err := json.Unmarshal([]byte(j), &r); err != nil {
				t.Fatal(err)
			}
			return r
		}
	}
	t.Fatalf("no result from the child:\n%s", out)
	return silenceResult{}
}

// privateXvfb starts an Xvfb of the test's own (its root window's
// properties are the test's to set, not the shared display's), ended
// with the test, and returns its display name.
func privateXvfb(t *testing.T) string {
	t.Helper()
	xvfb, err := exec.LookPath("Xvfb")
	if err != nil {
		t.Fatal("needs Xvfb, which make test installs (.ci/deps.sh): apt-get install xvfb")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// -noreset: the root's properties outlive the client that set them.
	cmd := exec.Command(xvfb, "-displayfd", "3", "-screen", "0", "640x480x24", "+extension", "GLX", "+render", "-noreset", "-nolisten", "tcp")
	cmd.ExtraFiles = []*os.File{w}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	got := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		got <- strings.TrimSpace(line)
	}()
	select {
	case n := <-got:
		if n == "" {
			t.Fatal("Xvfb did not start")
		}
		return ":" + n
	case <-time.After(20 * time.Second):
		t.Fatal("Xvfb did not say its display in 20 s")
	}
	return ""
}

// wmPropsC sets the root window's _NET_SUPPORTED to list
// _NET_WM_FRAME_DRAWN, as a window manager with frame sync does; "alive"
// also points _NET_SUPPORTING_WM_CHECK at a window that names itself
// (the root), "stale" removes it (its window manager is gone).
const wmPropsC = `#include <string.h>
#include <X11/Xlib.h>
#include <X11/Xatom.h>
int main(int argc, char **argv) {
	Display *d = XOpenDisplay(NULL);
	if (!d || argc != 2)
		return 1;
	Window root = DefaultRootWindow(d);
	Atom drawn = XInternAtom(d, "_NET_WM_FRAME_DRAWN", False), check = XInternAtom(d, "_NET_SUPPORTING_WM_CHECK", False);
	XChangeProperty(d, root, XInternAtom(d, "_NET_SUPPORTED", False), XA_ATOM, 32, PropModeReplace, (unsigned char *)&drawn, 1);
	if (strcmp(argv[1], "alive") == 0)
		XChangeProperty(d, root, check, XA_WINDOW, 32, PropModeReplace, (unsigned char *)&root, 1);
	else
		XDeleteProperty(d, root, check);
	XSync(d, False);
	XCloseDisplay(d);
	return 0;
}
`

// wmProps builds the X client that sets the window manager's properties.
func wmProps(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	src, bin := filepath.Join(dir, "wmprops.c"), filepath.Join(dir, "wmprops")
	if err := os.WriteFile(src, []byte(wmPropsC), 0o644); err != nil {
		t.Fatal(err)
	}
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "cc"
	}
	if out, err := exec.Command(cc, "-o", bin, src, "-lX11").CombinedOutput(); err != nil {
		t.Fatalf("building wmprops: %v\n%s", err, out)
	}
	return bin
}
