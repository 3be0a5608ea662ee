//go:build tickframegldebug

package renderer

// debugGL: this build checks GL errors after every call on the draw path
// and panics at the first, naming the call.
const debugGL = true
