// line.vert: the world's lines (simthread.Lines), one instance per
// segment, four vertices each (a triangle strip): the segment's quad on
// the screen, iWidth pixels wide and longer by half that width at each end
// (line.frag rounds the ends), at the depth of the segment's own points.
//
// An end is a world point (w 1) or, for a ray's far end, a direction (w
// 0). An end tied to a body (iNextBody ≥ 0) is the body's position as
// this frame draws it, read from the interpolation pass's output (uPoses,
// four texels a pose, its position first), plus the end's offset. A free
// end is lerped from the older snapshot's at uAlpha when uLerp says the two
// snapshots hold as many segments and the older end is free as well;
// otherwise it is the newer snapshot's. A segment with an end marked −2 is
// not drawn (a body the snapshot lacks, a coordinate not finite).

layout(location = 0) in vec4 iPrevA;
layout(location = 1) in vec4 iPrevB;
layout(location = 2) in ivec2 iPrevBody; // −1: free
layout(location = 3) in vec4 iNextA;
layout(location = 4) in vec4 iNextB;
layout(location = 5) in ivec2 iNextBody; // pose index, −1: free, −2: hidden
layout(location = 6) in float iWidth;    // pixels
layout(location = 7) in vec4 iColor;     // sRGB, straight alpha

uniform mat4 uViewProj;
uniform vec3 uEye;
uniform vec2 uViewport; // pixels
uniform float uAlpha;
uniform int uLerp;
uniform samplerBuffer uPoses;

flat out vec2 vA;      // the ends on the screen, in pixels (gl_FragCoord's frame)
flat out vec2 vB;
flat out float vHalf;  // half the width, pixels
flat out vec4 vColor;

// LINE_LIFT moves every point towards the eye by this part of its
// distance, so that a line drawn on a surface (a grid on the ground, a
// box around a body) is not half buried in it.
const float LINE_LIFT = 0.002;

vec4 lineEnd(vec4 prev, int prevBody, vec4 next, int nextBody) {
    vec4 p = next;
    if (nextBody >= 0) {
        p = vec4(texelFetch(uPoses, nextBody * 4).xyz + next.xyz, 1.0);
    } else if (uLerp != 0 && prevBody == -1 && prev.w == next.w) {
        p = mix(prev, next, uAlpha);
    }
    if (p.w != 0.0) {
        p.xyz = mix(uEye, p.xyz, 1.0 - LINE_LIFT);
    }
    return p;
}

void hide() {
    gl_Position = vec4(2.0, 2.0, 2.0, 1.0); // outside the clip volume: the quad is empty
    vA = vec2(0.0);
    vB = vec2(0.0);
    vHalf = 0.0;
    vColor = vec4(0.0);
}

void main() {
    if (iNextBody.x < -1 || iNextBody.y < -1) {
        hide();
        return;
    }
    vec4 a = uViewProj * lineEnd(iPrevA, iPrevBody.x, iNextA, iNextBody.x);
    vec4 b = uViewProj * lineEnd(iPrevB, iPrevBody.y, iNextB, iNextBody.y);
    // Clip the segment to the near plane (z ≥ −w) and the far plane (z ≤
    // w, a hair inside) in clip space, where a straight line stays one, so
    // that an end behind the eye or a ray's end at infinity projects.
    float da = a.z + a.w, db = b.z + b.w;
    if (da < 0.0 && db < 0.0) {
        hide();
        return;
    }
    if (da < 0.0) {
        a = mix(a, b, da / (da - db));
    } else if (db < 0.0) {
        b = mix(b, a, db / (db - da));
    }
    const float inside = 1.0 - 1e-5;
    da = a.w * inside - a.z;
    db = b.w * inside - b.z;
    if (da < 0.0 && db < 0.0) {
        hide();
        return;
    }
    if (da < 0.0) {
        a = mix(a, b, da / (da - db));
    } else if (db < 0.0) {
        b = mix(b, a, db / (db - da));
    }
    vec3 na = a.xyz / a.w, nb = b.xyz / b.w;
    vec2 pa = (na.xy * 0.5 + 0.5) * uViewport;
    vec2 pb = (nb.xy * 0.5 + 0.5) * uViewport;
    vec2 d = pb - pa;
    float len = length(d);
    vec2 dir = len > 1e-4 ? d / len : vec2(1.0, 0.0);
    vec2 across = vec2(-dir.y, dir.x);
    float h = 0.5 * iWidth;
    bool atB = gl_VertexID >= 2;
    float side = (gl_VertexID & 1) == 0 ? -1.0 : 1.0;
    vec2 p = (atB ? pb + dir * h : pa - dir * h) + across * (side * h);
    gl_Position = vec4(p / uViewport * 2.0 - 1.0, atB ? nb.z : na.z, 1.0);
    vA = pa;
    vB = pb;
    vHalf = h;
    vColor = iColor;
}
