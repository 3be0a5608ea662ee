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
