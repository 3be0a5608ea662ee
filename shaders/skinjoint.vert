// skinjoint.vert: the skinned characters' joint pass. One point per joint
// of the newer snapshot (simthread.Joint, read in place from the snapshot
// buffers), rasterizer off: it interpolates the joint between the two
// snapshots of the frame's plan, positions and scales lerped at uAlpha,
// rotations slerped, and captures its joint matrix (the interpolated
// transform times the joint's inverse bind matrix) with transform
// feedback, as three rows, for skin.vert to skin with.
//
// The tag is the renderer's, written per joint when a snapshot is
// uploaded: (the character's index, its Epoch, its model and the joint's
// place in the skin, the joint's inverse bind matrix). A joint whose tag
// differs between the two snapshots (the character jumped, changed its
// model or its joints, or is new) is shown at the newer pose as it is.
// The renderer keeps every slot's storage as large as the largest in
// use, so the older attributes fetched past uPrevCount are stale bytes,
// never past a buffer's end, and are ignored.

layout(location = 0) in vec3 iPrevPos;
layout(location = 1) in vec4 iPrevRot; // (w, x, y, z)
layout(location = 2) in vec3 iPrevScale;
layout(location = 3) in uvec4 iPrevTag;
layout(location = 4) in vec3 iNextPos;
layout(location = 5) in vec4 iNextRot;
layout(location = 6) in vec3 iNextScale;
layout(location = 7) in uvec4 iNextTag;

uniform float uAlpha;
uniform int uPrevCount; // joints in the older snapshot
uniform samplerBuffer uInverseBind; // three RGBA32F rows a matrix

out vec4 oRow0;
out vec4 oRow1;
out vec4 oRow2;

// scale1 is a joint's scale: the zero scale is 1 (simthread.Joint).
vec3 scale1(vec3 s) {
    return all(equal(s, vec3(0.0))) ? vec3(1.0) : s;
}

void main() {
    vec3 p = iNextPos;
    vec4 q = quatNormalize(iNextRot);
    vec3 s = scale1(iNextScale);
    if (gl_VertexID < uPrevCount && iPrevTag.xyz == iNextTag.xyz) {
        p = lerp3(iPrevPos, iNextPos, uAlpha);
        q = quatSlerp(iPrevRot, iNextRot, uAlpha);
        s = lerp3(scale1(iPrevScale), s, uAlpha);
    }
    mat4 m = mat4(
        vec4(quatRotate(q, vec3(s.x, 0.0, 0.0)), 0.0),
        vec4(quatRotate(q, vec3(0.0, s.y, 0.0)), 0.0),
        vec4(quatRotate(q, vec3(0.0, 0.0, s.z)), 0.0),
        vec4(p, 1.0));
    int b = 3 * int(iNextTag.w);
    mat4 ib = transpose(mat4(texelFetch(uInverseBind, b), texelFetch(uInverseBind, b + 1),
        texelFetch(uInverseBind, b + 2), vec4(0.0, 0.0, 0.0, 1.0)));
    mat4 j = transpose(m * ib);
    oRow0 = j[0];
    oRow1 = j[1];
    oRow2 = j[2];
}
