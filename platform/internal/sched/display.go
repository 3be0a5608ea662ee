package sched

import (
	"fmt"
	"time"
)

// DisplayServer is the process that serves an X display on this machine
// (FindDisplayServer).
type DisplayServer struct {
	PID     int    `json:"pid"`
	Name    string `json:"name"` // its command name: Xvfb, Xorg, Xwayland
	Display string `json:"display"`
}

// CPUTime is how long a process's threads ran on a CPU and waited
// runnable for one, and how many time slices they ran (ProcessCPU).
type CPUTime struct {
	Run, Wait time.Duration
	Slices    uint64
}

// Sub returns the times from u to t.
func (t CPUTime) Sub(u CPUTime) CPUTime {
	return CPUTime{t.Run - u.Run, t.Wait - u.Wait, t.Slices - u.Slices}
}

// ServerWait follows a display server's CPU times from a mark on: on the
// software path (llvmpipe, Xvfb, VNC) a frame reaches the framebuffer
// only when the X server gets a CPU to copy it, so its wait for one is
// part of the frame's. Create it with WatchDisplayServer.
type ServerWait struct {
	Server DisplayServer
	base   CPUTime
	at     time.Time
}

// WatchDisplayServer finds the server of display ("" means $DISPLAY) and
// marks its CPU times now.
func WatchDisplayServer(display string) (*ServerWait, error) {
	s, err := FindDisplayServer(display)
	if err != nil {
		return nil, err
	}
	w := &ServerWait{Server: s}
	if err := w.Mark(); err != nil {
		return nil, err
	}
	return w, nil
}

// Mark starts the measurement over from now.
func (w *ServerWait) Mark() error {
	t, err := ProcessCPU(w.Server.PID)
	if err != nil {
		return err
	}
	w.base, w.at = t, time.Now()
	return nil
}

// ServerWaitSummary is a display server's CPU times over a span, as a
// report holds them.
type ServerWaitSummary struct {
	Server DisplayServer `json:"server"`
	// SpanMs is the span measured; RunMs and WaitMs how long the server's
	// threads ran and waited runnable for a CPU in it, Slices how many
	// times they were given one, and WaitPerSliceMs the mean wait.
	SpanMs         float64 `json:"span_ms"`
	RunMs          float64 `json:"run_ms"`
	WaitMs         float64 `json:"wait_ms"`
	Slices         uint64  `json:"slices"`
	WaitPerSliceMs float64 `json:"wait_per_slice_ms"`
	// Source names where the figures come from.
	Source string `json:"source"`
}

// Summary returns the server's CPU times since the mark.
func (w *ServerWait) Summary() (ServerWaitSummary, error) {
	t, err := ProcessCPU(w.Server.PID)
	if err != nil {
		return ServerWaitSummary{}, err
	}
	d := t.Sub(w.base)
	s := ServerWaitSummary{
		Server: w.Server, SpanMs: ms(time.Since(w.at)), RunMs: ms(d.Run), WaitMs: ms(d.Wait), Slices: d.Slices,
		Source: fmt.Sprintf("/proc/%d/task/*/schedstat", w.Server.PID),
	}
	if d.Slices > 0 {
		s.WaitPerSliceMs = s.WaitMs / float64(d.Slices)
	}
	return s, nil
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }
