//go:build !linux || wayland

package observe

import "errors"

// openPresser needs X11's XTEST.
func openPresser(string, int, int, int, int) (presser, error) {
	return nil, errors.New("observe: pressing keys needs X11 (XTEST)")
}
