//go:build !wayland

package window

// waylandBuild: GLFW speaks X11, Win32 or Cocoa (see swap_wayland.go).
const waylandBuild = false
