//go:build !unix

package gltf

// openFlags: opening a file does not block here.
const openFlags = 0
