//go:build !unix

package outfile

// nonblock is Unix's; elsewhere a device opens as it is.
const nonblock = 0
