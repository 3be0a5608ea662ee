//go:build !unix

package record

// nonblock is Unix's; elsewhere a device opens as it is.
const nonblock = 0
