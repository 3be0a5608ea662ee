// Package renderer draws tickframe's interpolated scene with OpenGL 4.1
// core: every body in one instanced draw call, a ground, and a HUD.
//
// Interpolation runs on the GPU. The renderer keeps one instance buffer per
// entry of the render side's snapshot history, filled once when the
// snapshot arrives; a frame binds the two buffers of the bracket that
// renderer/interp planned and the vertex shader lerps each body's position
// and slerps its orientation with one alpha uniform. A frame's CPU work is
// therefore the same for ten bodies or a hundred thousand, and a frame that
// gets no new snapshot uploads nothing.
//
// Shaders live in the shaders package (GLSL 410 core). A compile or link
// failure returns a *ShaderError naming the file, with the driver's log and
// the numbered source; GL objects are deleted on every failure path. GL
// errors are checked at resource boundaries and once per frame (OpenGL 4.1
// core has no debug callback); build with -tags tickframegldebug to check
// after every call on the draw path.
//
// Every function and method here must be called on the thread whose OpenGL
// context is current: the main thread (see package platform).
package renderer
