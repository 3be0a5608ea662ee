package loop

import (
	"strings"
	"testing"

	"github.com/tickframe/tickframe/platform"
	"github.com/tickframe/tickframe/platform/internal/refworld"
	"github.com/tickframe/tickframe/platform/internal/sim"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/simthread"
)

// newHeadless builds the part of an App that needs no window
// (NewHeadless): the simulation on a virtual clock and the planner.
func newHeadless(t testing.TB, bodies int) (*App, *sim.VirtualClock) {
	t.Helper()
	return newHeadlessInputs(t, bodies, 0)
}

// newHeadlessInputs is newHeadless with an input queue of that capacity
// (0: the default).
func newHeadlessInputs(t testing.TB, bodies, inputs int) (*App, *sim.VirtualClock) {
	t.Helper()
	world, err := refworld.New(bodies, 1)
	if err != nil {
		t.Fatal(err)
	}
	clock := new(sim.VirtualClock)
	cfg := Config{Sim: simthread.Tuning{Inputs: inputs, InitSnapshot: func(s *simthread.Snapshot) {
		s.Bodies = make([]simthread.Body, 0, bodies)
	}}}
	a, err := NewHeadless(cfg, world, clock)
	if err != nil {
		t.Fatal(err)
	}
	return a, clock
}

// key is a key event.
func key(k platform.Key, a platform.Action) platform.Event {
	return platform.Event{Kind: platform.KeyEvent, Key: k, Action: a}
}

// recorder is a Config.Input that keeps every event it sees and turns
// those that pass accept into a kick.
type recorder struct {
	seen   []platform.Event
	accept func(platform.Event) bool
}

func (r *recorder) input(e platform.Event) (simthread.Input, bool) {
	r.seen = append(r.seen, e)
	return simthread.Input{Kind: refworld.Kick, X: 1}, r.accept == nil || r.accept(e)
}

// TestEventsPauseAndForward feeds window events to the app's handler: an
// iconified window or a focus loss pauses the simulation and restoring it
// resumes it, Space toggles a pause of its own, Esc and a close request
// quit, and other keys reach the world only through Config.Input and the
// simulation's input queue: presses, repeats and releases alike, so that
// "hold W to walk" can be written.
func TestEventsPauseAndForward(t *testing.T) {
	a, clock := newHeadless(t, 10)
	rec := &recorder{accept: func(e platform.Event) bool { return e.Key == 'K' }}
	a.cfg.Input = rec.input
	next, _ := a.Sim().Wake()
	wake := func() {
		clock.Set(next)
		next, _ = a.Sim().Wake()
	}
	paused := func() bool { wake(); return a.Sim().Telemetry().Paused() }

	steps := []struct {
		name   string
		events []platform.Event
		paused bool
	}{
		{"iconify", []platform.Event{{Kind: platform.IconifyEvent, On: true}}, true},
		{"restore", []platform.Event{{Kind: platform.IconifyEvent, On: false}}, false},
		{"focus lost", []platform.Event{{Kind: platform.FocusEvent, On: false}}, true},
		{"focus back", []platform.Event{{Kind: platform.FocusEvent, On: true}}, false},
		{"space", []platform.Event{key(platform.KeySpace, platform.Press)}, true},
		{"space repeats and release", []platform.Event{key(platform.KeySpace, platform.Repeat), key(platform.KeySpace, platform.Release)}, true},
		{"iconify while paused", []platform.Event{{Kind: platform.IconifyEvent, On: true}}, true},
		{"restore, still paused by space", []platform.Event{{Kind: platform.IconifyEvent, On: false}}, true},
		{"space again", []platform.Event{key(platform.KeySpace, platform.Press), key(platform.KeySpace, platform.Release)}, false},
	}
	for _, s := range steps {
		a.Handle(s.events)
		if got := paused(); got != s.paused {
			t.Fatalf("%s: paused %v, want %v", s.name, got, s.paused)
		}
	}
	if len(rec.seen) != 0 {
		t.Fatalf("Config.Input saw %v; the reserved Space's events must stay in the app", rec.seen)
	}
	a.cfg.Display.KeepRunningUnfocused = true
	a.Handle([]platform.Event{{Kind: platform.FocusEvent, On: false}})
	if paused() {
		t.Fatal("KeepRunningUnfocused: a focus loss paused the simulation")
	}

	before := a.Sim().Telemetry().Read().Inputs
	held := []platform.Event{
		key('K', platform.Press),
		key('K', platform.Repeat),
		key('K', platform.Release),
		key('J', platform.Press),
		key('J', platform.Release),
	}
	a.Handle(held)
	wake()
	if got := a.Sim().Telemetry().Read().Inputs - before; got != 3 {
		t.Fatalf("%d inputs reached the world, want K's press, repeat and release", got)
	}
	if len(rec.seen) != len(held) {
		t.Fatalf("Config.Input saw %d events, want all %d: %v", len(rec.seen), len(held), rec.seen)
	}
	for i, e := range held {
		if rec.seen[i] != e {
			t.Errorf("Config.Input's event %d: %+v, want %+v", i, rec.seen[i], e)
		}
	}
	if a.ctl.quit {
		t.Fatal("quit before Esc")
	}
	a.Handle([]platform.Event{key(platform.KeyEscape, platform.Release), key(platform.KeyEscape, platform.Repeat)})
	if a.ctl.quit {
		t.Fatal("Esc's release or repeat quit")
	}
	a.Handle([]platform.Event{key(platform.KeyEscape, platform.Press)})
	if !a.ctl.quit {
		t.Fatal("Esc did not quit")
	}
	a.ctl.quit = false
	a.Handle([]platform.Event{{Kind: platform.CloseEvent}})
	if !a.ctl.quit {
		t.Fatal("closing the window did not quit")
	}
	if len(rec.seen) != len(held) {
		t.Fatalf("Config.Input saw Esc or the close: %v", rec.seen[len(held):])
	}
}

