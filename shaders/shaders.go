// Package shaders holds tickframe's GLSL 410 core shaders, embedded in the
// binary. Each program is a vertex and a fragment stage; common.glsl is
// prepended to every stage after its #version line, so the interpolation
// maths exist once and the tests run the very code the renderer draws with.
package shaders

import "embed"

// FS holds the shader sources, by file name.
//
//go:embed *.glsl *.vert *.frag
var FS embed.FS

// Common is the file prepended to every stage.
const Common = "common.glsl"

// Surface is the fragment interface of every material (see surface.glsl),
// inserted after Common into lit.frag and into each material's own shader.
const Surface = "surface.glsl"
