// hud.vert: screen-space quads and lines for the HUD and the overlay, in
// pixels with the origin at the top left.

layout(location = 0) in vec2 aPos;   // pixels
layout(location = 1) in vec2 aUV;    // atlas or panel texels, or unused
layout(location = 2) in vec4 aColor; // sRGB, straight alpha

uniform vec2 uViewport; // pixels

out vec2 vUV;
out vec4 vColor;

void main() {
    vec2 ndc = aPos / uViewport * 2.0 - 1.0;
    gl_Position = vec4(ndc.x, -ndc.y, 0.0, 1.0);
    vUV = aUV;
    vColor = aColor;
}
