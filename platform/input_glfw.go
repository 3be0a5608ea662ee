package platform

import "github.com/go-gl/glfw/v3.3/glfw"

// glfwKeys is the one table between GLFW's keys and tickframe's, indexed
// by Key. Every Key but KeyUnknown has an entry; keyFromGLFW inverts it.
var glfwKeys = [KeyLast + 1]glfw.Key{
	KeyUnknown: glfw.KeyUnknown,

	KeySpace:        glfw.KeySpace,
	KeyApostrophe:   glfw.KeyApostrophe,
	KeyComma:        glfw.KeyComma,
	KeyMinus:        glfw.KeyMinus,
	KeyPeriod:       glfw.KeyPeriod,
	KeySlash:        glfw.KeySlash,
	KeySemicolon:    glfw.KeySemicolon,
	KeyEqual:        glfw.KeyEqual,
	KeyLeftBracket:  glfw.KeyLeftBracket,
	KeyBackslash:    glfw.KeyBackslash,
	KeyRightBracket: glfw.KeyRightBracket,
	KeyGraveAccent:  glfw.KeyGraveAccent,
	KeyWorld1:       glfw.KeyWorld1,
	KeyWorld2:       glfw.KeyWorld2,

	Key0: glfw.Key0, Key1: glfw.Key1, Key2: glfw.Key2, Key3: glfw.Key3, Key4: glfw.Key4,
	Key5: glfw.Key5, Key6: glfw.Key6, Key7: glfw.Key7, Key8: glfw.Key8, Key9: glfw.Key9,

	KeyA: glfw.KeyA, KeyB: glfw.KeyB, KeyC: glfw.KeyC, KeyD: glfw.KeyD, KeyE: glfw.KeyE,
	KeyF: glfw.KeyF, KeyG: glfw.KeyG, KeyH: glfw.KeyH, KeyI: glfw.KeyI, KeyJ: glfw.KeyJ,
	KeyK: glfw.KeyK, KeyL: glfw.KeyL, KeyM: glfw.KeyM, KeyN: glfw.KeyN, KeyO: glfw.KeyO,
	KeyP: glfw.KeyP, KeyQ: glfw.KeyQ, KeyR: glfw.KeyR, KeyS: glfw.KeyS, KeyT: glfw.KeyT,
	KeyU: glfw.KeyU, KeyV: glfw.KeyV, KeyW: glfw.KeyW, KeyX: glfw.KeyX, KeyY: glfw.KeyY,
	KeyZ: glfw.KeyZ,

	KeyEscape:      glfw.KeyEscape,
	KeyEnter:       glfw.KeyEnter,
	KeyTab:         glfw.KeyTab,
	KeyBackspace:   glfw.KeyBackspace,
	KeyInsert:      glfw.KeyInsert,
	KeyDelete:      glfw.KeyDelete,
	KeyRight:       glfw.KeyRight,
	KeyLeft:        glfw.KeyLeft,
	KeyDown:        glfw.KeyDown,
	KeyUp:          glfw.KeyUp,
	KeyPageUp:      glfw.KeyPageUp,
	KeyPageDown:    glfw.KeyPageDown,
	KeyHome:        glfw.KeyHome,
	KeyEnd:         glfw.KeyEnd,
	KeyCapsLock:    glfw.KeyCapsLock,
	KeyScrollLock:  glfw.KeyScrollLock,
	KeyNumLock:     glfw.KeyNumLock,
	KeyPrintScreen: glfw.KeyPrintScreen,
	KeyPause:       glfw.KeyPause,
	KeyMenu:        glfw.KeyMenu,

	KeyF1: glfw.KeyF1, KeyF2: glfw.KeyF2, KeyF3: glfw.KeyF3, KeyF4: glfw.KeyF4, KeyF5: glfw.KeyF5,
	KeyF6: glfw.KeyF6, KeyF7: glfw.KeyF7, KeyF8: glfw.KeyF8, KeyF9: glfw.KeyF9, KeyF10: glfw.KeyF10,
	KeyF11: glfw.KeyF11, KeyF12: glfw.KeyF12, KeyF13: glfw.KeyF13, KeyF14: glfw.KeyF14, KeyF15: glfw.KeyF15,
	KeyF16: glfw.KeyF16, KeyF17: glfw.KeyF17, KeyF18: glfw.KeyF18, KeyF19: glfw.KeyF19, KeyF20: glfw.KeyF20,
	KeyF21: glfw.KeyF21, KeyF22: glfw.KeyF22, KeyF23: glfw.KeyF23, KeyF24: glfw.KeyF24, KeyF25: glfw.KeyF25,

	KeyKP0: glfw.KeyKP0, KeyKP1: glfw.KeyKP1, KeyKP2: glfw.KeyKP2, KeyKP3: glfw.KeyKP3, KeyKP4: glfw.KeyKP4,
	KeyKP5: glfw.KeyKP5, KeyKP6: glfw.KeyKP6, KeyKP7: glfw.KeyKP7, KeyKP8: glfw.KeyKP8, KeyKP9: glfw.KeyKP9,
	KeyKPDecimal:  glfw.KeyKPDecimal,
	KeyKPDivide:   glfw.KeyKPDivide,
	KeyKPMultiply: glfw.KeyKPMultiply,
	KeyKPSubtract: glfw.KeyKPSubtract,
	KeyKPAdd:      glfw.KeyKPAdd,
	KeyKPEnter:    glfw.KeyKPEnter,
	KeyKPEqual:    glfw.KeyKPEqual,

	KeyLeftShift:    glfw.KeyLeftShift,
	KeyLeftControl:  glfw.KeyLeftControl,
	KeyLeftAlt:      glfw.KeyLeftAlt,
	KeyLeftSuper:    glfw.KeyLeftSuper,
	KeyRightShift:   glfw.KeyRightShift,
	KeyRightControl: glfw.KeyRightControl,
	KeyRightAlt:     glfw.KeyRightAlt,
	KeyRightSuper:   glfw.KeyRightSuper,
}

// keysFromGLFW is glfwKeys inverted, indexed by GLFW's key: a lookup per
// key event, without a map. GLFW's codes run from 32 to glfw.KeyLast (348).
var keysFromGLFW = func() (t [glfw.KeyLast + 1]Key) {
	for k, g := range glfwKeys {
		if g >= 0 && g <= glfw.KeyLast {
			t[g] = Key(k)
		}
	}
	return t
}()

// keyFromGLFW returns tickframe's Key for GLFW's, KeyUnknown for a key
// GLFW does not name or one this table lacks.
func keyFromGLFW(g glfw.Key) Key {
	if g < 0 || g > glfw.KeyLast {
		return KeyUnknown
	}
	return keysFromGLFW[g]
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
