// interp.vert: the interpolation pass. One point per body, rasterizer off:
// it reads the body's pose in the two snapshots that bracket the render
// time, lerps the position and slerps the orientation with one alpha for
// the whole frame, and captures the result with transform feedback for
// body.vert to draw. Interpolating once per body rather than once per
// vertex keeps a software rasterizer (llvmpipe) fast too.

// The older snapshot of the bracket.
layout(location = 0) in vec4 iPrevPosScale; // xyz position, w scale
layout(location = 1) in vec4 iPrevRot;      // (w, x, y, z)
layout(location = 2) in uint iPrevEpoch;
// The newer one.
layout(location = 3) in vec4 iNextPosScale;
layout(location = 4) in vec4 iNextRot;
layout(location = 5) in vec4 iColor; // sRGB, from the newer snapshot
layout(location = 6) in uint iNextEpoch;

uniform float uAlpha;
uniform int uPrevCount; // bodies in the older snapshot
// The older snapshot's attributes are fetched for every body, also past
// uPrevCount: the renderer keeps every snapshot buffer's storage as large
// as the largest in use, so such a fetch reads stale bytes, never past the
// end of a buffer (undefined behaviour in GL 4.1), and main ignores them.

out vec4 oPosScale;
out vec4 oRot;
out vec4 oAlbedo; // linear

void main() {
    // A body that jumped (teleport, respawn) or did not exist in the older
    // snapshot is shown at its new pose: no streak. (Its older pose may be
    // anything, even zeros, so it must not enter the slerp at all.)
    if (iPrevEpoch != iNextEpoch || gl_VertexID >= uPrevCount) {
        oPosScale = iNextPosScale;
        oRot = quatNormalize(iNextRot); // the identity if unusable
    } else {
        oPosScale = vec4(lerp3(iPrevPosScale.xyz, iNextPosScale.xyz, uAlpha), iNextPosScale.w);
        oRot = quatSlerp(iPrevRot, iNextRot, uAlpha);
    }
    oAlbedo = vec4(srgbToLinear(iColor.rgb), iColor.a);
}
