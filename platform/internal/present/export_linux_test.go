//go:build linux && !wayland

package present

var OpenWindow = openWindow

// SwapSynced reports what the tracker takes from the swap that just
// returned (see swapSynced).
func SwapSynced(t *Tracker) bool { return swapSynced(&t.plat) }
