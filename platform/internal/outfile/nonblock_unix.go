//go:build unix

package outfile

import "syscall"

// nonblock opens a FIFO without waiting for a reader.
const nonblock = syscall.O_NONBLOCK
