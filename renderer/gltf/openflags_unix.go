//go:build unix

package gltf

import "syscall"

// openFlags makes opening a FIFO return at once instead of waiting for a
// writer; Load then refuses it as not a regular file.
const openFlags = syscall.O_NONBLOCK
