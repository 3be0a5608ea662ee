package platform

import "strconv"

// Key names a physical key by what a US keyboard prints on it, whatever
// the user's layout prints there (GLFW's convention): KeyW is the key
// between Q and E on a US keyboard, and Z on a French one, so "hold W to
// walk" keeps its place on every layout. The zero value is KeyUnknown.
//
// The values are tickframe's own, small and dense from 0 to KeyLast, so an
// app can keep a key's state in an array indexed by Key:
//
//	var held [platform.KeyLast + 1]bool
//	held[e.Key] = e.Action != platform.Release
type Key int16

// The keys tickframe names: every key GLFW 3.3 names. A key with no name
// here arrives as KeyUnknown with its scancode in Event.Scancode.
const (
	KeyUnknown Key = iota // a key tickframe has no name for; see Event.Scancode

	KeySpace
	KeyApostrophe // '
	KeyComma      // ,
	KeyMinus      // -
	KeyPeriod     // .
	KeySlash      // /
	KeySemicolon  // ;
	KeyEqual      // =
	KeyLeftBracket
	KeyBackslash
	KeyRightBracket
	KeyGraveAccent // `
	KeyWorld1      // non-US #1
	KeyWorld2      // non-US #2

	Key0
	Key1
	Key2
	Key3
	Key4
	Key5
	Key6
	Key7
	Key8
	Key9

	KeyA
	KeyB
	KeyC
	KeyD
	KeyE
	KeyF
	KeyG
	KeyH
	KeyI
	KeyJ
	KeyK
	KeyL
	KeyM
	KeyN
	KeyO
	KeyP
	KeyQ
	KeyR
	KeyS
	KeyT
	KeyU
	KeyV
	KeyW
	KeyX
	KeyY
	KeyZ

	KeyEscape
	KeyEnter
	KeyTab
	KeyBackspace
	KeyInsert
	KeyDelete
	KeyRight
	KeyLeft
	KeyDown
	KeyUp
	KeyPageUp
	KeyPageDown
	KeyHome
	KeyEnd
	KeyCapsLock
	KeyScrollLock
	KeyNumLock
	KeyPrintScreen
	KeyPause
	KeyMenu

	KeyF1
	KeyF2
	KeyF3
	KeyF4
	KeyF5
	KeyF6
	KeyF7
	KeyF8
	KeyF9
	KeyF10
	KeyF11
	KeyF12
	KeyF13
	KeyF14
	KeyF15
	KeyF16
	KeyF17
	KeyF18
	KeyF19
	KeyF20
	KeyF21
	KeyF22
	KeyF23
	KeyF24
	KeyF25

	KeyKP0 // keypad
	KeyKP1
	KeyKP2
	KeyKP3
	KeyKP4
	KeyKP5
	KeyKP6
	KeyKP7
	KeyKP8
	KeyKP9
	KeyKPDecimal
	KeyKPDivide
	KeyKPMultiply
	KeyKPSubtract
	KeyKPAdd
	KeyKPEnter
	KeyKPEqual

	KeyLeftShift
	KeyLeftControl
	KeyLeftAlt
	KeyLeftSuper
	KeyRightShift
	KeyRightControl
	KeyRightAlt
	KeyRightSuper

	// KeyLast is the highest Key: an array of KeyLast+1 entries has room
	// for every key, KeyUnknown included.
	KeyLast = KeyRightSuper
)

// KeyNone is no key at all. No event carries it; a setting that takes a
// Key (app.KeyMap, for one) reads it as "turned off".
const KeyNone Key = -1

