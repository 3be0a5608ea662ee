package observe

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// WestonConfig configures a Weston compositor nested in an X server.
type WestonConfig struct {
	// Display is the X display it draws its output into, as a window of
	// that server ("" means $DISPLAY): an Xvfb with -fbdir, whose
	// framebuffer the observer reads.
	Display string
	// Width and Height are the output's size; 0 means 320×240.
	Width, Height int
	// XWayland starts Weston's X server for X11 clients (XDisplay).
	XWayland bool
	// Desktop runs Weston's desktop shell instead of the kiosk shell: a
	// window can be minimised there, and it sits where the shell puts it.
	Desktop bool
}

// Weston is a Wayland compositor started for observation: Weston 10 or
// later, its x11 backend nested in an X server, with the kiosk shell, so
// that a client that asks for fullscreen fills the output, which is the
// X window titled Title at the X server's origin. (Weston's headless
// backend has no seat, and GLFW 3.3 crashes on it.)
type Weston struct {
	// Socket is its WAYLAND_DISPLAY, RuntimeDir its XDG_RUNTIME_DIR.
	Socket, RuntimeDir string
	// XDisplay is its XWayland's display (":N"), "" without XWayland.
	XDisplay string
	// Title is the title of the X window its output is drawn into.
	Title  string
	Log    string // its log file
	cmd    *exec.Cmd
	cancel context.CancelFunc
	done   chan struct{}
}

// WestonTitle is the title of the X window a nested Weston draws its
// (first) output into.
const WestonTitle = "Weston Compositor - screen0"

var westonSeq atomic.Int64

// StartWeston starts a Weston nested in the X display cfg.Display and
// waits until it accepts Wayland clients (and, with XWayland, until its X
// server listens).
func StartWeston(cfg WestonConfig) (*Weston, error) {
	dir, err := nestIn(&cfg.Display, &cfg.Width, &cfg.Height, "Weston", "make deps installs it", "weston")
	if err != nil {
		return nil, err
	}
	w := &Weston{Socket: fmt.Sprintf("tickframe-%d-%d", os.Getpid(), westonSeq.Add(1)), RuntimeDir: dir,
		Title: WestonTitle, Log: filepath.Join(dir, "weston.log"), done: make(chan struct{})}
	shell := "kiosk-shell.so"
	if cfg.Desktop {
		shell = "desktop-shell.so"
	}
	args := []string{"--backend=x11-backend.so", "--shell=" + shell, "--socket=" + w.Socket,
		"--width=" + strconv.Itoa(cfg.Width), "--height=" + strconv.Itoa(cfg.Height),
		"--idle-time=0", "--no-config", "--log=" + w.Log}
	if cfg.XWayland {
		args = append(args, "--xwayland")
	}
	ctx, cancel := context.WithCancel(context.Background())
	w.cancel = cancel
	w.cmd = exec.CommandContext(ctx, "weston", args...)
	w.cmd.Env = westonEnv(os.Environ(), cfg.Display, dir)
	if err := w.cmd.Start(); err != nil {
		cancel()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("observe: start weston: %w", err)
	}
	go func() { _ = w.cmd.Wait(); close(w.done) }()
	if err := w.wait(cfg.XWayland, 20*time.Second); err != nil {
		w.Close()
		return nil, err
	}
	return w, nil
}

// nestIn checks what a compositor named name nested in an X display
// needs (the display, by default $DISPLAY; the programs bins, installed,
// or an error saying install)
// and gives its output's size a default, 320×240; it returns a new
// runtime directory for it, private (libwayland refuses one others can
// read).
func nestIn(display *string, width, height *int, name, install string, bins ...string) (string, error) {
	if *width == 0 || *height == 0 {
		*width, *height = 320, 240
	}
	if *display == "" {
		*display = os.Getenv("DISPLAY")
	}
	if *display == "" {
		return "", fmt.Errorf("observe: %s needs an X display to nest in (DISPLAY is not set)", name)
	}
	for _, bin := range bins {
		if _, err := exec.LookPath(bin); err != nil {
			return "", fmt.Errorf("observe: %s is not installed (%s)", bin, install)
		}
	}
	dir, err := os.MkdirTemp("", "tickframe-"+bins[0]+"-")
	if err != nil {
		return "", fmt.Errorf("observe: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("observe: %w", err)
	}
	return dir, nil
}

// westonEnv is env for Weston: DISPLAY the X server to nest in, its own
// runtime directory, and no WAYLAND_DISPLAY (which would make it nest in
// that compositor instead).
func westonEnv(env []string, display, dir string) []string {
	out := make([]string, 0, len(env)+2)
	for _, kv := range env {
		if hasAny(kv, "DISPLAY=", "XDG_RUNTIME_DIR=", "WAYLAND_DISPLAY=", "WAYLAND_SOCKET=") {
			continue
		}
		out = append(out, kv)
	}
	return append(out, "DISPLAY="+display, "XDG_RUNTIME_DIR="+dir)
}

func hasAny(kv string, prefixes ...string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(kv, p) {
			return true
		}
	}
	return false
}

var westonXDisplay = regexp.MustCompile(`xserver listening on display (:[0-9]+)`)

// wait waits for the Wayland socket (and XWayland's display).
func (w *Weston) wait(xwayland bool, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		select {
		case <-w.done:
			return fmt.Errorf("observe: weston exited at start: %s", w.lastLog())
		default:
		}
		_, err := os.Stat(filepath.Join(w.RuntimeDir, w.Socket))
		ready := err == nil
		if ready && xwayland {
			data, _ := os.ReadFile(w.Log)
			if m := westonXDisplay.FindSubmatch(data); m != nil {
				w.XDisplay = string(m[1])
			} else {
				ready = false
			}
		}
		if ready {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("observe: weston did not accept clients in %v: %s", limit, w.lastLog())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// lastLog is the last line of Weston's log, for an error.
func (w *Weston) lastLog() string { return lastLine(w.Log) }

// lastLine is the last line of a log file, quoted, for an error.
func lastLine(path string) string {
	data, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if lines[len(lines)-1] == "" {
		return "its log is empty"
	}
	return fmt.Sprintf("%q", lines[len(lines)-1])
}

// Env is env for a client of the compositor: WAYLAND_DISPLAY and
// XDG_RUNTIME_DIR for a Wayland client; with x11, DISPLAY is XWayland's
// and WAYLAND_DISPLAY is left out (a GLFW built for X11 ignores it; a
// toolkit that would pick Wayland does not).
func (w *Weston) Env(env []string, x11 bool) []string {
	out := make([]string, 0, len(env)+3)
	for _, kv := range env {
		if hasAny(kv, "XDG_RUNTIME_DIR=", "WAYLAND_DISPLAY=", "WAYLAND_SOCKET=") || x11 && strings.HasPrefix(kv, "DISPLAY=") {
			continue
		}
		out = append(out, kv)
	}
	out = append(out, "XDG_RUNTIME_DIR="+w.RuntimeDir)
	if x11 {
		return append(out, "DISPLAY="+w.XDisplay)
	}
	return append(out, "WAYLAND_DISPLAY="+w.Socket)
}

// PID is the compositor's process id.
func (w *Weston) PID() int { return w.cmd.Process.Pid }

// Close stops the compositor (and its XWayland) and removes its runtime
// directory.
func (w *Weston) Close() {
	_ = w.cmd.Process.Signal(os.Interrupt)
	select {
	case <-w.done:
	case <-time.After(3 * time.Second):
		w.cancel()
		<-w.done
	}
	w.cancel()
	os.RemoveAll(w.RuntimeDir)
}
