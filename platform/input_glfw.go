package platform

import "github.com/go-gl/glfw/v3.3/glfw"

// keyFromGLFW returns the Key for GLFW's key: the same value, since a
// Key is GLFW's code, for every key Key names (keyNames), and KeyUnknown
// for the rest: GLFW_KEY_UNKNOWN (-1, which is KeyNone's value) and any
// code a later GLFW adds.
func keyFromGLFW(g glfw.Key) Key {
	if g < 0 || g > glfw.Key(KeyLast) || keyNames[g] == "" {
		return KeyUnknown
	}
	return Key(g)
}

func actionFromGLFW(a glfw.Action) Action {
	switch a {
	case glfw.Press:
		return Press
	case glfw.Release:
		return Release
	case glfw.Repeat:
		return Repeat
	}
	return 0
}

// glfwButtons maps GLFW's buttons, 0 to 7, to MouseButtons.
var glfwButtons = [...]MouseButton{
	glfw.MouseButtonLeft:   ButtonLeft,
	glfw.MouseButtonRight:  ButtonRight,
	glfw.MouseButtonMiddle: ButtonMiddle,
	glfw.MouseButton4:      Button4,
	glfw.MouseButton5:      Button5,
	glfw.MouseButton6:      Button6,
	glfw.MouseButton7:      Button7,
	glfw.MouseButton8:      Button8,
}

func buttonFromGLFW(b glfw.MouseButton) MouseButton {
	if b < 0 || int(b) >= len(glfwButtons) {
		return 0
	}
	return glfwButtons[b]
}

// glfwMods maps GLFW's modifier bits to Mods. GLFW's lock bits (Caps Lock,
// Num Lock) are not reported: the GLFW_LOCK_KEY_MODS input mode is off.
var glfwMods = [...]struct {
	glfw glfw.ModifierKey
	mod  Mods
}{
	{glfw.ModShift, ModShift},
	{glfw.ModControl, ModControl},
	{glfw.ModAlt, ModAlt},
	{glfw.ModSuper, ModSuper},
}

func modsFromGLFW(g glfw.ModifierKey) Mods {
	var m Mods
	for _, b := range glfwMods {
		if g&b.glfw != 0 {
			m |= b.mod
		}
	}
	return m
}

// keyEvent is the Event for GLFW's key callback.
func keyEvent(key glfw.Key, scancode int, action glfw.Action, mods glfw.ModifierKey) Event {
	return Event{Kind: KeyEvent, Key: keyFromGLFW(key), Scancode: scancode,
		Action: actionFromGLFW(action), Mods: modsFromGLFW(mods)}
}

// buttonEvent is the Event for GLFW's mouse button callback, the cursor
// at x, y.
func buttonEvent(b glfw.MouseButton, action glfw.Action, mods glfw.ModifierKey, x, y float64) Event {
	return Event{Kind: ButtonEvent, Button: buttonFromGLFW(b), Action: actionFromGLFW(action),
		Mods: modsFromGLFW(mods), X: x, Y: y}
}
