//go:build linux && !wayland

package present

var OpenWindow = openWindow

// SwapSynced reports what the tracker takes from the swap that just
// returned (see swapSynced).
func SwapSynced(t *Tracker) bool { return swapSynced(&t.plat) }

// MissingWindow sends, on the tracker's own connection, a request naming
// a window that does not exist (x11.missingWindow). Close the tracker
// after it.
func MissingWindow(t *Tracker) { t.plat.x.missingWindow() }
