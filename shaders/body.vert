// body.vert: one instance per body, interpolated on the GPU. Each instance
// carries its pose in the two snapshots that bracket the render time; the
// shader lerps the position and slerps the orientation with one alpha for
// the whole frame, so the CPU's work per frame does not grow with the
// number of bodies.

layout(location = 0) in vec3 aPos;
layout(location = 1) in vec3 aNormal;

// The older snapshot of the bracket.
layout(location = 2) in vec4 iPrevPosScale; // xyz position, w scale
layout(location = 3) in vec4 iPrevRot;      // (w, x, y, z)
layout(location = 4) in uint iPrevEpoch;
// The newer one.
layout(location = 5) in vec4 iNextPosScale;
layout(location = 6) in vec4 iNextRot;
layout(location = 7) in vec4 iColor; // sRGB, from the newer snapshot
layout(location = 8) in uint iNextEpoch;

uniform mat4 uViewProj;
uniform float uAlpha;
uniform int uPrevCount; // bodies in the older snapshot

out vec3 vWorld;
out vec3 vNormal;
out vec3 vAlbedo;

void main() {
    // A body that jumped (teleport, respawn) or did not exist in the older
    // snapshot is shown at its new pose: no streak.
    float a = (iPrevEpoch != iNextEpoch || gl_InstanceID >= uPrevCount) ? 1.0 : uAlpha;
    vec3 pos = lerp3(iPrevPosScale.xyz, iNextPosScale.xyz, a);
    vec4 q = quatSlerp(iPrevRot, iNextRot, a);
    vec3 world = pos + quatRotate(q, aPos * iNextPosScale.w);
    vWorld = world;
    vNormal = quatRotate(q, aNormal);
    vAlbedo = srgbToLinear(iColor.rgb);
    gl_Position = uViewProj * vec4(world, 1.0);
}