// TestKeyMap remaps and turns off reserved keys: the new key does the
// action and stays in the app, the old one and a turned-off one reach
// Config.Input like any other key.
func TestKeyMap(t *testing.T) {
	tests := []struct {
		name      string
		keys      KeyMap
		events    []platform.Event
		forwarded int
		paused    bool
		quit      bool
		shot      bool
	}{
		{"defaults", KeyMap{},
			[]platform.Event{key(platform.KeySpace, platform.Press), key(platform.KeyF12, platform.Press), key('P', platform.Press)},
			1, true, false, true},
		{"pause on P", KeyMap{Pause: 'P'},
			[]platform.Event{key('P', platform.Press), key('P', platform.Repeat), key('P', platform.Release),
				key(platform.KeySpace, platform.Press), key(platform.KeySpace, platform.Release)},
			2, true, false, false},
		{"quit on Q, Esc forwarded", KeyMap{Quit: 'Q'},
			[]platform.Event{key(platform.KeyEscape, platform.Press), key('Q', platform.Press)},
			1, false, true, false},
		{"screenshot and quit off", KeyMap{Screenshot: platform.KeyNone, Quit: platform.KeyNone},
			[]platform.Event{key(platform.KeyF12, platform.Press), key(platform.KeyF12, platform.Release), key(platform.KeyEscape, platform.Press)},
			3, false, false, false},
		{"unknown keys are never reserved", KeyMap{},
			[]platform.Event{{Kind: platform.KeyEvent, Key: platform.KeyUnknown, Scancode: 191, Action: platform.Press}},
			1, false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, _ := newHeadless(t, 1)
			rec := new(recorder)
			a.cfg.Input, a.cfg.Keys = rec.input, tt.keys
			a.Handle(tt.events)
			if len(rec.seen) != tt.forwarded || a.ctl.userPaused != tt.paused || a.ctl.quit != tt.quit || a.shots.requested != tt.shot {
				t.Errorf("forwarded %v, paused %v, quit %v, screenshot %v; want %d events, %v, %v, %v",
					rec.seen, a.ctl.userPaused, a.ctl.quit, a.shots.requested, tt.forwarded, tt.paused, tt.quit, tt.shot)
			}
		})
	}
}

func TestKeyMapValidate(t *testing.T) {
	for _, tt := range []struct {
		keys KeyMap
		ok   bool
	}{
		{KeyMap{}, true},
		{DefaultKeys(), true},
		{KeyMap{Quit: platform.KeyNone, Pause: platform.KeyNone, HUD: platform.KeyF1}, true},
		{KeyMap{Pause: platform.KeyEscape}, false}, // Quit's default
		{KeyMap{Pause: platform.KeyLast + 1}, false},
		{KeyMap{Pause: -2}, false},
		{KeyMap{Pause: 'P', HUD: '/', Screenshot: platform.KeyF1 + 12}, true}, // F13
		{KeyMap{Pause: 100}, false},                                           // in range, but GLFW names no key 100
		{KeyMap{Pause: 'p'}, false},                                           // the P key is 'P'
	} {
		if err := tt.keys.Validate(); (err == nil) != tt.ok {
			t.Errorf("%+v.Validate() = %v, want ok %v", tt.keys, err, tt.ok)
		}
	}
	// A lower-case letter is the slip a rune constant invites: the error
	// names the key meant.
	if err := (KeyMap{Pause: 'p'}).Validate(); err == nil || !strings.Contains(err.Error(), "'P'") {
		t.Errorf("KeyMap{Pause: 'p'}.Validate() = %v, want it to name 'P'", err)
	}
}

