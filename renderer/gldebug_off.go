//go:build !tickframegldebug

package renderer

// debugGL is false in normal builds; build with -tags tickframegldebug to
// check GL errors after every call on the draw path.
const debugGL = false
