// Package renderer draws tickframe's interpolated scene with OpenGL 4.1
// core: every body as an instance of its mesh, one instanced draw call per
// mesh part and material, a ground, and a HUD.
//
// Interpolation runs on the GPU. The renderer keeps one instance buffer per
// entry of the render side's snapshot history, filled once when the
// snapshot arrives; a frame binds the two buffers of the bracket its Plan
// names and one pass over every body, whatever its mesh, lerps its
// position and slerps its orientation with one alpha uniform (or follows
// the plan's MotionMode; BodyPose is the CPU reference of each). A
// frame's CPU work is therefore the same for ten bodies or a hundred
// thousand, and a frame that gets no new snapshot uploads nothing.
//
// Meshes and materials are registered at any time from any goroutine
// through the Registry's queue (Renderer.Registry; the world's Step
// included), which the next Draw uploads, and glTF models on the render
// thread (AddModel, AddSkinned), at once; they are named by the ids registration returns
// (simthread.MeshID, MaterialID) in simthread.Body; 0 is the default cube and the
// default material, and an id the renderer does not know counts as 0.
// Primitive meshes (BoxMesh, SphereMesh, CapsuleMesh, CylinderMesh,
// PlaneMesh) come ready to register. Static bodies (Registry.AddStatic)
// are drawn every frame without being published. When a snapshot is
// uploaded, its bodies are grouped by
// mesh and material, once: if they are in that order already (every body
// of one mesh, or the app sorted them) the grouping is a scan; else a
// counting sort, O(n), gives an order in which the interpolation pass
// reads them (through an element buffer), so that each group's poses come
// out contiguous and each is drawn by one instanced call with its
// attributes offset to its range (OpenGL 4.1 has no base instance). A
// frame then costs a few GL calls per group, not per body.
//
// The world's lines (simthread.Lines) are drawn after the bodies with one
// instanced call, each segment a quad on the screen of its width in
// pixels (shaders/line.vert), depth-tested. Each snapshot's segments are
// uploaded once, into buffers that mirror the snapshot buffers; an end
// tied to a body reads the body's pose from the interpolation pass's
// output through a buffer texture, so it is where the body is drawn.
//
// Materials follow glTF's metallic-roughness model with what glTF assets
// use (Material): base colour factor and texture, vertex colours,
// metallic-roughness, normal (tangent space), occlusion and emissive
// textures, each with its sampler, UV set and UV transform, the base
// colour and emissive ones sRGB and the others linear; alpha modes OPAQUE,
// MASK and BLEND (blended parts drawn after the opaque ones, body by
// body, back to front); double-sided surfaces. Each material's values are a std140
// uniform block in one buffer, bound per draw call, its textures on units
// 0 to 4 with GL sampler objects. The surface is lit in linear light by
// the snapshot's lights (simthread.Lights: a sun, the sky hemisphere and up
// to 8 point lights, interpolated, in one uniform block uploaded once a
// frame) and encoded to sRGB in the shader (shaders/surface.glsl). A
// body's Color tints it. A material may bring its own fragment shader
// against the documented Surface interface (docs/scene.md). AddModel
// registers a glTF model as one mesh (ModelShader gives its materials a
// shader); AddNodeMeshes as a mesh per node, for animation.
//
// The snapshot buffers all keep storage for as many bodies as the largest
// snapshot in use: the interpolation pass fetches the older snapshot's
// attributes for every body of the newer one, also for bodies spawned
// since, and OpenGL 4.1 leaves a fetch past a buffer's storage undefined.
// When a snapshot outgrows them, every buffer, its order buffer and the
// pose buffer are reallocated with headroom and their contents copied on
// the GPU. A quaternion that cannot be normalised (zero, infinite, NaN) is
// drawn as the identity; the CPU reference, BodyPose, reports an error.
//
// With Options.Probe the renderer reads back what it drew, without ever
// waiting for the GPU. After each frame's interpolation pass it copies the
// probe body's pose (Options.ProbeBody, wherever the grouping put it) out
// of the pass's output into a small buffer of a ring of eight, and after
// the frame's last draw call it records a GL_TIMESTAMP query and a fence. Draw and Probed poll the
// oldest fences with a zero timeout and read a frame's pose and timestamp
// only once its fence has signalled, a frame or more later (at once after
// a swap that finishes the frame, as llvmpipe's does): Probed returns one
// Probe per frame, in order, tagged with the frame's id (Frames). The
// timestamp is converted onto the app's clock (Options.Now) by an offset
// measured with glGetInteger64v(GL_TIMESTAMP) between two reads of that
// clock, at New and again every second to follow drift; without timer
// queries records carry no time. Comparing a record with
// BodyPose of the drawn plan's bodies checks the whole
// GPU path, upload and slot choice included, on the running app.
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
