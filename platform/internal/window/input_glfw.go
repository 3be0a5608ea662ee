package window

import (
	"sync"

	"github.com/go-gl/glfw/v3.3/glfw"
	"github.com/tickframe/tickframe/platform"
)

// named says which values from 0 to KeyLast are keys platform names: the
// ones whose name (Key.String) parses back to them. It is worked out once
// (a tenth of a millisecond, by Open rather than in every program's
// init), so that keyFromGLFW then costs an index per event and allocates
// nothing.
var named = sync.OnceValue(func() *[platform.KeyLast + 1]bool {
	var t [platform.KeyLast + 1]bool
	for k := range t {
		p, ok := platform.ParseKey(platform.Key(k).String())
		t[k] = ok && p == platform.Key(k)
	}
	return &t
})

// keyFromGLFW returns the Key for GLFW's key: the same value, since a
// Key is GLFW's code, for every key Key names, and KeyUnknown for the
// rest: GLFW_KEY_UNKNOWN (-1, which is KeyNone's value) and any code a
// later GLFW adds.
func keyFromGLFW(g glfw.Key) platform.Key {
	if g < 0 || g > glfw.Key(platform.KeyLast) || !named()[g] {
		return platform.KeyUnknown
	}
	return platform.Key(g)
}

func actionFromGLFW(a glfw.Action) platform.Action {
	switch a {
	case glfw.Press:
		return platform.Press
	case glfw.Release:
		return platform.Release
	case glfw.Repeat:
		return platform.Repeat
	}
	return 0
}

// glfwButtons maps GLFW's buttons, 0 to 7, to MouseButtons.
var glfwButtons = [...]platform.MouseButton{
	glfw.MouseButtonLeft:   platform.ButtonLeft,
	glfw.MouseButtonRight:  platform.ButtonRight,
	glfw.MouseButtonMiddle: platform.ButtonMiddle,
	glfw.MouseButton4:      platform.Button4,
	glfw.MouseButton5:      platform.Button5,
	glfw.MouseButton6:      platform.Button6,
	glfw.MouseButton7:      platform.Button7,
	glfw.MouseButton8:      platform.Button8,
}

func buttonFromGLFW(b glfw.MouseButton) platform.MouseButton {
	if b < 0 || int(b) >= len(glfwButtons) {
		return 0
	}
	return glfwButtons[b]
}

// glfwMods maps GLFW's modifier bits to Mods. GLFW's lock bits (Caps Lock,
// Num Lock) are not reported: the GLFW_LOCK_KEY_MODS input mode is off.
var glfwMods = [...]struct {
	glfw glfw.ModifierKey
	mod  platform.Mods
}{
	{glfw.ModShift, platform.ModShift},
	{glfw.ModControl, platform.ModControl},
	{glfw.ModAlt, platform.ModAlt},
	{glfw.ModSuper, platform.ModSuper},
}

func modsFromGLFW(g glfw.ModifierKey) platform.Mods {
	var m platform.Mods
	for _, b := range glfwMods {
		if g&b.glfw != 0 {
			m |= b.mod
		}
	}
	return m
}

// keyEvent is the Event for GLFW's key callback.
func keyEvent(key glfw.Key, scancode int, action glfw.Action, mods glfw.ModifierKey) platform.Event {
	return platform.Event{Kind: platform.KeyEvent, Key: keyFromGLFW(key), Scancode: scancode,
		Action: actionFromGLFW(action), Mods: modsFromGLFW(mods)}
}

// buttonEvent is the Event for GLFW's mouse button callback, the cursor
// at x, y.
func buttonEvent(b glfw.MouseButton, action glfw.Action, mods glfw.ModifierKey, x, y float64) platform.Event {
	return platform.Event{Kind: platform.ButtonEvent, Button: buttonFromGLFW(b), Action: actionFromGLFW(action),
		Mods: modsFromGLFW(mods), X: x, Y: y}
}
