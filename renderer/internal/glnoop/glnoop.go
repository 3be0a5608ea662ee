// Package glnoop is an OpenGL driver that does nothing, for benchmarks:
// every entry point is one C function that counts the call and returns 0.
// Loaded with gl.InitWithProcAddrFunc(glnoop.ProcAddr), it makes each of
// go-gl's functions cost what calling a driver costs the caller (go-gl's
// wrapper, the cgo transition, an indirect call) and nothing more, so that
// a benchmark measures the render thread's own CPU work apart from the
// driver's. gl.Init loads the real driver back; call it before anything
// else uses GL.
//
// Nothing happens while it is loaded: no object is created, every query
// answers 0 (GL_NO_ERROR for glGetError), and out-parameters are left as
// they were. One function stands for every signature: it ignores its
// arguments and returns 0 in the integer and pointer return register,
// which the C calling conventions Go supports (amd64, arm64, both passing
// arguments in registers and leaving the stack to the caller) make safe,
// though C itself does not promise it. Call GL from one thread at a time
// while it is loaded, as OpenGL requires anyway.
package glnoop

/*
#include <stdint.h>

static uint64_t glnoopCalls;

static uintptr_t glnoopFunc(void) {
	glnoopCalls++;
	return 0;
}

static void *glnoopAddr(void) { return (void *)glnoopFunc; }
static uint64_t glnoopCount(void) { return glnoopCalls; }
*/
import "C"

import "unsafe"

// ProcAddr returns the do-nothing function for every GL entry point name,
// for gl.InitWithProcAddrFunc.
func ProcAddr(name string) unsafe.Pointer { return C.glnoopAddr() }

// Calls reports how many GL calls the do-nothing driver has received.
func Calls() uint64 { return uint64(C.glnoopCount()) }
