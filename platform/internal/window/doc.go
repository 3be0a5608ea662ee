// Package window is the runtime's window and its frame pacing: a GLFW
// window with a current OpenGL 4.1 core context whose events are
// collected once a frame, as platform.Events, without allocating
// (input_glfw.go maps GLFW's values to platform's), and a Pacer that
// decides which display time each frame shows, whether a display paces
// the swaps or one has to be emulated in software.
//
// GLFW and OpenGL must be called on the process's main thread. Importing
// window locks the main goroutine to it in init, before main runs; the
// runtime (platform/internal/loop) imports it, so every program that runs
// an app gets the lock without naming this package. Open and every Window
// method must then be called from the main goroutine, and Open refuses
// any other thread where the platform can tell (ErrNotMainThread). Code
// that runs elsewhere, such as tests, which testing runs on their own
// goroutines, reaches the main thread through Main and Call.
//
// Window.CaptureCursor hides and locks the cursor for mouse look, with
// raw, unaccelerated motion where the system offers it.
//
// Pacer and MeasureRefresh make no GLFW or GL calls: a Pacer belongs to
// whichever goroutine draws, and runs on any Clock (simthread's
// included), so tests drive it with a virtual one.
package window
