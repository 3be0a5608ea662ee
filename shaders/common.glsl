// common.glsl: shared by every stage (the renderer inserts it after the
// #version line). Quaternions are vec4(w, x, y, z), the memory order of
// mathgl's mgl32.Quat, so snapshot bytes are uploaded as they are.

// quatNormalize returns q scaled to unit length, or the identity
// quaternion (1, 0, 0, 0) when q is zero, infinite or NaN, where
// normalize() would give NaN and the body would vanish or smear across
// the screen. It scales by the largest component first, so no finite
// quaternion overflows or underflows in dot(), as the CPU reference does
// in float64. The CPU reference (renderer/interp.Slerp) rejects such a
// quaternion with ErrBadQuat; the GPU, which cannot report an error per
// body, shows the body unrotated. (A quaternion whose components are all
// subnormal may count as zero: GPUs may flush subnormals.)
vec4 quatNormalize(vec4 q) {
    const vec4 identity = vec4(1.0, 0.0, 0.0, 0.0);
    if (any(isnan(q)) || any(isinf(q))) {
        return identity;
    }
    vec4 a = abs(q);
    float m = max(max(a.x, a.y), max(a.z, a.w));
    if (!(m > 0.0)) {
        return identity;
    }
    return normalize(q / m);
}

// quatSlerp mirrors mgl32.QuatSlerp, which the CPU reference
// (renderer/interp.Slerp) and its test use: normalise both ends, take the
// shorter arc, and fall back to a normalised lerp when the ends are within
// about 1.8 degrees (dot > 0.9995), where acos loses precision. An end that
// is zero, infinite or NaN counts as the identity (see quatNormalize), so
// the result is always a unit quaternion.
vec4 quatSlerp(vec4 q1, vec4 q2, float t) {
    q1 = quatNormalize(q1);
    q2 = quatNormalize(q2);
    float d = dot(q1, q2);
    if (d < 0.0) {
        q2 = -q2;
        d = -d;
    }
    if (d > 0.9995) {
        return normalize(q1 + (q2 - q1) * t);
    }
    d = clamp(d, -1.0, 1.0);
    float theta = acos(d) * t;
    vec4 rel = normalize(q2 - q1 * d);
    return q1 * cos(theta) + rel * sin(theta);
}

// quatRotate rotates v by the unit quaternion q.
vec3 quatRotate(vec4 q, vec3 v) {
    vec3 u = q.yzw;
    vec3 c = cross(u, v);
    return v + 2.0 * (q.x * c + cross(u, c));
}

// lerp3 mirrors interp.Lerp exactly: a + (b - a) * t (mix() rounds
// differently).
vec3 lerp3(vec3 a, vec3 b, float t) {
    return a + (b - a) * t;
}

// The motion modes' maths (renderer/interp: Hermite, HermiteRot,
// Extrapolate, ExtrapolateRot and Correction are their CPU references,
// which the tests compare with these through transform feedback).

// TURN is a whole turn, 2π radians.
const float TURN = 6.28318530717959;
// AXIS_EPS: below this length a quaternion's vector part has no
// meaningful direction in float32 (interp's axisEps).
const float AXIS_EPS = 1e-6;
// HERMITE_SLACK: interp's hermiteSlack, a sixteenth of ½(|v0| + |v1|).
const float HERMITE_SLACK = 1.0 / 32.0;

// hermite3 mirrors interp.Hermite: the cubic Hermite curve from p0 to p1
// with tangents v0·dt and v1·dt, as the lerp plus a small correction, so
// that it is as precise as the lerp in float32.
vec3 hermite3(vec3 p0, vec3 v0, vec3 p1, vec3 v1, float dt, float t) {
    vec3 d = p1 - p0;
    vec3 m0 = v0 * dt - d;
    vec3 m1 = v1 * dt - d;
    float s = 1.0 - t;
    return p0 + d * t + (m0 * s - m1 * t) * (t * s);
}

// hermiteConsistent mirrors interp.Consistent: whether the velocities v0
// and v1 explain the displacement d over dt seconds (along each axis, the
// trapezoid rule within a sixteenth of the axis's speeds' distance; and a
// velocity change no larger than √2 times the larger speed). Hermite mode lerps a
// pair they do not explain.
bool hermiteConsistent(vec3 d, vec3 v0, vec3 v1, float dt) {
    vec3 r = d - 0.5 * (v0 + v1) * dt;
    vec3 c = v1 - v0;
    float top = max(length(v0), length(v1));
    return all(lessThanEqual(abs(r), HERMITE_SLACK * (abs(v0) + abs(v1)) * dt)) && dot(c, c) <= 2.0 * top * top;
}

// turnConsistent mirrors interp's consistentTurn: the same tests on a
// rotation vector, the trapezoid rule on the vector as a whole.
bool turnConsistent(vec3 phi, vec3 w0, vec3 w1, float dt) {
    vec3 r = phi - 0.5 * (w0 + w1) * dt;
    vec3 c = w1 - w0;
    float l0 = length(w0), l1 = length(w1);
    float reach = HERMITE_SLACK * (l0 + l1) * dt;
    float top = max(l0, l1);
    return dot(r, r) <= reach * reach && dot(c, c) <= 2.0 * top * top;
}

bool finite3(vec3 v) {
    return !any(isnan(v)) && !any(isinf(v));
}

// moving: a body publishes a velocity in either snapshot (finite, not
// zero); zero means unknown or at rest.
bool moving(vec3 a, vec3 b) {
    return finite3(a) && finite3(b) && (any(notEqual(a, vec3(0.0))) || any(notEqual(b, vec3(0.0))));
}

// quatMul is the Hamilton product a ⊗ b (mgl32.Quat.Mul).
vec4 quatMul(vec4 a, vec4 b) {
    return vec4(a.x * b.x - dot(a.yzw, b.yzw), a.x * b.yzw + b.x * a.yzw + cross(a.yzw, b.yzw));
}

vec4 quatConj(vec4 q) {
    return vec4(q.x, -q.yzw);
}

// quatExp returns the rotation by the rotation vector phi: |phi| radians
// about its direction.
vec4 quatExp(vec3 phi) {
    float a = length(phi);
    float h = 0.5 * a;
    float s = a > 1e-4 ? sin(h) / a : 0.5 - a * a / 48.0;
    return vec4(cos(h), phi * s);
}

// quatLog returns the rotation vector of the unit quaternion q along the
// shorter arc.
vec3 quatLog(vec4 q) {
    if (q.x < 0.0) {
        q = -q;
    }
    float sv = length(q.yzw);
    if (sv <= AXIS_EPS) {
        return 2.0 * q.yzw;
    }
    return q.yzw * (2.0 * atan(sv, q.x) / sv);
}

// quatPow turns by k times q's angle about q's axis.
vec4 quatPow(vec4 q, float k) {
    return quatExp(quatLog(q) * k);
}

// quatWinding mirrors interp's winding: the rotation vector of r with the
// number of whole turns along r's axis closest to pred.
vec3 quatWinding(vec4 r, vec3 pred) {
    if (r.x < 0.0) {
        r = -r;
    }
    float sv = length(r.yzw);
    float theta = 2.0 * atan(sv, r.x);
    vec3 u;
    if (sv > AXIS_EPS) {
        u = r.yzw / sv;
    } else if (length(pred) > 0.0) {
        u = normalize(pred);
    } else {
        return 2.0 * r.yzw;
    }
    float n = floor((dot(pred, u) - theta) / TURN + 0.5);
    return u * (theta + TURN * n);
}

// quatHermite mirrors interp.HermiteRot: from q0 to q1 by as many turns,
// and in the direction, that the angular velocities w0, w1 (world frame,
// rad/s) say over dt seconds, along the cubic Hermite curve on the
// rotation vector. Unusable quaternions count as the identity (see
// quatNormalize), non-finite velocities as zero.
vec4 quatHermite(vec4 q0, vec3 w0, vec4 q1, vec3 w1, float dt, float t) {
    q0 = quatNormalize(q0);
    q1 = quatNormalize(q1);
    if (!finite3(w0) || !finite3(w1)) {
        w0 = vec3(0.0);
        w1 = vec3(0.0);
    }
    vec3 phi = quatWinding(quatMul(q1, quatConj(q0)), (w0 + w1) * (0.5 * dt));
    return normalize(quatMul(quatExp(hermite3(vec3(0.0), w0, phi, w1, dt, t)), q0));
}

// quatConsistent is hermiteConsistent for orientations, on the rotation
// vector quatHermite takes (see interp's consistentRot); an end that is
// not finite is slerped (a zero one is the identity, as a zero Rot is).
bool quatConsistent(vec4 q0, vec3 w0, vec4 q1, vec3 w1, float dt) {
    if (any(isnan(q0)) || any(isinf(q0)) || any(isnan(q1)) || any(isinf(q1))) {
        return false;
    }
    q0 = quatNormalize(q0);
    q1 = quatNormalize(q1);
    vec3 phi = quatWinding(quatMul(q1, quatConj(q0)), (w0 + w1) * (0.5 * dt));
    return turnConsistent(phi, w0, w1, dt);
}

// extrap3 mirrors interp.Extrapolate: p moved on by v for e seconds.
vec3 extrap3(vec3 p, vec3 v, float e) {
    return finite3(v) ? p + v * e : p;
}

// quatExtrap mirrors interp.ExtrapolateRot: q turned on by w (world
// frame, rad/s) for e seconds.
vec4 quatExtrap(vec4 q, vec3 w, float e) {
    q = quatNormalize(q);
    if (!finite3(w) || all(equal(w, vec3(0.0)))) {
        return q;
    }
    return normalize(quatMul(quatExp(w * e), q));
}

// srgbToLinear is the exact sRGB decoding function (it runs once per body).
vec3 srgbToLinear(vec3 c) {
    return mix(c / 12.92, pow((c + 0.055) / 1.055, vec3(2.4)), step(0.04045, c));
}

// linearToSrgb evaluates the power segment with three square roots instead
// of pow (Taylor's fit, which chilliant.com discusses): within 0.25 of an
// 8-bit step of the exact curve, and a third cheaper on a software
// rasterizer, where this runs for every pixel.
vec3 linearToSrgb(vec3 c) {
    c = clamp(c, 0.0, 1.0);
    vec3 s1 = sqrt(c);
    vec3 s2 = sqrt(s1);
    vec3 s3 = sqrt(s2);
    vec3 curve = 0.662002687 * s1 + 0.684122060 * s2 - 0.323583601 * s3 - 0.0225411470 * c;
    return mix(c * 12.92, curve, step(0.0031308, c));
}

// The lights (renderer/lights.go's lightsBlock, std140): the frame's
// simthread.Lights, interpolated, uploaded once a frame; binding 1 in
// every program that uses it.
const int MAX_POINT_LIGHTS = 8; // simthread.MaxPointLights
layout(std140) uniform Lights {
    vec4 lSun;       // xyz towards the sun, unit; w the number of point lights
    vec4 lSunColor;  // rgb the sun's radiance (colour × intensity); w the sky's share (1 − SkyDim)
    vec4 lGround;    // rgb the ground's sun factor, w its sky factor (ground.frag)
    vec4 lPointPos[MAX_POINT_LIGHTS];   // xyz position; w 1/range (0: no range)
    vec4 lPointColor[MAX_POINT_LIGHTS]; // rgb colour × intensity
};

// pointLightCount is the number of point lights, 0 to MAX_POINT_LIGHTS.
int pointLightCount() {
    return int(lSun.w);
}

// pointLight returns the radiance that point light i brings to point p,
// colour × intensity / d² × clamp(1 − (d/range)⁴, 0, 1)², d the distance
// (at least 1 cm), and sets l to the unit direction from p towards it.
vec3 pointLight(int i, vec3 p, out vec3 l) {
    vec3 d = lPointPos[i].xyz - p;
    float d2 = max(dot(d, d), 1e-4);
    l = d * inversesqrt(d2);
    float x = d2 * lPointPos[i].w * lPointPos[i].w; // (d/range)²
    float w = clamp(1.0 - x * x, 0.0, 1.0);
    return lPointColor[i].rgb * (w * w / d2);
}

// The sun's shadow map (renderer/shadow.go's shadowBlock, std140; binding
// 2 in every program that uses it), and the depth texture on texture unit
// 5, sampled with depth comparison.
layout(std140) uniform Shadow {
    mat4 shLightVP; // world to the map: xy its texture coordinates, z depth, all 0 … 1
    vec4 shParams;  // x 1 with shadows on, else 0; y the normal offset, metres; zw 0
};
uniform sampler2DShadow uShadowMap;

// sunShadow is the share of the sun's light that reaches world point p of
// unit normal n: 0 in shadow, 1 lit; exactly 1 with shadows off and
// outside the map. p moves along n by a texel or two first (the normal
// offset), and the map was drawn with a slope-scaled depth offset, so that
// a surface does not shadow itself (acne). One bilinear comparison: 2×2
// percentage-closer filtering, which GPUs do in one fetch (four taps, a
// 3×3 tent, cost a software rasterizer twice the frame: docs/scene.md).
float sunShadow(vec3 p, vec3 n) {
    if (shParams.x == 0.0) {
        return 1.0;
    }
    vec3 q = (shLightVP * vec4(p + n * shParams.y, 1.0)).xyz;
    if (q.z >= 1.0) {
        return 1.0; // beyond the map's depth: nothing it holds is in front
    }
    return texture(uShadowMap, q);
}
