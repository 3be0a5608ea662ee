//go:build linux && !wayland

package present

var OpenWindow = openWindow
