// ground.vert: a rectangle at y = 0 (by default 400 m on a side).

layout(location = 0) in vec2 aXZ; // the unit square's corners

uniform mat4 uViewProj;
uniform vec4 uRect; // x0, z0, x1, z1 (Renderer.SetGroundRect)

out vec3 vWorld;

void main() {
    vWorld = vec3(mix(uRect.x, uRect.z, aXZ.x), 0.0, mix(uRect.y, uRect.w, aXZ.y));
    gl_Position = uViewProj * vec4(vWorld, 1.0);
}
