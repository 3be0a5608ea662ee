// hud.frag: the HUD's and the overlay's fragments. uMode 0: flat colour;
// 1: a glyph quad, vUV the atlas's texels (renderer/font.go: a glyph
// set's coverage, drawn texel for texel at the size it was rasterised
// at), the coverage multiplying the colour's alpha.

in vec2 vUV;
in vec4 vColor;

uniform sampler2D uAtlas;
uniform int uMode;

out vec4 fragColor;

void main() {
    if (uMode == 0) {
        fragColor = vColor;
        return;
    }
    fragColor = vec4(vColor.rgb, vColor.a * texelFetch(uAtlas, ivec2(vUV), 0).r);
}
