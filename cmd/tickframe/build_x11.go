//go:build !wayland

package main

// waylandBuild reports whether this binary is the Wayland build (-tags
// wayland): its windows are Wayland clients.
const waylandBuild = false