// TestMouseForwarded: buttons, cursor motion and scroll all reach
// Config.Input; the camera orbits on a left drag and zooms on the wheel,
// unless Config.Mouse.NoMouseCamera.
func TestMouseForwarded(t *testing.T) {
	events := []platform.Event{
		{Kind: platform.ButtonEvent, Button: platform.ButtonLeft, Action: platform.Press, X: 10, Y: 10},
		{Kind: platform.CursorEvent, X: 60, Y: 30, DX: 50, DY: 20},
		{Kind: platform.ButtonEvent, Button: platform.ButtonLeft, Action: platform.Release, X: 60, Y: 30},
		{Kind: platform.ButtonEvent, Button: platform.ButtonRight, Action: platform.Press, Mods: platform.ModShift, X: 60, Y: 30},
		{Kind: platform.ButtonEvent, Button: platform.ButtonRight, Action: platform.Release, X: 60, Y: 30},
		{Kind: platform.ScrollEvent, Y: 2},
	}
	for _, noCam := range []bool{false, true} {
		a, _ := newHeadless(t, 1)
		a.ctl.cam = renderer.DefaultCamera()
		start := a.ctl.cam
		rec := new(recorder)
		a.cfg.Input, a.cfg.Mouse.NoMouseCamera = rec.input, noCam
		a.Handle(events)
		if len(rec.seen) != len(events) {
			t.Errorf("NoMouseCamera %v: Config.Input saw %d events, want all %d", noCam, len(rec.seen), len(events))
		}
		moved := a.ctl.cam.Yaw != start.Yaw || a.ctl.cam.Pitch != start.Pitch
		zoomed := a.ctl.cam.Distance != start.Distance
		if moved == noCam || zoomed == noCam {
			t.Errorf("NoMouseCamera %v: camera orbited %v, zoomed %v", noCam, moved, zoomed)
		}
		if a.ctl.dragging {
			t.Errorf("NoMouseCamera %v: still dragging after the release", noCam)
		}
	}
}

// TestInputsDroppedCounted fills a small input queue between two ticks:
// the inputs it refuses are counted, the others reach the world.
func TestInputsDroppedCounted(t *testing.T) {
	const capacity, sent = 4, 10
	a, clock := newHeadlessInputs(t, 1, capacity)
	a.cfg.Input = new(recorder).input
	next, _ := a.Sim().Wake()
	before := a.Sim().Telemetry().Read().Inputs
	for range sent {
		a.Handle([]platform.Event{key('K', platform.Press)})
	}
	if got := a.pipe.Sim().InputsDropped(); got != sent-capacity {
		t.Fatalf("Sim().InputsDropped() = %d after %d inputs into a queue of %d, want %d", got, sent, capacity, sent-capacity)
	}
	clock.Set(next)
	a.Sim().Wake()
	if got := a.Sim().Telemetry().Read().Inputs - before; got != capacity {
		t.Fatalf("%d inputs reached the world, want %d", got, capacity)
	}
}

func TestKeysHelp(t *testing.T) {
	for _, c := range []struct {
		keys        KeyMap
		mouseCamera bool
		want        string
	}{
		{KeyMap{}, true, "Esc quit  Space pause  F fullscreen  V vsync  H HUD  F12 shot  drag camera"},
		{KeyMap{Pause: 'P', Fullscreen: platform.KeyNone, VSync: platform.KeyNone, HUD: platform.KeyF1}, false,
			"Esc quit  P pause  F1 HUD  F12 shot"},
		{KeyMap{Quit: platform.KeyNone, Pause: platform.KeyNone, Fullscreen: platform.KeyNone,
			VSync: platform.KeyNone, HUD: platform.KeyNone, Screenshot: platform.KeyNone}, true, "drag camera"},
	} {
		if got := string(AppendKeysHelp(nil, c.keys, c.mouseCamera)); got != c.want {
			t.Errorf("%+v: %q, want %q", c.keys, got, c.want)
		}
	}
	b := make([]byte, 0, 128)
	if n := testing.AllocsPerRun(100, func() { b = AppendKeysHelp(b[:0], KeyMap{}, true) }); n != 0 {
		t.Errorf("the help line allocates %.1f times", n)
	}
}

// TestHandleDoesNotAllocate: the events of a frame, reserved keys and the
// world's alike, are handled without allocating.
func TestHandleDoesNotAllocate(t *testing.T) {
	a, clock := newHeadless(t, 1)
	a.ctl.cam = renderer.DefaultCamera()
	a.cfg.Keys = KeyMap{Pause: 'P'}
	a.cfg.Input = func(e platform.Event) (simthread.Input, bool) {
		return simthread.Input{Kind: refworld.Kick, X: 1}, e.Kind == platform.KeyEvent
	}
	events := []platform.Event{
		key('W', platform.Press), key('W', platform.Repeat), key('W', platform.Release),
		key('P', platform.Press), key('P', platform.Release),
		{Kind: platform.ButtonEvent, Button: platform.ButtonLeft, Action: platform.Press},
		{Kind: platform.CursorEvent, X: 5, Y: 5, DX: 5, DY: 5},
		{Kind: platform.ButtonEvent, Button: platform.ButtonLeft, Action: platform.Release},
		{Kind: platform.ScrollEvent, Y: 1},
	}
	next, _ := a.Sim().Wake()
	if n := testing.AllocsPerRun(100, func() {
		a.Handle(events)
		clock.Set(next)
		next, _ = a.Sim().Wake()
	}); n != 0 {
		t.Fatalf("handling a frame's events allocates %.1f times", n)
	}
}
