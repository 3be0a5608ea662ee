package loop

import (
	"time"

	"fmt"

	"github.com/tickframe/tickframe/platform"
	"github.com/tickframe/tickframe/renderer"
)

// KeyMap says which keys the app keeps for itself. A reserved key's press
// does the action; its press, repeats and release all stay in the app and
// never reach Config.Input.
//
// Its zero value is DefaultKeys(): a field left at its zero value
// (platform.KeyUnknown) takes its default. A field set to platform.KeyNone
// turns that action off, and its default key goes to Config.Input like
// any other. Where two fields name the same key, the first in the order
// below takes it (Validate reports it).
type KeyMap struct {
	Quit       platform.Key // ends Run; default Escape
	Pause      platform.Key // pauses and resumes the simulation; default Space
	Fullscreen platform.Key // toggles fullscreen; default F
	VSync      platform.Key // toggles vsync; default V
	HUD        platform.Key // shows and hides the HUD; default H
	Screenshot platform.Key // saves a screenshot (Config.ScreenshotDir); default F12
}

// DefaultKeys returns the keys the app reserves unless Config.Keys says
// otherwise: Esc, Space, F, V, H and F12.
func DefaultKeys() KeyMap {
	return KeyMap{
		Quit:       platform.KeyEscape,
		Pause:      platform.KeySpace,
		Fullscreen: 'F',
		VSync:      'V',
		HUD:        'H',
		Screenshot: platform.KeyF12,
	}
}

// resolved returns m with its zero fields set to their defaults.
func (m KeyMap) resolved() KeyMap {
	d := DefaultKeys()
	for _, f := range [...]struct{ k, def *platform.Key }{
		{&m.Quit, &d.Quit}, {&m.Pause, &d.Pause}, {&m.Fullscreen, &d.Fullscreen},
		{&m.VSync, &d.VSync}, {&m.HUD, &d.HUD}, {&m.Screenshot, &d.Screenshot},
	} {
		if *f.k == platform.KeyUnknown {
			*f.k = *f.def
		}
	}
	return m
}

// Validate reports a value that is no key, such as a lower-case letter
// ('p': the P key is 'P'), or two actions on one key.
func (m KeyMap) Validate() error {
	r := m.resolved()
	seen := make(map[platform.Key]string, 6)
	for _, f := range [...]struct {
		name string
		k    platform.Key
	}{
		{"Quit", r.Quit}, {"Pause", r.Pause}, {"Fullscreen", r.Fullscreen},
		{"VSync", r.VSync}, {"HUD", r.HUD}, {"Screenshot", r.Screenshot},
	} {
		switch {
		case f.k == platform.KeyNone:
			continue
		case f.k >= 'a' && f.k <= 'z':
			return fmt.Errorf("loop: key map: %s: no such key %v: the %c key is %q",
				f.name, f.k, rune(f.k), rune(f.k-'a'+'A'))
		case !isKey(f.k):
			return fmt.Errorf("loop: key map: %s: no such key %v", f.name, f.k)
		}
		if other, ok := seen[f.k]; ok {
			return fmt.Errorf("loop: key map: %s and %s both on key %v", other, f.name, f.k)
		}
		seen[f.k] = f.name
	}
	return nil
}

// isKey reports whether k is a key platform names: its name parses back
// to it ("Key(112)", a value no key has, does not).
func isKey(k platform.Key) bool {
	p, ok := platform.ParseKey(k.String())
	return ok && p == k
}

// reserved is an action the app keeps a key for.
type reserved uint8

const (
	notReserved reserved = iota
	quitKey
	pauseKey
	fullscreenKey
	vsyncKey
	hudKey
	screenshotKey
)

// lookup returns the action m reserves k for. m must be resolved: no
// field is KeyUnknown, and no event carries KeyNone.
func (m *KeyMap) lookup(k platform.Key) reserved {
	switch k {
	case m.Quit:
		return quitKey
	case m.Pause:
		return pauseKey
	case m.Fullscreen:
		return fullscreenKey
	case m.VSync:
		return vsyncKey
	case m.HUD:
		return hudKey
	case m.Screenshot:
		return screenshotKey
	}
	return notReserved
}

// control is what the window's events asked of the app: pauses, the
// orbit camera and its drag, the quit and the mouse motion sent to the
// world. It belongs to the render thread.
type control struct {
	cam                              renderer.Camera // the orbit camera, and the pose drawn (camera.go)
	userPaused, iconified, unfocused bool
	// hidden: the compositor says that it shows none of the window's
	// frames (present.Tracker.Hidden: its discards, on Wayland, where no
	// event says that the window was minimised or unmapped, and under
	// frame timings; its silence is never such a word: the tracker falls
	// back instead, present.Tracker.Fallback). Unlike an iconified window's,
	// its frames are still drawn: the compositor's feedback on them is
	// how the app learns that it shows the window again.
	hidden       bool
	hiddenSince  time.Duration // when the display system first said so (0: it does not)
	simPaused    bool          // the pipeline is paused
	quit         bool
	dragging     bool
	dragX, dragY float64
	look         lookLedger // mouse motion sent to the world (camera.go)
	orbit        orbitState // the orbit's follow, the frame's projection (camera.go)
}

// wantPause reports whether the simulation should be paused: by the
// user, an iconified or hidden window (the compositor's discards, or the
// app's own Window.Hide), or an unfocused one unless keepUnfocused.
func (c *control) wantPause(keepUnfocused bool) bool {
	return c.userPaused || c.iconified || c.hidden || (c.unfocused && !keepUnfocused)
}

