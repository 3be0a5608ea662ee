package platform

import (
	"fmt"
	"testing"
)

// TestKeyNames holds String and ParseKey to each other and to the names
// Key's doc promises: the 120 keys GLFW 3.3 names and Unknown have a name
// that parses back to them, every other value from 0 to KeyLast is
// spelled "Key(n)" and parses to nothing, and names are case-sensitive.
// The GLFW codes behind the values are held by platform/internal/window's
// tests.
func TestKeyNames(t *testing.T) {
	named := 0
	for k := Key(0); k <= KeyLast; k++ {
		name := k.String()
		p, ok := ParseKey(name)
		if name == fmt.Sprintf("Key(%d)", k) {
			if ok {
				t.Errorf("ParseKey(%q) = %v, succeeded for a value that is no key", name, p)
			}
			continue
		}
		named++
		if !ok || p != k {
			t.Errorf("ParseKey(%q) = %v, %v; want %v (%d)", name, p, ok, k, int(k))
		}
	}
	if named != 121 {
		t.Errorf("%d values from 0 to KeyLast are named, want GLFW's 120 and Unknown", named)
	}
	for k, want := range map[Key]string{
		KeyNone: "None", KeyUnknown: "Unknown", Key(999): "Key(999)", Key(-2): "Key(-2)",
		'W': "W", '7': "7", KeySpace: "Space", '\'': "Apostrophe", '/': "Slash",
		KeyF12: "F12", KeyF1 + 12: "F13", KeyF1 + 24: "F25", KeyKP0 + 5: "KP5",
		KeyLeftShift: "LeftShift", KeyLast: "Menu",
	} {
		if got := k.String(); got != want {
			t.Errorf("Key %d: String() = %q, want %q", int(k), got, want)
		}
	}
	if k, ok := ParseKey("None"); !ok || k != KeyNone {
		t.Errorf(`ParseKey("None") = %v, %v`, k, ok)
	}
	for _, name := range []string{"w", "", "Key(100)", "KeyW", "'", "space", "F26"} {
		if k, ok := ParseKey(name); ok {
			t.Errorf("ParseKey(%q) = %v: no key has that name (names are case-sensitive)", name, k)
		}
	}
}

// TestPrintableKeyValues holds the promise an app's rune constants rely
// on: a key that prints a character is that character's value, upper
// case for letters, and a lower-case letter is no key.
func TestPrintableKeyValues(t *testing.T) {
	if KeySpace != ' ' {
		t.Errorf("KeySpace = %d, want ' '", KeySpace)
	}
	for _, r := range "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789" {
		if s := Key(r).String(); s != string(r) {
			t.Errorf("Key(%q) is %q, want %q", r, s, string(r))
		}
	}
	for r := 'a'; r <= 'z'; r++ {
		if s := Key(r).String(); s != fmt.Sprintf("Key(%d)", r) {
			t.Errorf("Key(%q) is %q: a lower-case letter is no key", r, s)
		}
	}
}

func TestActionsButtonsModsNames(t *testing.T) {
	for a, want := range map[Action]string{Press: "Press", Release: "Release", Repeat: "Repeat", 0: "None", 9: "Action(9)"} {
		if got := a.String(); got != want {
			t.Errorf("Action %d: %q, want %q", a, got, want)
		}
	}
	for b, want := range map[MouseButton]string{0: "None", ButtonLeft: "Left", ButtonRight: "Right", ButtonMiddle: "Middle", Button4: "4", ButtonLast: "8", 9: "MouseButton(9)"} {
		if got := b.String(); got != want {
			t.Errorf("MouseButton %d: %q, want %q", b, got, want)
		}
	}
	if !(ModShift | ModAlt).Has(ModShift) || ModShift.Has(ModShift|ModAlt) || !Mods(0).Has(0) {
		t.Error("Mods.Has")
	}
}

func TestPressedReleased(t *testing.T) {
	for _, c := range []struct {
		e                 Event
		pressed, released bool
	}{
		{Event{Kind: KeyEvent, Key: 'W', Action: Press}, true, false},
		{Event{Kind: KeyEvent, Key: 'W', Action: Repeat}, false, false},
		{Event{Kind: KeyEvent, Key: 'W', Action: Release}, false, true},
		{Event{Kind: KeyEvent, Key: 'S', Action: Press}, false, false},
		{Event{Kind: ButtonEvent, Button: ButtonLeft, Action: Press}, false, false},
	} {
		if c.e.Pressed('W') != c.pressed || c.e.Released('W') != c.released {
			t.Errorf("%+v: Pressed(W) %v, Released(W) %v", c.e, c.e.Pressed('W'), c.e.Released('W'))
		}
	}
}
