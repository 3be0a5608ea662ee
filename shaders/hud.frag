// hud.frag: the HUD's and the overlay's fragments. uMode 0: flat colour;
// 1: a glyph quad (vUV: atlas texels); 2: the HUD's panel with its text,
// one quad (vUV: panel pixels at scale 1), each fragment finding its
// character in the cell grid uCells (red: the character, green: the
// line's highlight) and its glyph's texel in the atlas, drawn
// premultiplied (blend ONE, ONE_MINUS_SRC_ALPHA): the text over the
// panel, the panel over the scene, in one blend.

in vec2 vUV;
in vec4 vColor;

uniform sampler2D uAtlas;
uniform sampler2D uCells;
uniform int uMode;
uniform int uRows;           // rows of text in uCells (mode 2)
uniform vec4 uTextColor;     // sRGB, straight alpha
uniform vec4 uWarnColor;

// The HUD's metrics, as renderer/hud.go has them.
const int glyphW = 7, glyphH = 13, lineGap = 3, pad = 8;
const int firstGlyph = 32, lastGlyph = 126;

out vec4 fragColor;

void main() {
    if (uMode == 0) {
        fragColor = vColor;
        return;
    }
    if (uMode == 1) {
        fragColor = vec4(vColor.rgb, vColor.a * texelFetch(uAtlas, ivec2(vUV), 0).r);
        return;
    }
    vec4 text = vec4(0.0);
    ivec2 p = ivec2(floor(vUV)) - ivec2(pad);
    if (p.x >= 0 && p.y >= 0) {
        ivec2 cell = ivec2(p.x / glyphW, p.y / (glyphH + lineGap));
        ivec2 off = p - cell * ivec2(glyphW, glyphH + lineGap);
        if (off.y < glyphH && cell.y < uRows && cell.x < textureSize(uCells, 0).x) {
            vec2 c = texelFetch(uCells, cell, 0).rg;
            int ch = int(c.r * 255.0 + 0.5);
            if (ch > firstGlyph && ch <= lastGlyph) {
                float a = texelFetch(uAtlas, ivec2((ch - firstGlyph) * glyphW + off.x, off.y), 0).r;
                text = c.g > 0.5 ? uWarnColor : uTextColor;
                text.a *= a;
            }
        }
    }
    // The text over the panel (vColor), premultiplied.
    float a = text.a + vColor.a * (1.0 - text.a);
    fragColor = vec4(text.rgb * text.a + vColor.rgb * vColor.a * (1.0 - text.a), a);
}
