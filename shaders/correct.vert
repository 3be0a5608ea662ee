// correct.vert: the correction pass of the extrapolate motion mode. It
// runs once per switch of basis (a new snapshot to predict from), one
// point per body in body order, rasterizer off, before interp.vert, and
// captures each body's new correction offset with transform feedback into
// the other of two offset buffers, which interp.vert then reads (at the
// body's index, whatever order it draws in).
//
// The offset is what the frame must add to the new basis's prediction to
// show what the old basis would have shown, so that nothing jumps:
//
//   offset = old offset · carry  ⊕  (prediction of the old basis − of the new)
//
// (rotations compose on the left, in the world frame), and interp.vert
// shows it times a blend that decays from 1 (renderer/interp.Correction is
// the CPU reference). A body that jumped (Epoch change) or is new at the
// switch gets no offset: teleports never blend.

// The old basis.
layout(location = 0) in vec3 iPrevPos;
layout(location = 1) in vec4 iPrevRot;
layout(location = 2) in uint iPrevEpoch;
layout(location = 3) in vec3 iPrevVel;
layout(location = 4) in vec3 iPrevAngVel;
// The new basis.
layout(location = 5) in vec3 iNextPos;
layout(location = 6) in vec4 iNextRot;
layout(location = 7) in uint iNextEpoch;
layout(location = 8) in vec3 iNextVel;
layout(location = 9) in vec3 iNextAngVel;
// The offset before the switch.
layout(location = 10) in vec4 iCorrPos;
layout(location = 11) in vec4 iCorrRot;

uniform float uCarry;     // the part of the old offset still to blend in
uniform float uPrevAhead; // seconds the frame predicts past the old basis
uniform float uAhead;     // and past the new one
uniform int uPrevCount;   // bodies in the old basis
uniform int uStateCount;  // bodies with an old offset

out vec4 oCorrPos; // xyz offset, w 0
out vec4 oCorrRot; // unit (w, x, y, z), applied on the left

void main() {
    if (iPrevEpoch != iNextEpoch || gl_VertexID >= uPrevCount) {
        oCorrPos = vec4(0.0);
        oCorrRot = vec4(1.0, 0.0, 0.0, 0.0);
        return;
    }
    vec3 op = vec3(0.0);
    vec4 oq = vec4(1.0, 0.0, 0.0, 0.0);
    if (gl_VertexID < uStateCount) {
        op = iCorrPos.xyz;
        oq = iCorrRot;
    }
    vec3 d = extrap3(iPrevPos, iPrevVel, uPrevAhead) - extrap3(iNextPos, iNextVel, uAhead);
    vec4 dq = quatMul(quatExtrap(iPrevRot, iPrevAngVel, uPrevAhead), quatConj(quatExtrap(iNextRot, iNextAngVel, uAhead)));
    oCorrPos = vec4(op * uCarry + d, 0.0);
    oCorrRot = normalize(quatMul(quatPow(oq, uCarry), dq));
}
