package observe

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"sync/atomic"
	"time"
)

// MutterConfig configures a Mutter compositor nested in an X server.
type MutterConfig struct {
	// Display is the X display it draws its output into, as a window of
	// that server ("" means $DISPLAY): an Xvfb with -fbdir, whose
	// framebuffer the observer reads.
	Display string
	// Width and Height are the output's size; 0 means 320×240.
	Width, Height int
}

// Mutter is GNOME's compositor started for observation: Mutter 43 or
// later as a Wayland display server nested in an X server (its X11
// backend draws the output into a window titled MutterTitle at the X
// server's origin), in a D-Bus session of its own, with its XWayland for
// X11 clients. It is the compositor that sends frame timings to an X11
// window in frame sync (present.SourceFrameTimings).
type Mutter struct {
	// XDisplay is its XWayland's display (":N") and XAuthority the file
	// that admits clients to it; RuntimeDir its XDG_RUNTIME_DIR.
	XDisplay, XAuthority, RuntimeDir string
	// Title is the title of the X window its output is drawn into.
	Title  string
	Log    string // its log file (and the D-Bus session's)
	cmd    *exec.Cmd
	cancel context.CancelFunc
	done   chan struct{}
}

// MutterTitle is the title of the X window a nested Mutter draws its
// output into.
const MutterTitle = "mutter"

var mutterSeq atomic.Int64

var mutterXDisplay = regexp.MustCompile(`Using public X11 display (:[0-9]+)`)

// StartMutter starts a Mutter nested in the X display cfg.Display and
// waits until its XWayland admits clients.
func StartMutter(cfg MutterConfig) (*Mutter, error) {
	dir, err := nestIn(&cfg.Display, &cfg.Width, &cfg.Height, "Mutter", "apt install mutter", "mutter", "dbus-run-session")
	if err != nil {
		return nil, err
	}
	m := &Mutter{RuntimeDir: dir, Title: MutterTitle, Log: filepath.Join(dir, "mutter.log"), done: make(chan struct{})}
	log, err := os.Create(m.Log)
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("observe: %w", err)
	}
	defer log.Close()
	ctx, cancel := context.WithCancel(context.Background())
	m.cancel = cancel
	m.cmd = exec.CommandContext(ctx, "dbus-run-session", "--", "mutter", "--nested", "--wayland",
		"--wayland-display=tickframe-mutter-"+strconv.Itoa(os.Getpid())+"-"+strconv.FormatInt(mutterSeq.Add(1), 10))
	m.cmd.Env = append(westonEnv(os.Environ(), cfg.Display, dir),
		fmt.Sprintf("MUTTER_DEBUG_DUMMY_MODE_SPECS=%dx%d", cfg.Width, cfg.Height))
	m.cmd.Stdout, m.cmd.Stderr = log, log
	// Its own process group: D-Bus and Mutter's XWayland go with it.
	ownGroup(m.cmd)
	if err := m.cmd.Start(); err != nil {
		cancel()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("observe: start mutter: %w", err)
	}
	go func() { _ = m.cmd.Wait(); close(m.done) }()
	if err := m.wait(30 * time.Second); err != nil {
		m.Close()
		return nil, err
	}
	return m, nil
}

// wait waits for XWayland's display and its Xauthority file.
func (m *Mutter) wait(limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		select {
		case <-m.done:
			return fmt.Errorf("observe: mutter exited at start: %s", lastLine(m.Log))
		default:
		}
		data, _ := os.ReadFile(m.Log)
		auth, _ := filepath.Glob(filepath.Join(m.RuntimeDir, ".mutter-Xwaylandauth.*"))
		if sm := mutterXDisplay.FindSubmatch(data); sm != nil && len(auth) == 1 {
			m.XDisplay, m.XAuthority = string(sm[1]), auth[0]
			if _, err := os.Stat(xSocket(m.XDisplay)); err == nil {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("observe: mutter's XWayland did not admit clients in %v: %s", limit, lastLine(m.Log))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// xSocket is the local socket of X display d (":N").
func xSocket(d string) string { return "/tmp/.X11-unix/X" + d[1:] }

// Env is env for an X11 client of Mutter's XWayland: its DISPLAY and
// XAUTHORITY, and no Wayland variables (a toolkit that would pick Wayland
// does not).
func (m *Mutter) Env(env []string) []string {
	out := make([]string, 0, len(env)+3)
	for _, kv := range env {
		if hasAny(kv, "DISPLAY=", "XAUTHORITY=", "WAYLAND_DISPLAY=", "WAYLAND_SOCKET=", "XDG_RUNTIME_DIR=") {
			continue
		}
		out = append(out, kv)
	}
	return append(out, "DISPLAY="+m.XDisplay, "XAUTHORITY="+m.XAuthority, "XDG_RUNTIME_DIR="+m.RuntimeDir)
}

// PID is the compositor's process group (dbus-run-session's).
func (m *Mutter) PID() int { return m.cmd.Process.Pid }

// Close stops the compositor, its XWayland and its D-Bus session, and
// removes its runtime directory.
func (m *Mutter) Close() {
	stopGroup(m.cmd)
	select {
	case <-m.done:
	case <-time.After(3 * time.Second):
		m.cancel()
		<-m.done
	}
	m.cancel()
	os.RemoveAll(m.RuntimeDir)
}
