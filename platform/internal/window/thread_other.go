//go:build !linux && !windows

package window

// threadID names the calling OS thread where the platform says which it
// is without cgo; elsewhere (macOS, where GLFW itself refuses any other
// thread) it is 0 for every thread, and Open does not check.
func threadID() int64 { return 0 }
