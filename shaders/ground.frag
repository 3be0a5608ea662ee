// ground.frag: a lit, anti-aliased metre grid that fades into the distance,
// on a plain base or on a material's texture (Renderer.SetGround).

in vec3 vWorld;

uniform vec3 uEye;
uniform vec3 uBase;       // linear base colour
uniform bool uTextured;   // sample uTexture, repeating every uTile metres
uniform sampler2D uTexture;
uniform float uTile;

out vec4 fragColor;

void main() {
    vec2 p = vWorld.xz;
    vec2 g = abs(fract(p - 0.5) - 0.5) / fwidth(p);
    float line = 1.0 - min(min(g.x, g.y), 1.0);
    vec3 base = uBase;
    float grid = 0.8;
    if (uTextured) {
        base *= texture(uTexture, p / uTile).rgb;
        grid = 0.25; // a hint of the grid over the texture
    }
    vec3 c = mix(base, 2.0 * base, line * grid);
    // Lit by the sun and the sky (the Lights block's lGround: by default
    // 0.9 and 0.45) and by each point light as a matte surface of the
    // same colour under the sun (0.9 over the default sun's 1.9).
    float diff = max(lSun.y, 0.0) * sunShadow(vWorld, vec3(0.0, 1.0, 0.0));
    vec3 lit = c;
    c *= lGround.w + diff * lGround.rgb;
#ifndef SUN_ONLY
    // Compiled out of the program drawn while no point light shines
    // (renderer/ground.go): on a software rasterizer the loop alone, never
    // entered, doubled the cost of the ground's fragments.
    for (int i = 0; i < pointLightCount(); i++) {
        vec3 l;
        vec3 e = pointLight(i, vWorld, l);
        c += lit * (0.9 / 1.9) * max(l.y, 0.0) * e;
    }
#endif
    float fog = clamp(length(vWorld - uEye) / 90.0, 0.0, 1.0);
    c = mix(c, vec3(0.055, 0.06, 0.075), fog * fog);
    fragColor = vec4(linearToSrgb(c), 1.0);
}
