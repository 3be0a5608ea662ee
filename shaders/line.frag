// line.frag: the world's lines (see line.vert). A fragment farther than
// half the width from the segment, on the screen, is cut: the quad's
// square ends become round, and the segments of a polyline join.

flat in vec2 vA;
flat in vec2 vB;
flat in float vHalf;
flat in vec4 vColor;

out vec4 fragColor;

void main() {
    vec2 p = gl_FragCoord.xy;
    vec2 ab = vB - vA;
    float t = clamp(dot(p - vA, ab) / max(dot(ab, ab), 1e-8), 0.0, 1.0);
    if (distance(p, vA + ab * t) > vHalf) {
        discard;
    }
    fragColor = vColor; // sRGB as the frame holds it (the shaders encode)
}
