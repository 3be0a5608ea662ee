// hud.frag: the HUD's and the overlay's fragments. uMode 0: flat colour;
// 1: a glyph quad (vUV: atlas texels); 2: the HUD's panel with its text,
// one quad (vUV: panel pixels at scale 1), each fragment finding its
// character in the cell grid uCells (red: the character, green: the
// line's highlight) and its glyph's texel in the atlas, drawn
// premultiplied: the text over the panel, painted into a texture of its
// own when the text changes (hudpanel.frag draws that texture).

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
    // Float arithmetic: a software rasterizer (llvmpipe) runs integer
    // division a lane at a time, and cost the frame twice as much.
    vec4 text = vec4(0.0);
    vec2 p = floor(vUV) - float(pad);
    vec2 size = vec2(glyphW, glyphH + lineGap);
    vec2 cell = floor(p / size);
    vec2 off = p - cell * size;
    if (p.x >= 0.0 && p.y >= 0.0 && off.y < float(glyphH) && cell.y < float(uRows) && cell.x < float(textureSize(uCells, 0).x)) {
        vec2 c = texelFetch(uCells, ivec2(cell), 0).rg;
        float ch = floor(c.r * 255.0 + 0.5);
        if (ch > float(firstGlyph) && ch <= float(lastGlyph)) {
            float a = texelFetch(uAtlas, ivec2((ch - float(firstGlyph)) * float(glyphW) + off.x, off.y), 0).r;
            text = c.g > 0.5 ? uWarnColor : uTextColor;
            text.a *= a;
        }
    }
    // The text over the panel (vColor), premultiplied.
    float a = text.a + vColor.a * (1.0 - text.a);
    fragColor = vec4(text.rgb * text.a + vColor.rgb * vColor.a * (1.0 - text.a), a);
}
