// hudpanel.frag: the HUD's painted panel, its text included (vUV: the
// panel's texels, painted at the size drawn), drawn premultiplied (blend
// ONE, ONE_MINUS_SRC_ALPHA) over the scene.

in vec2 vUV;
in vec4 vColor;

uniform sampler2D uPanel;

out vec4 fragColor;

void main() {
    fragColor = texelFetch(uPanel, ivec2(vUV), 0);
}
