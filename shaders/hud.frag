// hud.frag: flat colour, or a glyph from the font atlas when uText is set.

in vec2 vUV;
in vec4 vColor;

uniform sampler2D uAtlas;
uniform bool uText;

out vec4 fragColor;

void main() {
    float a = vColor.a;
    if (uText) {
        a *= texelFetch(uAtlas, ivec2(vUV), 0).r;
    }
    fragColor = vec4(vColor.rgb, a);
}
