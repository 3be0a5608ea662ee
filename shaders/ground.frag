// ground.frag: a lit, anti-aliased metre grid that fades into the distance.

in vec3 vWorld;

uniform vec3 uEye;
uniform vec3 uLightDir;

out vec4 fragColor;

void main() {
    vec2 p = vWorld.xz;
    vec2 g = abs(fract(p - 0.5) - 0.5) / fwidth(p);
    float line = 1.0 - min(min(g.x, g.y), 1.0);
    vec3 base = vec3(0.16, 0.17, 0.19);
    vec3 c = mix(base, vec3(0.32, 0.34, 0.38), line * 0.8);
    float diff = max(uLightDir.y, 0.0);
    c *= 0.45 + 0.9 * diff;
    float fog = clamp(length(vWorld - uEye) / 90.0, 0.0, 1.0);
    c = mix(c, vec3(0.055, 0.06, 0.075), fog * fog);
    fragColor = vec4(linearToSrgb(c), 1.0);
}
