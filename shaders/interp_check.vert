// interp_check.vert: the body shader's interpolation, captured with
// transform feedback by renderer's tests and compared with the CPU
// reference (renderer/interp).

layout(location = 0) in vec4 iPrevPos; // xyz, w unused
layout(location = 1) in vec4 iPrevRot;
layout(location = 2) in vec4 iNextPos;
layout(location = 3) in vec4 iNextRot;
layout(location = 4) in float iAlpha;

out vec3 oPos;
out vec4 oRot;

void main() {
    oPos = lerp3(iPrevPos.xyz, iNextPos.xyz, iAlpha);
    oRot = quatSlerp(iPrevRot, iNextRot, iAlpha);
    gl_Position = vec4(0.0);
}
