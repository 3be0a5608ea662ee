// interp.vert: the interpolation pass. One point per body, rasterizer off:
// it reads the body's pose in the two snapshots of the frame's plan, moves
// it in the plan's motion mode with one set of uniforms for the whole
// frame, and captures the result with transform feedback for body.vert to
// draw. Interpolating once per body rather than once per vertex keeps a
// software rasterizer (llvmpipe) fast too.
//
// Motion modes (renderer/interp.MotionMode; BodyPose is the CPU
// reference):
//   lerp:        lerp positions and slerp orientations at uAlpha;
//   hermite:     cubic Hermite positions and turn-counting orientations
//                with the bodies' velocities over uSpan seconds, for the
//                bodies that publish them and whose motion they explain
//                (lerp and slerp for the rest);
//   extrapolate: the newer snapshot moved on by its velocities for uAhead
//                seconds, plus uBlend times the body's correction offset
//                (iCorr*, written by correct.vert at the last switch of
//                basis; only for bodies below uStateCount).
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
// Velocities (hermite and extrapolate only): units/s and rad/s, world
// frame.
layout(location = 8) in vec3 iPrevVel;
layout(location = 9) in vec3 iPrevAngVel;
layout(location = 10) in vec3 iNextVel;
layout(location = 11) in vec3 iNextAngVel;
// The body's correction offset (extrapolate only): position, rotation.
layout(location = 12) in vec4 iCorrPos;
layout(location = 13) in vec4 iCorrRot;

const int MOTION_LERP = 0;
const int MOTION_HERMITE = 1;
const int MOTION_EXTRAPOLATE = 2;

uniform int uMotion;
uniform float uAlpha;
uniform int uPrevCount; // bodies in the older snapshot
uniform float uSpan;    // hermite: simulated seconds from the older snapshot to the newer
uniform float uAhead;   // extrapolate: seconds past the newer snapshot
uniform float uBlend;   // extrapolate: the part of the correction offsets shown
uniform int uStateCount; // extrapolate: bodies with a correction offset
// The older snapshot's attributes are fetched for every body, also past
// uPrevCount: the renderer keeps every snapshot buffer's storage as large
// as the largest in use, so such a fetch reads stale bytes, never past the
// end of a buffer (undefined behaviour in GL 4.1), and main ignores them.
// The same holds for the correction offsets past uStateCount.

// The pose, 64 bytes: the probe reads the first 48 (position, orientation,
// scale) back.
out vec4 oPos;    // xyz position, w 0
out vec4 oRot;    // unit (w, x, y, z)
out vec4 oScale;  // xyz scale, w 0
out vec4 oAlbedo; // linear tint

void main() {
    if (uMotion == MOTION_EXTRAPOLATE) {
        vec3 p = extrap3(iNextPos, iNextVel, uAhead);
        vec4 q = quatExtrap(iNextRot, iNextAngVel, uAhead);
        if (uBlend > 0.0 && gl_VertexID < uStateCount) {
            p += iCorrPos.xyz * uBlend;
            q = normalize(quatMul(quatPow(iCorrRot, uBlend), q));
        }
        oPos = vec4(p, 0.0);
        oRot = q;
    } else if (iPrevEpoch != iNextEpoch || gl_VertexID >= uPrevCount) {
        // A body that jumped (teleport, respawn) or did not exist in the
        // older snapshot is shown at its new pose: no streak. (Its older
        // pose may be anything, even zeros, so it must not enter the
        // slerp at all.)
        oPos = vec4(iNextPos, 0.0);
        oRot = quatNormalize(iNextRot); // the identity if unusable
    } else if (uMotion == MOTION_HERMITE) {
        // Velocities that do not explain the pair's motion (a bounce, a
        // collision) are not followed: the cubic would swing past both
        // ends (interp.Consistent).
        oPos = vec4(moving(iPrevVel, iNextVel) && hermiteConsistent(iNextPos - iPrevPos, iPrevVel, iNextVel, uSpan)
            ? hermite3(iPrevPos, iPrevVel, iNextPos, iNextVel, uSpan, uAlpha)
            : lerp3(iPrevPos, iNextPos, uAlpha), 0.0);
        oRot = moving(iPrevAngVel, iNextAngVel) && quatConsistent(iPrevRot, iPrevAngVel, iNextRot, iNextAngVel, uSpan)
            ? quatHermite(iPrevRot, iPrevAngVel, iNextRot, iNextAngVel, uSpan, uAlpha)
            : quatSlerp(iPrevRot, iNextRot, uAlpha);
    } else {
        oPos = vec4(lerp3(iPrevPos, iNextPos, uAlpha), 0.0);
        oRot = quatSlerp(iPrevRot, iNextRot, uAlpha);
    }
    // A zero scale is 1 (simthread.Body's zero value is a visible cube).
    oScale = vec4(all(equal(iScale, vec3(0.0))) ? vec3(1.0) : iScale, 0.0);
    oAlbedo = vec4(srgbToLinear(iColor.rgb), iColor.a);
}
