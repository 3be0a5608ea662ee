// lit.frag: Blinn-Phong in linear light with a hemisphere ambient, encoded
// to sRGB on output.

in vec3 vWorld;
in vec3 vNormal;
in vec3 vAlbedo;

uniform vec3 uEye;
uniform vec3 uLightDir; // towards the light, unit

out vec4 fragColor;

void main() {
    vec3 n = normalize(vNormal);
    vec3 v = normalize(uEye - vWorld);
    vec3 l = uLightDir;
    vec3 h = normalize(l + v);
    float diff = max(dot(n, l), 0.0);
    // x^64 by squaring: exact, and far cheaper than pow per pixel.
    float x = max(dot(n, h), 0.0);
    x *= x; x *= x; x *= x; x *= x; x *= x; x *= x;
    float spec = x * step(0.0, dot(n, l));
    vec3 sky = vec3(0.30, 0.36, 0.45);
    vec3 ground = vec3(0.10, 0.09, 0.08);
    vec3 ambient = mix(ground, sky, 0.5 + 0.5 * n.y);
    vec3 c = vAlbedo * (ambient + 1.9 * diff * vec3(1.0, 0.96, 0.9)) + 0.35 * spec;
    fragColor = vec4(linearToSrgb(c), 1.0);
}
