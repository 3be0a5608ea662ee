//go:build wayland

package tickframe

// waylandBuild reports whether this binary is the Wayland build (-tags
// wayland): its windows are Wayland clients.
const waylandBuild = true
