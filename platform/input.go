package platform

// EventKind says what an Event is.
type EventKind uint8

const (
	KeyEvent     EventKind = iota + 1 // Key, Scancode, Action (Press, Release, Repeat), Mods
	ButtonEvent                       // Button, Action (Press, Release), Mods, X Y cursor position
	CursorEvent                       // X Y cursor position in screen coordinates, DX DY its motion
	ScrollEvent                       // X Y scroll offsets (Y > 0: wheel up, away from the user)
	IconifyEvent                      // On: iconified
	FocusEvent                        // On: focused
	ResizeEvent                       // X Y new framebuffer size in pixels
	CloseEvent                        // the user asked to close the window
)

// Event is one input or window event, collected once a frame by the
// runtime's window (package platform/internal/window, which maps GLFW's
// values) and handed to the app: app.Config.Input receives it. It carries
// only tickframe's own types (Key, Action, MouseButton, Mods), so that
// apps never import GLFW.
//
// It is one flat struct rather than one type per kind so that the window
// can keep events in a reused slice without allocating; Kind says which
// fields are set (see the EventKind constants), and the others are zero.
type Event struct {
	Kind EventKind
	// Key is the key of a KeyEvent, KeyUnknown for a key tickframe does
	// not name; Scancode tells such keys apart. It is never KeyNone.
	Key Key
	// Scancode is a KeyEvent's platform-specific code for the key: stable
	// for a key on one machine, different across platforms.
	Scancode int
	Button   MouseButton // ButtonEvent: which button
	// Action is what happened to the key or button: Press, Release, or
	// for keys Repeat, sent while the key is held by the system's key
	// repeat. A Press is followed by one Release, with any number of
	// Repeats between: GLFW releases every held named key and button
	// when the window loses focus.
	Action Action
	Mods   Mods    // KeyEvent, ButtonEvent: the modifier keys held
	X, Y   float64 // position, offset or size; see the EventKind constants
	// DX, DY is a CursorEvent's motion since the previous CursorEvent, in
	// screen coordinates: what mouse look wants, and unbounded and
	// unaccelerated where the window has captured the cursor (see
	// app.Mouse.CaptureCursor).
	DX, DY float64
	On     bool // IconifyEvent, FocusEvent
}

// Pressed reports whether e is the first press of key k (not a release,
// nor a repeat while it is held).
func (e Event) Pressed(k Key) bool {
	return e.Kind == KeyEvent && e.Action == Press && e.Key == k
}

// Released reports whether e is the release of key k.
func (e Event) Released(k Key) bool {
	return e.Kind == KeyEvent && e.Action == Release && e.Key == k
}
