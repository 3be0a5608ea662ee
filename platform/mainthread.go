package platform

import (
	"runtime"
)

func init() {
	// GLFW and OpenGL want every call on the process's main thread (macOS
	// insists; X11 wants one thread per context). The main goroutine starts
	// on the main thread: pin it there before main runs.
	runtime.LockOSThread()
}

// calls carries functions to run on the main thread while Main serves.
var calls = make(chan func())

// Main runs run on a new goroutine while the calling goroutine, which must
// be the main goroutine (on the main thread), executes the functions passed
// to Call. It returns when run returns. Tests use it from TestMain, since
// testing runs each test on its own goroutine:
//
//	func TestMain(m *testing.M) {
//		var code int
//		platform.Main(func() { code = m.Run() })
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