// keyNames are the keys' names for String, indexed by Key.
var keyNames = [KeyLast + 1]string{
	KeyUnknown: "Unknown",
	KeySpace:   "Space", KeyApostrophe: "Apostrophe", KeyComma: "Comma", KeyMinus: "Minus",
	KeyPeriod: "Period", KeySlash: "Slash", KeySemicolon: "Semicolon", KeyEqual: "Equal",
	KeyLeftBracket: "LeftBracket", KeyBackslash: "Backslash", KeyRightBracket: "RightBracket",
	KeyGraveAccent: "GraveAccent", KeyWorld1: "World1", KeyWorld2: "World2",
	Key0: "0", Key1: "1", Key2: "2", Key3: "3", Key4: "4",
	Key5: "5", Key6: "6", Key7: "7", Key8: "8", Key9: "9",
	KeyA: "A", KeyB: "B", KeyC: "C", KeyD: "D", KeyE: "E", KeyF: "F", KeyG: "G",
	KeyH: "H", KeyI: "I", KeyJ: "J", KeyK: "K", KeyL: "L", KeyM: "M", KeyN: "N",
	KeyO: "O", KeyP: "P", KeyQ: "Q", KeyR: "R", KeyS: "S", KeyT: "T", KeyU: "U",
	KeyV: "V", KeyW: "W", KeyX: "X", KeyY: "Y", KeyZ: "Z",
	KeyEscape: "Escape", KeyEnter: "Enter", KeyTab: "Tab", KeyBackspace: "Backspace",
	KeyInsert: "Insert", KeyDelete: "Delete",
	KeyRight: "Right", KeyLeft: "Left", KeyDown: "Down", KeyUp: "Up",
	KeyPageUp: "PageUp", KeyPageDown: "PageDown", KeyHome: "Home", KeyEnd: "End",
	KeyCapsLock: "CapsLock", KeyScrollLock: "ScrollLock", KeyNumLock: "NumLock",
	KeyPrintScreen: "PrintScreen", KeyPause: "Pause", KeyMenu: "Menu",
	KeyF1: "F1", KeyF2: "F2", KeyF3: "F3", KeyF4: "F4", KeyF5: "F5",
	KeyF6: "F6", KeyF7: "F7", KeyF8: "F8", KeyF9: "F9", KeyF10: "F10",
	KeyF11: "F11", KeyF12: "F12", KeyF13: "F13", KeyF14: "F14", KeyF15: "F15",
	KeyF16: "F16", KeyF17: "F17", KeyF18: "F18", KeyF19: "F19", KeyF20: "F20",
	KeyF21: "F21", KeyF22: "F22", KeyF23: "F23", KeyF24: "F24", KeyF25: "F25",
	KeyKP0: "KP0", KeyKP1: "KP1", KeyKP2: "KP2", KeyKP3: "KP3", KeyKP4: "KP4",
	KeyKP5: "KP5", KeyKP6: "KP6", KeyKP7: "KP7", KeyKP8: "KP8", KeyKP9: "KP9",
	KeyKPDecimal: "KPDecimal", KeyKPDivide: "KPDivide", KeyKPMultiply: "KPMultiply",
	KeyKPSubtract: "KPSubtract", KeyKPAdd: "KPAdd", KeyKPEnter: "KPEnter", KeyKPEqual: "KPEqual",
	KeyLeftShift: "LeftShift", KeyLeftControl: "LeftControl", KeyLeftAlt: "LeftAlt",
	KeyLeftSuper: "LeftSuper", KeyRightShift: "RightShift", KeyRightControl: "RightControl",
	KeyRightAlt: "RightAlt", KeyRightSuper: "RightSuper",
}

// String returns the key's name as its constant spells it without the
// "Key" prefix ("W", "F12", "KP0", "LeftShift"), "None" for KeyNone.
func (k Key) String() string {
	switch {
	case k == KeyNone:
		return "None"
	case k >= 0 && k <= KeyLast:
		return keyNames[k]
	}
	return "Key(" + strconv.Itoa(int(k)) + ")"
}

// ParseKey returns the key String names, for settings and flags that
// name keys. It is case-sensitive, like the names.
func ParseKey(name string) (Key, bool) {
	if name == "None" {
		return KeyNone, true
	}
	for k, n := range keyNames {
		if n == name {
			return Key(k), true
		}
	}
	return KeyUnknown, false
}

// Action says what happened to a key or a mouse button. The zero value is
// no action: the events that are not about keys or buttons carry it.
type Action uint8

const (
	Press   Action = iota + 1 // pressed down
	Release                   // let go
	Repeat                    // still held: the system's key repeat (keys only)
)

// String returns "Press", "Release", "Repeat" or "None".
func (a Action) String() string {
	switch a {
	case Press:
		return "Press"
	case Release:
		return "Release"
	case Repeat:
		return "Repeat"
	case 0:
		return "None"
	}
	return "Action(" + strconv.Itoa(int(a)) + ")"
}

// MouseButton names a mouse button. The zero value is no button: the
// events that are not about buttons carry it.
type MouseButton uint8

const (
	ButtonLeft MouseButton = iota + 1
	ButtonRight
	ButtonMiddle
	Button4 // commonly "back"
	Button5 // commonly "forward"
	Button6
	Button7
	Button8

	// ButtonLast is the highest MouseButton.
	ButtonLast = Button8
)

// String returns "Left", "Right", "Middle", "4" to "8", or "None".
func (b MouseButton) String() string {
	switch {
	case b == 0:
		return "None"
	case b == ButtonLeft:
		return "Left"
	case b == ButtonRight:
		return "Right"
	case b == ButtonMiddle:
		return "Middle"
	case b <= ButtonLast:
		return strconv.Itoa(int(b))
	}
	return "MouseButton(" + strconv.Itoa(int(b)) + ")"
}

// Mods is a set of modifier keys held during a key or button event.
type Mods uint8

const (
	ModShift   Mods = 1 << iota // either Shift key
	ModControl                  // either Ctrl key
	ModAlt                      // either Alt key
	ModSuper                    // either Super (Windows, Command) key
)

// Has reports whether every modifier in m2 is held in m.
func (m Mods) Has(m2 Mods) bool { return m&m2 == m2 }
