package observe

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// XvfbConfig configures an Xvfb to observe.
type XvfbConfig struct {
	// FPS is the rate of its fake CRTC, whose vblanks Present reports
	// (-fakescreenfps); 0 means 144, XvfbDefaultFPS the server's own
	// default (no -fakescreenfps: 60 Hz), as a CI machine's or a remote
	// session's Xvfb runs.
	FPS int
	// Width and Height are the screen's size; 0 means 640×480.
	Width, Height int
	// Nice, if below 0, is asked for the server (needs CAP_SYS_NICE; not
	// granted, the server runs at the caller's): tests that measure the
	// server's own timing raise it over the other work on the machine.
	Nice int
}

// XvfbDefaultFPS asks for an Xvfb started without -fakescreenfps: its
// fake CRTC at the server's default rate, XvfbBuiltinFPS.
const XvfbDefaultFPS = -1

// XvfbBuiltinFPS is the rate of Xvfb's fake CRTC without -fakescreenfps
// (the X server's present_fake.c: one vblank every 1/60 s).
const XvfbBuiltinFPS = 60

// Xvfb is a virtual X server started for observation: its framebuffer is
// a file (-fbdir), its fake CRTC runs at a known rate.
type Xvfb struct {
	// Display is its display name (":N"), FB its framebuffer file.
	Display, FB string
	FPS         int
	cmd         *exec.Cmd
	cancel      context.CancelFunc
	dir         string
	done        chan struct{}
}

// StartXvfb starts an Xvfb with a free display number and waits until it
// accepts connections.
func StartXvfb(cfg XvfbConfig) (*Xvfb, error) {
	if cfg.FPS == 0 {
		cfg.FPS = 144
	}
	if cfg.Width == 0 || cfg.Height == 0 {
		cfg.Width, cfg.Height = 640, 480
	}
	rate := []string{"-fakescreenfps", strconv.Itoa(cfg.FPS)}
	if cfg.FPS == XvfbDefaultFPS {
		cfg.FPS, rate = XvfbBuiltinFPS, nil
	}
	if cfg.FPS < 1 || cfg.FPS > 600 {
		return nil, fmt.Errorf("observe: fake screen rate %d Hz out of Xvfb's range [1, 600]", cfg.FPS)
	}
	if _, err := exec.LookPath("Xvfb"); err != nil {
		return nil, errors.New("observe: Xvfb is not installed (make deps installs it)")
	}
	dir, err := os.MkdirTemp("", "tickframe-observe-")
	if err != nil {
		return nil, fmt.Errorf("observe: %w", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("observe: %w", err)
	}
	defer r.Close()
	ctx, cancel := context.WithCancel(context.Background())
	args := append([]string{"-displayfd", "3", "-screen", "0",
		fmt.Sprintf("%dx%dx24", cfg.Width, cfg.Height), "-fbdir", dir}, rate...)
	cmd := exec.CommandContext(ctx, "Xvfb", append(args, "+extension", "GLX", "-nolisten", "tcp", "-noreset")...)
	cmd.ExtraFiles = []*os.File{w}
	if err := cmd.Start(); err != nil {
		cancel()
		w.Close()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("observe: start Xvfb: %w", err)
	}
	w.Close()
	x := &Xvfb{FB: filepath.Join(dir, "Xvfb_screen0"), FPS: cfg.FPS, cmd: cmd, cancel: cancel, dir: dir, done: make(chan struct{})}
	if cfg.Nice < 0 {
		_ = setNice(cmd.Process.Pid, cfg.Nice)
	}
	go func() { _ = cmd.Wait(); close(x.done) }()
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(r).ReadString('\n')
		line <- strings.TrimSpace(s)
	}()
	select {
	case s := <-line:
		if s == "" {
			x.Close()
			return nil, errors.New("observe: Xvfb exited before it opened a display")
		}
		x.Display = ":" + s
	case <-time.After(15 * time.Second):
		x.Close()
		return nil, errors.New("observe: Xvfb did not open a display in 15 s")
	}
	return x, nil
}

// PID is the server's process id.
func (x *Xvfb) PID() int { return x.cmd.Process.Pid }

// Close stops the server and removes its framebuffer file.
func (x *Xvfb) Close() {
	x.cancel()
	<-x.done
	os.RemoveAll(x.dir)
}
