// ground.vert: a large quad at y = 0.

layout(location = 0) in vec2 aXZ;

uniform mat4 uViewProj;

out vec3 vWorld;

void main() {
    vWorld = vec3(aXZ.x, 0.0, aXZ.y);
    gl_Position = uViewProj * vec4(vWorld, 1.0);
}
