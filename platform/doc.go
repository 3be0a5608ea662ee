// Package platform gives tickframe its window, its input and its frame
// pacing: a GLFW window with a current OpenGL 4.1 core context whose events
// are collected once a frame without allocating, and a Pacer that decides
// which display time each frame shows, whether a display paces the swaps or
// one has to be emulated in software.
//
// Input arrives as Events that carry tickframe's own types, so that apps
// never import GLFW: Key names a physical key by its place on a US
// keyboard ('W' stays where W is on QWERTY whatever the layout), a
// printable key by its character and the others by constants such as
// KeyEscape; Action says Press, Release or Repeat (the system's key
// repeat while a key is held), MouseButton and Mods the button and the
// modifier keys. input_glfw.go maps GLFW's values to them (a Key is
// GLFW's own key code); a key tickframe does not name arrives as
// KeyUnknown with its scancode kept. KeyNone is no key at
// all, for settings that turn a key off. Cursor events carry the position
// and the motion since the last one; Window.CaptureCursor hides and locks
// the cursor for mouse look, with raw, unaccelerated motion where the
// system offers it.
//
// GLFW and OpenGL must be called on the process's main thread. Importing
// platform locks the main goroutine to it in init, before main runs; Open
// and every Window method must then be called from the main goroutine.
// Code that runs elsewhere, such as tests, which testing runs on their own
// goroutines, reaches the main thread through Main and Call.
//
// Pacer and MeasureRefresh make no GLFW or GL calls: a Pacer belongs to
// whichever goroutine draws, and runs on any Clock (simthread's included), so tests
// drive it with a virtual one.
package platform
