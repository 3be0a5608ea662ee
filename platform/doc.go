// Package platform gives tickframe its window, its input and its frame
// pacing: a GLFW window with a current OpenGL 4.1 core context whose events
// are collected once a frame without allocating, and a Pacer that decides
// which display time each frame shows, whether a display paces the swaps or
// one has to be emulated in software.
//
// GLFW and OpenGL must be called on the process's main thread. Importing
// platform locks the main goroutine to it in init, before main runs; Open
// and every Window method must then be called from the main goroutine.
// Code that runs elsewhere, such as tests, which testing runs on their own
// goroutines, reaches the main thread through Main and Call.
//
// Pacer and MeasureRefresh make no GLFW or GL calls: a Pacer belongs to
// whichever goroutine draws, and runs on any Clock (simthread's included), so tests
// drive it with a virtual one.
package platform
