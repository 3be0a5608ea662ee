//go:build wayland

package window

// waylandBuild: GLFW speaks Wayland to the compositor. Its swap never
// waits for the display (interval 0): with interval 1, Mesa's
// eglSwapBuffers waits for the compositor's frame callback, which a
// hidden or occluded window never gets, so the swap would block forever
// (glfw#2109, #2640); the app paces itself instead.
const waylandBuild = true