// Handle applies the window's events, as the input step does with those
// it polls (tests and scripted input hand it their own). Reserved keys (Config.Keys) are the
// app's; every other key, button, cursor and scroll event goes to
// Config.Input. Unless Config.Mouse.NoMouseCamera, a left drag also orbits the
// camera and the wheel also zooms it.
func (a *App) Handle(events []platform.Event) {
	keys := a.cfg.Keys.resolved()
	for _, e := range events {
		switch e.Kind {
		case platform.KeyEvent:
			if r := keys.lookup(e.Key); r == notReserved {
				a.forward(e)
			} else if e.Action == platform.Press {
				a.do(r)
			}
		case platform.ButtonEvent, platform.CursorEvent, platform.ScrollEvent:
			a.mouse(e)
		case platform.IconifyEvent:
			a.ctl.iconified = e.On
		case platform.FocusEvent:
			a.ctl.unfocused = !e.On
		case platform.CloseEvent:
			a.ctl.quit = true
		}
	}
	a.ctl.hidden = a.hiddenFor() || (a.win != nil && a.win.Unmapped())
	if want := a.ctl.wantPause(a.cfg.Display.KeepRunningUnfocused); want != a.ctl.simPaused {
		a.ctl.simPaused = want
		if want {
			a.pipe.Pause()
		} else {
			a.pipe.Resume(a.pipe.Sim().Clock().Now())
		}
	}
}

// mouse applies a button, cursor or scroll event: the camera's drag and
// zoom unless Config.Mouse.NoMouseCamera, and Config.Input.
func (a *App) mouse(e platform.Event) {
	mouseCamera := !a.cfg.Mouse.NoMouseCamera
	switch e.Kind {
	case platform.ButtonEvent:
		if mouseCamera && e.Button == platform.ButtonLeft {
			a.ctl.dragging = e.Action == platform.Press
			a.ctl.dragX, a.ctl.dragY = e.X, e.Y
		}
		a.forward(e)
	case platform.CursorEvent:
		if a.ctl.dragging {
			a.ctl.cam.Orbit(float32(e.X-a.ctl.dragX), float32(e.Y-a.ctl.dragY))
			a.ctl.dragX, a.ctl.dragY = e.X, e.Y
		}
		a.forwardCursor(e) // with MouseLook, also into the look ledger
	case platform.ScrollEvent:
		if mouseCamera {
			a.ctl.cam.Zoom(float32(e.Y))
		}
		a.forward(e)
	}
}

// do carries out a reserved key's action.
func (a *App) do(r reserved) {
	switch r {
	case quitKey:
		a.ctl.quit = true
	case pauseKey:
		a.ctl.userPaused = !a.ctl.userPaused
	case fullscreenKey:
		a.win.ToggleFullscreen()
	case vsyncKey:
		a.win.SetVSync(!a.win.VSync())
	case hudKey:
		a.rend.HUD().Visible = !a.rend.HUD().Visible
	case screenshotKey:
		a.shots.requested = true
	}
}

// forward hands an event to Config.Input and queues what it returns. A
// full queue refuses the input: the simulation counts it
// (sim.Sim.InputsDropped).
func (a *App) forward(e platform.Event) {
	if a.cfg.Input == nil {
		return
	}
	if in, ok := a.cfg.Input(e); ok {
		a.pipe.Sim().Send(in)
	}
}

// AppendKeysHelp appends the HUD's help line for keys (resolved or not)
// to b: "Esc quit  Space pause  F fullscreen  V vsync  H HUD  F12 shot
// drag camera" with the defaults, leaving out the actions turned
// off, and the camera when the mouse is the world's. It does not allocate
// beyond b's growth.
func AppendKeysHelp(b []byte, keys KeyMap, mouseCamera bool) []byte {
	k := keys.resolved()
	sep := false
	for _, f := range [...]struct {
		key  platform.Key
		what string
	}{
		{k.Quit, "quit"}, {k.Pause, "pause"}, {k.Fullscreen, "fullscreen"},
		{k.VSync, "vsync"}, {k.HUD, "HUD"}, {k.Screenshot, "shot"},
	} {
		if f.key == platform.KeyNone {
			continue
		}
		if sep {
			b = append(b, "  "...)
		}
		sep = true
		if f.key == platform.KeyEscape {
			b = append(b, "Esc"...)
		} else {
			b = append(b, f.key.String()...)
		}
		b = append(b, ' ')
		b = append(b, f.what...)
	}
	if mouseCamera {
		if sep {
			b = append(b, "  "...)
		}
		b = append(b, "drag camera"...)
	}
	return b
}

// hiddenHold is how long the display system must say that it shows none
// of the window's frames before the simulation pauses for it: a
// compositor that has just mapped the window again may discard a run of
// its first frames (a 105 ms relapse was seen under Weston), and a pause
// that short only costs the world its time.
const hiddenHold = 250 * time.Millisecond

// hiddenFor reports whether the window has been hidden (the display
// system shows none of its frames: present.Tracker.Hidden) for hiddenHold
// by now; shown again, it is not, at once.
func (a *App) hiddenFor() bool {
	if a.src == nil || !a.src.Hidden() {
		a.ctl.hiddenSince = 0
		return false
	}
	now := a.clock.Now()
	if a.ctl.hiddenSince == 0 {
		a.ctl.hiddenSince = now
	}
	return now-a.ctl.hiddenSince >= hiddenHold
}

// poll handles the window's events, the display system's own on the
// window's connection taken first (present.Tracker.ReadEvents: the
// window's event loop would drop them).
func (a *App) poll() {
	if a.src != nil {
		a.src.ReadEvents()
	}
	a.Handle(a.win.Poll())
}
