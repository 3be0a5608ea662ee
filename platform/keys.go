package platform

import "strconv"

// Key names a physical key by what a US keyboard prints on it, whatever
// the user's layout prints there (GLFW's convention): 'W' is the key
// between Q and E on a US keyboard, and Z on a French one, so "hold W to
// walk" keeps its place on every layout. The zero value is KeyUnknown.
//
// Its values are GLFW 3.3's key codes. A key that prints a character is
// that character, as a US keyboard prints it unshifted and with letters
// in upper case, so an app names it with a rune constant and no named
// constant: e.Pressed('R'), e.Key == '7', KeyMap{Pause: 'P'}. The
// printable keys are
//
//	'A' to 'Z', '0' to '9', ' ' (KeySpace),
//	'\''  ','  '-'  '.'  '/'  ';'  '='  '['  '\\'  ']'  '`'
//
// A lower-case letter is no key: no event carries 'w'. The keys that
// print nothing have the constants below.
//
// The values run from 0 to KeyLast (348), so an app can keep a key's
// state in an array indexed by Key:
//
//	var held [platform.KeyLast + 1]bool
//	held[e.Key] = e.Action != platform.Release
type Key int16

// The keys that print no character: with the printable keys above, every
// key GLFW 3.3 names. A key with no name arrives as KeyUnknown with its
// scancode in Event.Scancode. The values are GLFW's (glfw3.h).
const (
	KeyUnknown Key = 0 // a key tickframe has no name for; see Event.Scancode

	KeySpace  Key = ' '
	KeyWorld1 Key = 161 // non-US #1
	KeyWorld2 Key = 162 // non-US #2

	KeyEscape      Key = 256
	KeyEnter       Key = 257
	KeyTab         Key = 258
	KeyBackspace   Key = 259
	KeyInsert      Key = 260
	KeyDelete      Key = 261
	KeyRight       Key = 262
	KeyLeft        Key = 263
	KeyDown        Key = 264
	KeyUp          Key = 265
	KeyPageUp      Key = 266
	KeyPageDown    Key = 267
	KeyHome        Key = 268
	KeyEnd         Key = 269
	KeyCapsLock    Key = 280
	KeyScrollLock  Key = 281
	KeyNumLock     Key = 282
	KeyPrintScreen Key = 283
	KeyPause       Key = 284

	// KeyF1 to KeyF12 are the function keys. GLFW numbers them in a row
	// up to F25: function key n is KeyF1 + n - 1, KeyF1 + 12 for F13.
	KeyF1  Key = 290
	KeyF2  Key = 291
	KeyF3  Key = 292
	KeyF4  Key = 293
	KeyF5  Key = 294
	KeyF6  Key = 295
	KeyF7  Key = 296
	KeyF8  Key = 297
	KeyF9  Key = 298
	KeyF10 Key = 299
	KeyF11 Key = 300
	KeyF12 Key = 301

	// KeyKP0 is the keypad's 0; the keypad's digit n is KeyKP0 + n.
	KeyKP0        Key = 320
	KeyKPDecimal  Key = 330
	KeyKPDivide   Key = 331
	KeyKPMultiply Key = 332
	KeyKPSubtract Key = 333
	KeyKPAdd      Key = 334
	KeyKPEnter    Key = 335
	KeyKPEqual    Key = 336

	KeyLeftShift    Key = 340
	KeyLeftControl  Key = 341
	KeyLeftAlt      Key = 342
	KeyLeftSuper    Key = 343
	KeyRightShift   Key = 344
	KeyRightControl Key = 345
	KeyRightAlt     Key = 346
	KeyRightSuper   Key = 347
	KeyMenu         Key = 348

	// KeyLast is the highest Key, GLFW's too: an array of KeyLast+1
	// entries has room for every key, KeyUnknown included.
	KeyLast = KeyMenu
)

// KeyNone is no key at all. No event carries it; a setting that takes a
// Key (app.KeyMap, for one) reads it as "turned off".
const KeyNone Key = -1

// keyNames are the keys' names for String, indexed by Key; a value no
// key has is "". The letters and digits are named by their character,
// the function keys F1 to F25 and the keypad's digits KP0 to KP9.
var keyNames = func() [KeyLast + 1]string {
	t := [KeyLast + 1]string{
		KeyUnknown: "Unknown",
		KeySpace:   "Space", '\'': "Apostrophe", ',': "Comma", '-': "Minus",
		'.': "Period", '/': "Slash", ';': "Semicolon", '=': "Equal",
		'[': "LeftBracket", '\\': "Backslash", ']': "RightBracket",
		'`': "GraveAccent", KeyWorld1: "World1", KeyWorld2: "World2",
		KeyEscape: "Escape", KeyEnter: "Enter", KeyTab: "Tab", KeyBackspace: "Backspace",
		KeyInsert: "Insert", KeyDelete: "Delete",
		KeyRight: "Right", KeyLeft: "Left", KeyDown: "Down", KeyUp: "Up",
		KeyPageUp: "PageUp", KeyPageDown: "PageDown", KeyHome: "Home", KeyEnd: "End",
		KeyCapsLock: "CapsLock", KeyScrollLock: "ScrollLock", KeyNumLock: "NumLock",
		KeyPrintScreen: "PrintScreen", KeyPause: "Pause", KeyMenu: "Menu",
		KeyKPDecimal: "KPDecimal", KeyKPDivide: "KPDivide", KeyKPMultiply: "KPMultiply",
		KeyKPSubtract: "KPSubtract", KeyKPAdd: "KPAdd", KeyKPEnter: "KPEnter", KeyKPEqual: "KPEqual",
		KeyLeftShift: "LeftShift", KeyLeftControl: "LeftControl", KeyLeftAlt: "LeftAlt",
		KeyLeftSuper: "LeftSuper", KeyRightShift: "RightShift", KeyRightControl: "RightControl",
		KeyRightAlt: "RightAlt", KeyRightSuper: "RightSuper",
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = string(c)
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = string(c)
	}
	for n := 1; n <= 25; n++ {
		t[KeyF1+Key(n-1)] = "F" + strconv.Itoa(n)
	}
	for n := 0; n <= 9; n++ {
		t[KeyKP0+Key(n)] = "KP" + strconv.Itoa(n)
	}
	return t
}()

// String returns the key's name: its character for a letter or digit
// ("W", "7"), the character's name for the other printable keys ("Space",
// "Apostrophe", "Slash"), the constant's name without the "Key" prefix
// for the rest ("F12", "F13", "KP5", "LeftShift"), "None" for KeyNone and
// "Key(n)" for a value that is no key (Key('w') is "Key(119)").
func (k Key) String() string {
	switch {
	case k == KeyNone:
		return "None"
	case k >= 0 && k <= KeyLast && keyNames[k] != "":
		return keyNames[k]
	}
	return "Key(" + strconv.Itoa(int(k)) + ")"
}

// ParseKey returns the key String names, for settings and flags that
// name keys. It is case-sensitive, like the names: "W" is 'W', "w" no
// key.
func ParseKey(name string) (Key, bool) {
	if name == "None" {
		return KeyNone, true
	}
	if name == "" {
		return KeyUnknown, false
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
