// common.glsl: shared by every stage (the renderer inserts it after the
// #version line). Quaternions are vec4(w, x, y, z), the memory order of
// mathgl's mgl32.Quat, so snapshot bytes are uploaded as they are.

// quatSlerp mirrors mgl32.QuatSlerp, which the CPU reference
// (renderer/interp.Slerp) and its test use: normalise both ends, take the
// shorter arc, and fall back to a normalised lerp when the ends are within
// about 1.8 degrees (dot > 0.9995), where acos loses precision.
vec4 quatSlerp(vec4 q1, vec4 q2, float t) {
    q1 = normalize(q1);
    q2 = normalize(q2);
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

// srgbToLinear and linearToSrgb are the exact sRGB transfer functions.
vec3 srgbToLinear(vec3 c) {
    return mix(c / 12.92, pow((c + 0.055) / 1.055, vec3(2.4)), step(0.04045, c));
}

vec3 linearToSrgb(vec3 c) {
    c = clamp(c, 0.0, 1.0);
    return mix(c * 12.92, 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055, step(0.0031308, c));
}
