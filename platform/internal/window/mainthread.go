package window

import (
	"errors"
	"runtime"
)

func init() {
	// GLFW and OpenGL want every call on the process's main thread (macOS
	// insists; X11 wants one thread per context). The main goroutine starts
	// on the main thread: pin it there before main runs.
	runtime.LockOSThread()
	mainThread = threadID()
}

// mainThread is the process's main thread (threadID's name for it).
var mainThread int64

// ErrNotMainThread is wrapped by Open's error when it is called on
// another thread than the main one: from main's own goroutine (package
// init pins it there) or from a function passed to Call. Linux would let
// GLFW run elsewhere; macOS aborts the process, so Open refuses on every
// platform that can tell (Linux, Windows) rather than work by luck.
var ErrNotMainThread = errors.New("not on the main thread")

// onMainThread reports whether the caller runs on the main thread (true
// where the platform cannot tell).
func onMainThread() bool { return threadID() == mainThread }

// calls carries functions to run on the main thread while Main serves.
var calls = make(chan func())

// Main runs run on a new goroutine, not on the main thread, while the
// calling goroutine, which must be the main goroutine (on the main
// thread), executes the functions passed to Call: a window is opened and
// drawn in such a function, never in run itself. It returns when run returns. Tests use it from TestMain, since
// testing runs each test on its own goroutine:
//
//	func TestMain(m *testing.M) {
//		var code int
//		window.Main(func() { code = m.Run() })
//		os.Exit(code)
//	}
//
// An application whose main goroutine drives the window itself, as
// platform/app does, needs neither Main nor Call.
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
// re-raised on the calling goroutine. Call must only be used while Main is
// serving, and never from the main thread itself.
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
