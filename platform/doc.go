// Package platform is what an app reads of the window: its events and the
// key, button, action and modifier types they carry, tickframe's own so
// that apps never import GLFW. It opens no window and makes no GLFW or GL
// call: the runtime's window (package platform/internal/window) collects
// the events once a frame, and app.Config.Input receives each.
//
// Key names a physical key by its place on a US keyboard ('W' stays where
// W is on QWERTY whatever the layout), a printable key by its character
// and the others by constants such as KeyEscape; its values are GLFW's key
// codes, and a key tickframe does not name arrives as KeyUnknown with its
// scancode kept. KeyNone is no key at all, for settings that turn a key
// off; ParseKey reads a key's name back, for flags and settings. Action
// says Press, Release or Repeat (the system's key repeat while a key is
// held), MouseButton and Mods the button and the modifier keys. Cursor
// events carry the position and the motion since the last one, raw and
// unaccelerated where the app captures the cursor for mouse look
// (app.Mouse.CaptureCursor).
package platform
