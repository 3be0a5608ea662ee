// interp.vert: the interpolation pass. One point per body, rasterizer off:
// it reads the body's pose in the two snapshots that bracket the render
// time, lerps the position and slerps the orientation with one alpha for
// the whole frame, and captures the result with transform feedback for
// body.vert to draw. Interpolating once per body rather than once per
// vertex keeps a software rasterizer (llvmpipe) fast too.
//
// The attributes are simthread.Body's fields, read in place from the
// snapshot buffers (see its byte offsets). The renderer may draw the
// points in an order of its own (bodies grouped by mesh and material, an
// element buffer of body indices): gl_VertexID is then the body's index,
// and the poses come out in that order.

// The older snapshot of the bracket.
layout(location = 0) in vec3 iPrevPos;
layout(location = 1) in vec4 iPrevRot; // (w, x, y, z)
layout(location = 2) in uint iPrevEpoch;
// The newer one.
layout(location = 3) in vec3 iNextPos;
layout(location = 4) in vec4 iNextRot;
layout(location = 5) in vec4 iColor; // sRGB tint, from the newer snapshot
layout(location = 6) in uint iNextEpoch;
layout(location = 7) in vec3 iScale; // from the newer snapshot

uniform float uAlpha;
uniform int uPrevCount; // bodies in the older snapshot
// The older snapshot's attributes are fetched for every body, also past
// uPrevCount: the renderer keeps every snapshot buffer's storage as large
// as the largest in use, so such a fetch reads stale bytes, never past the
// end of a buffer (undefined behaviour in GL 4.1), and main ignores them.

// The pose, 64 bytes: the probe reads the first 48 (position, orientation,
// scale) back.
out vec4 oPos;    // xyz position, w 0
out vec4 oRot;    // unit (w, x, y, z)
out vec4 oScale;  // xyz scale, w 0
out vec4 oAlbedo; // linear tint

void main() {
    // A body that jumped (teleport, respawn) or did not exist in the older
    // snapshot is shown at its new pose: no streak. (Its older pose may be
    // anything, even zeros, so it must not enter the slerp at all.)
    if (iPrevEpoch != iNextEpoch || gl_VertexID >= uPrevCount) {
        oPos = vec4(iNextPos, 0.0);
        oRot = quatNormalize(iNextRot); // the identity if unusable
    } else {
        oPos = vec4(lerp3(iPrevPos, iNextPos, uAlpha), 0.0);
        oRot = quatSlerp(iPrevRot, iNextRot, uAlpha);
    }
    oScale = vec4(iScale, 0.0);
    oAlbedo = vec4(srgbToLinear(iColor.rgb), iColor.a);
}
