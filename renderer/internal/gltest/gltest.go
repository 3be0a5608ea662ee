// Package gltest opens the OpenGL windows the renderer's tests draw in:
// a GLFW window of a given size with a current OpenGL 4.1 core context,
// on the process's main thread, which GLFW and OpenGL want (macOS
// insists). A test binary serves the main thread with Main from TestMain
// and runs its GL work there with Call:
//
//	func TestMain(m *testing.M) {
//		var code int
//		gltest.Main(func() { code = m.Run() })
//		os.Exit(code)
//	}
package gltest

import (
	"errors"
	"fmt"
	"os"
	"runtime"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/glfw/v3.3/glfw"
)

func init() {
	// The main goroutine starts on the main thread: pin it there before
	// TestMain runs.
	runtime.LockOSThread()
}

// calls carries functions to run on the main thread while Main serves.
var calls = make(chan func())

// Main runs run on a new goroutine while the calling goroutine, the main
// goroutine, executes the functions passed to Call. It returns when run
// returns.
func Main(run func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		run()
	}()
	for {
		select {
		case f := <-calls:
			f()
		case <-done:
			return
		}
	}
}

// Call runs f on the main thread and waits for it. A panic in f is
// raised again on the calling goroutine. Call must only be used while
// Main serves.
func Call(f func()) {
	done := make(chan any, 1)
	calls <- func() {
		defer func() { done <- recover() }()
		f()
	}
	if p := <-done; p != nil {
		panic(p)
	}
}

// ErrNoDisplay is wrapped by Open's error when DISPLAY and WAYLAND_DISPLAY
// are both unset on a system that needs one of them.
var ErrNoDisplay = errors.New("gltest: no display (DISPLAY is not set)")

// Window is a GLFW window whose OpenGL 4.1 core context is current. Its
// methods must be called on the main thread (in Call).
type Window struct {
	w *glfw.Window
}

// Open initialises GLFW and opens a width×height window titled title,
// hidden or not, with an OpenGL 4.1 core, forward-compatible context made
// current and swapping on vblank. Only one Window may be open at a time.
// Call it in Call.
func Open(title string, width, height int, hidden bool) (w *Window, err error) {
	if runtime.GOOS != "darwin" && runtime.GOOS != "windows" &&
		os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		return nil, ErrNoDisplay
	}
	if err := glfw.Init(); err != nil {
		return nil, fmt.Errorf("gltest: init GLFW: %w", err)
	}
	// go-gl/glfw panics on errors it deems impossible; a driver can still
	// raise them.
	defer func() {
		if p := recover(); p != nil {
			glfw.Terminate()
			w, err = nil, fmt.Errorf("gltest: GLFW: %v", p)
		}
	}()
	glfw.DefaultWindowHints()
	glfw.WindowHint(glfw.ContextVersionMajor, 4)
	glfw.WindowHint(glfw.ContextVersionMinor, 1)
	glfw.WindowHint(glfw.OpenGLProfile, glfw.OpenGLCoreProfile)
	glfw.WindowHint(glfw.OpenGLForwardCompatible, glfw.True)
	if hidden {
		glfw.WindowHint(glfw.Visible, glfw.False)
	}
	win, err := glfw.CreateWindow(width, height, title, nil, nil)
	if err != nil {
		glfw.Terminate()
		return nil, fmt.Errorf("gltest: create a %dx%d window with OpenGL 4.1 core: %w", width, height, err)
	}
	win.MakeContextCurrent()
	if err := gl.Init(); err != nil {
		win.Destroy()
		glfw.Terminate()
		return nil, fmt.Errorf("gltest: load the GL functions: %w", err)
	}
	glfw.SwapInterval(1)
	return &Window{w: win}, nil
}

// FramebufferSize returns the size of the window's framebuffer in pixels.
func (w *Window) FramebufferSize() (width, height int) { return w.w.GetFramebufferSize() }

// Swap presents the back buffer.
func (w *Window) Swap() { w.w.SwapBuffers() }

// Close destroys the window and terminates GLFW.
func (w *Window) Close() {
	if w.w != nil {
		w.w.Destroy()
		w.w = nil
		glfw.Terminate()
	}
}
