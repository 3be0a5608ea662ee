package window

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-gl/glfw/v3.3/glfw"
	"github.com/tickframe/tickframe/platform"
)

func TestMain(m *testing.M) {
	code := 0
	Main(func() { code = m.Run() })
	os.Exit(code)
}

// openForInput opens a visible window for real input on the main thread,
// and closes it when the test ends. It skips the test without a display
// or without xdotool, which plays the user.
func openForInput(t *testing.T, title string) (*Window, string) {
	t.Helper()
	if os.Getenv("DISPLAY") == "" {
		t.Skip("needs a display: run `make test`, which starts Xvfb, or set DISPLAY")
	}
	xdotool, err := exec.LookPath("xdotool")
	if err != nil {
		t.Fatal("needs xdotool to send X input, and there is none in PATH: make test installs it (.ci/deps.sh), or apt-get install xdotool")
	}
	var w *Window
	Call(func() { w, err = Open(Config{Title: title, Width: 320, Height: 240}) })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { Call(w.Close) })
	return w, xdotool
}

// collect runs xdotool with args while it polls w on the main thread, and
// returns the events until done reports it has what it waits for, or ten
// seconds have passed.
func collect(t *testing.T, w *Window, xdotool string, args []string, done func([]platform.Event) bool) []platform.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, xdotool, args...)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var got []platform.Event
	var xerr error
	xdone := false
	for ctx.Err() == nil && !(xdone && done(got)) {
		Call(func() { got = append(got, w.Poll()...) })
		if !xdone {
			select {
			case xerr = <-exited:
				xdone = true
				if xerr != nil {
					t.Fatalf("xdotool %s: %v\n%s", strings.Join(args, " "), xerr, out.String())
				}
			default:
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	if !xdone {
		<-exited
	}
	return got
}

// focus gives the window titled title the keyboard focus and puts the
// pointer at x, y in it, and waits until GLFW says the window is focused:
// input then goes the way a user's does, through XTEST to the focused
// window with the server's timestamps (keys sent to a window not yet
// focused can be lost on the way, and GLFW captures no cursor for an
// unfocused window).
func focus(t *testing.T, w *Window, xdotool, title string, x, y int) {
	t.Helper()
	focused := func() bool {
		var f bool
		Call(func() { f = w.Focused() })
		return f
	}
	collect(t, w, xdotool, []string{
		"search", "--sync", "--onlyvisible", "--name", "^" + title + "$",
		"windowfocus", "--sync", "%1", "mousemove", "--window", "%1", "--sync", strconv.Itoa(x), strconv.Itoa(y),
	}, func([]platform.Event) bool { return focused() })
	if !focused() {
		t.Fatal("the window never got the keyboard focus")
	}
}

// find returns the first event like want in the fields that matter for
// its kind, and whether there is one.
func find(events []platform.Event, match func(platform.Event) bool) (platform.Event, bool) {
	for _, e := range events {
		if match(e) {
			return e, true
		}
	}
	return platform.Event{}, false
}

// TestRealKeysAndButtons types into a real window under X (Xvfb in `make
// test`) with xdotool: a press and a release of W, Shift+A, and a click of
// the left button, and checks that they arrive as Events carrying
// tickframe's key ('W', 'A': a printable key is its character), action,
// button and modifier values.
func TestRealKeysAndButtons(t *testing.T) {
	const title = "tickframe-input-test"
	w, xdotool := openForInput(t, title)
	focus(t, w, xdotool, title, 40, 30)
	args := []string{"keydown", "w", "keyup", "w", "key", "shift+a", "click", "1"}
	isKey := func(k platform.Key, a platform.Action) func(platform.Event) bool {
		return func(e platform.Event) bool { return e.Kind == platform.KeyEvent && e.Key == k && e.Action == a }
	}
	isButton := func(b platform.MouseButton, a platform.Action) func(platform.Event) bool {
		return func(e platform.Event) bool { return e.Kind == platform.ButtonEvent && e.Button == b && e.Action == a }
	}
	events := collect(t, w, xdotool, args, func(ev []platform.Event) bool {
		_, ok := find(ev, isButton(platform.ButtonLeft, platform.Release))
		return ok
	})

	press, ok := find(events, isKey('W', platform.Press))
	if !ok {
		t.Fatalf("no press of W among %+v", events)
	}
	release, ok := find(events, isKey('W', platform.Release))
	if !ok {
		t.Fatalf("no release of W among %+v", events)
	}
	if press.Scancode == 0 || release.Scancode != press.Scancode || press.Mods != 0 {
		t.Errorf("W: press %+v, release %+v; want one nonzero scancode, no modifiers", press, release)
	}
	if a, ok := find(events, isKey('A', platform.Press)); !ok || !a.Mods.Has(platform.ModShift) {
		t.Errorf("Shift+A: %+v, %v; want a press of A with ModShift", a, ok)
	}
	if _, ok := find(events, isKey(platform.KeyLeftShift, platform.Press)); !ok {
		t.Error("no press of LeftShift")
	}
	for _, a := range []platform.Action{platform.Press, platform.Release} {
		b, ok := find(events, isButton(platform.ButtonLeft, a))
		if !ok {
			t.Fatalf("no %v of the left button among %+v", a, events)
		}
		if b.X != 40 || b.Y != 30 {
			t.Errorf("left button %v at %v,%v; want the cursor's 40,30", a, b.X, b.Y)
		}
	}
	if x, y := w.CursorPos(); x != 40 || y != 30 {
		t.Errorf("CursorPos %v,%v; want 40,30", x, y)
	}
}

// TestCaptureCursor captures the cursor of a real window and moves the
// mouse by a relative amount: the CursorEvents' motion adds up to it (or
// at least points its way, where the X server accelerates it).
func TestCaptureCursor(t *testing.T) {
	const title = "tickframe-capture-test"
	w, xdotool := openForInput(t, title)
	focus(t, w, xdotool, title, 100, 100)
	Call(func() { w.CaptureCursor(true) })
	if !w.CursorCaptured() {
		t.Fatal("CursorCaptured false after CaptureCursor(true)")
	}
	// The motion comes before any Poll (which flushes GLFW's requests):
	// the capture must have reached the server when CaptureCursor returned.
	if out, err := exec.Command(xdotool, "mousemove_relative", "--", "30", "-20").CombinedOutput(); err != nil {
		t.Fatalf("xdotool: %v\n%s", err, out)
	}
	events := collect(t, w, xdotool, []string{"sleep", "0.1"}, func(ev []platform.Event) bool {
		var dx, dy float64
		for _, e := range ev {
			dx, dy = dx+e.DX, dy+e.DY
		}
		return dx >= 30 && dy <= -20
	})
	var dx, dy float64
	for _, e := range events {
		if e.Kind == platform.CursorEvent {
			dx, dy = dx+e.DX, dy+e.DY
		}
	}
	t.Logf("captured motion %v,%v, raw motion %v", dx, dy, w.RawMotion())
	if dx <= 0 || dy >= 0 {
		t.Errorf("captured motion %v,%v (raw %v); want it towards +30,-20: %+v", dx, dy, w.RawMotion(), events)
	}
	Call(func() { w.CaptureCursor(false) })
	if w.CursorCaptured() || w.RawMotion() {
		t.Error("still captured after CaptureCursor(false)")
	}
}

// Open refuses any thread but the main one: the test's own goroutine runs
// on another (TestMain's Main serves the main thread), where GLFW works on
// Linux by luck and macOS aborts.
func TestOpenRefusesOtherThreads(t *testing.T) {
	if mainThread == 0 {
		t.Skip("this platform does not name its threads without cgo")
	}
	done := make(chan error)
	go func() {
		runtime.LockOSThread() // a thread of its own, surely not the main one
		defer runtime.UnlockOSThread()
		w, err := Open(Config{Title: "off the main thread", Width: 64, Height: 64})
		if w != nil {
			w.Close()
		}
		done <- err
	}()
	if err := <-done; !errors.Is(err, ErrNotMainThread) {
		t.Fatalf("Open off the main thread: %v; want ErrNotMainThread", err)
	}
	var on bool
	Call(func() { on = onMainThread() })
	if !on {
		t.Fatal("a function passed to Call is not on the main thread")
	}
}

// A fullscreen window is made to be shown behind any compositor: it does
// not minimise itself when it loses the focus, and it is mapped without
// decorations (see create: Mutter before 44.2 never showed a framed
// window it resized before its first commit). Made windowed, it gets its
// decorations back. TestUnderMutter shows the window behind Mutter.
func TestFullscreenWindowIsShownBehindACompositor(t *testing.T) {
	if os.Getenv("DISPLAY") == "" {
		t.Skip("needs a display: run `make test`, which starts Xvfb, or set DISPLAY")
	}
	var w *Window
	var err error
	Call(func() { w, err = Open(Config{Title: "fullscreen", Width: 320, Height: 240, Fullscreen: true}) })
	if err != nil {
		t.Fatal(err)
	}
	defer Call(w.Close)
	attrib := func(a glfw.Hint) (v int) {
		Call(func() { v = w.w.GetAttrib(a) })
		return v
	}
	if !w.Fullscreen() || attrib(glfw.Decorated) != glfw.False || attrib(glfw.AutoIconify) != glfw.False {
		t.Fatalf("fullscreen %v, decorated %d, auto-iconify %d: want true, 0, 0", w.Fullscreen(), attrib(glfw.Decorated), attrib(glfw.AutoIconify))
	}
	Call(w.ToggleFullscreen)
	if w.Fullscreen() || attrib(glfw.Decorated) != glfw.True {
		t.Fatalf("made windowed: fullscreen %v, decorated %d: want false, 1", w.Fullscreen(), attrib(glfw.Decorated))
	}
}
