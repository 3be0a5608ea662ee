// body.vert: draws every body as an instance of one mesh, at the pose the
// interpolation pass (interp.vert) computed for this frame.

layout(location = 0) in vec3 aPos;
layout(location = 1) in vec3 aNormal;
layout(location = 2) in vec4 iPosScale; // interpolated position, scale
layout(location = 3) in vec4 iRot;      // interpolated orientation (w, x, y, z)
layout(location = 4) in vec4 iAlbedo;   // linear colour

uniform mat4 uViewProj;

out vec3 vWorld;
out vec3 vNormal;
out vec3 vAlbedo;

void main() {
    vec3 world = iPosScale.xyz + quatRotate(iRot, aPos * iPosScale.w);
    vWorld = world;
    vNormal = quatRotate(iRot, aNormal);
    vAlbedo = iAlbedo.rgb;
    gl_Position = uViewProj * vec4(world, 1.0);
}
