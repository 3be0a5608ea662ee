package observe

import (
	"context"
	"fmt"
	"time"

	"github.com/tickframe/tickframe/platform/internal/present"
)

// Config configures an observation.
type Config struct {
	// Display is the X display watched ("" means $DISPLAY), FB its
	// framebuffer file (Xvfb's -fbdir screen file).
	Display, FB string
	// Title is the title of the window whose marker is read.
	Title string
	// Interval is the time between reads of the framebuffer, Priority
	// the real-time priority the reading thread asks for.
	Interval time.Duration
	Priority int
	// WindowTimeout is how long to wait for the window to appear; 0
	// means 30 s.
	WindowTimeout time.Duration
	// Inputs, with a Count, presses keys in the window and follows the
	// app's reaction patch (input.go).
	Inputs InputConfig
}

// Session is an observation under way: the watcher on its thread and the
// display's vblanks, followed from a connection of the observer's own.
type Session struct {
	cfg     Config
	fb      *Framebuffer
	tracker *present.Tracker
	gridErr error
	cancel  context.CancelFunc
	done    chan struct{}
	res     Result
	err     error
}

// Result is what a session saw.
type Result struct {
	Changes []Change
	Watch   WatchStats
	// Window is where the marker was read: X, Y, W, H on the screen.
	Window [4]int
	// Grid places times on the display's vblanks, as measured by the
	// observer's own connection; VblankSource names where they came from
	// ("" and Grid nil when the display gave none) and Period is theirs.
	Grid         Grid
	VblankSource string
	Period       time.Duration
	// Inputs are the key presses sent (Config.Inputs), Reactions the
	// reaction patch's changes, InputErr why no press was sent or the
	// presses stopped ("" if none).
	Inputs    []Injection
	Reactions []Change
	InputErr  string
}

// Start opens the framebuffer and the vblank feed and starts watching as
// soon as the window titled cfg.Title appears.
func Start(cfg Config) (*Session, error) {
	fb, err := OpenFramebuffer(cfg.FB)
	if err != nil {
		return nil, err
	}
	s := &Session{cfg: cfg, fb: fb, done: make(chan struct{})}
	s.tracker, s.gridErr = present.Open(present.Options{Now: monotonic, Display: cfg.Display, VblanksOnly: true})
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	go s.run(ctx)
	return s, nil
}

func (s *Session) run(ctx context.Context) {
	defer close(s.done)
	timeout := s.cfg.WindowTimeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	deadline := time.Now().Add(timeout)
	var x, y, w, h int
	for {
		var err error
		x, y, w, h, err = present.FindWindow(s.cfg.Display, s.cfg.Title)
		if err == nil && w > 0 && h > 0 {
			break
		}
		if time.Now().After(deadline) {
			s.err = fmt.Errorf("observe: no window titled %q appeared in %v", s.cfg.Title, timeout)
			return
		}
		select {
		case <-ctx.Done():
			s.err = fmt.Errorf("observe: stopped before a window titled %q appeared", s.cfg.Title)
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
	s.res.Window = [4]int{x, y, w, h}
	wa := watcher{FB: s.fb, X: x, Y: y, W: w, H: h, Interval: s.cfg.Interval, Priority: s.cfg.Priority}
	var pressed chan struct{}
	if s.cfg.Inputs.Count > 0 {
		wa.react = newReactWatch(x)
		pressed = make(chan struct{})
		go func() {
			defer close(pressed)
			s.res.Inputs, s.res.InputErr = s.press(ctx, wa.react, x, y, w, h)
		}()
	}
	s.res.Changes, s.res.Watch, s.err = wa.Run(ctx)
	if pressed != nil {
		<-pressed
		s.res.Reactions = wa.react.changes
	}
}

// press presses the keys of Config.Inputs in the window at x, y (w×h).
func (s *Session) press(ctx context.Context, r *reactWatch, x, y, w, h int) ([]Injection, string) {
	p, err := openPresser(s.cfg.Display, x, y, w, h)
	if err != nil {
		return nil, err.Error()
	}
	defer p.close()
	in, err := inject(ctx, p, r, s.cfg.Inputs, monotonic)
	if err != nil {
		return in, err.Error()
	}
	return in, ""
}

// Stop ends the observation and returns what it saw.
func (s *Session) Stop() (Result, error) {
	s.cancel()
	<-s.done
	if s.tracker != nil {
		if err := s.tracker.Close(); err != nil && s.err == nil {
			s.err = err
		}
		g := s.tracker.Grid()
		if g.Known() {
			s.res.Grid = func(t time.Duration) (time.Duration, bool) {
				at, _, ok := g.Next(t)
				return at, ok
			}
			s.res.VblankSource, s.res.Period = g.Source(), g.Period()
		}
	}
	_ = s.fb.Close()
	return s.res, s.err
}

// GridErr says why the observer has no vblanks of the display, nil when it
// has them.
func (s *Session) GridErr() error { return s.gridErr }
