// body.vert: draws the bodies of one mesh part as instances, at the poses
// the interpolation pass (interp.vert) computed for this frame, with the
// material of the draw.

layout(location = 0) in vec3 aPos;
layout(location = 1) in vec3 aNormal;
layout(location = 2) in vec2 aUV;
// Per instance: the body's interpolated pose.
layout(location = 3) in vec4 iPos;   // xyz position
layout(location = 4) in vec4 iRot;   // orientation (w, x, y, z)
layout(location = 5) in vec4 iScale; // xyz scale along the mesh's axes
layout(location = 6) in vec4 iTint;  // linear
// Per draw: the material (one value for every instance of the call).
layout(location = 7) in vec4 mBaseColor; // linear RGBA factor
layout(location = 8) in vec4 mParams;    // metallic, roughness, textured (0 or 1), 0

uniform mat4 uViewProj;

out vec3 vWorld;
out vec3 vNormal;
out vec2 vUV;
flat out vec3 vTint;
flat out vec4 vBaseColor;
flat out vec4 vParams;

void main() {
    vec3 s = iScale.xyz;
    vec3 world = iPos.xyz + quatRotate(iRot, aPos * s);
    vWorld = world;
    // A normal goes through the inverse transpose of the scale; its
    // cofactor (s.y s.z, s.x s.z, s.x s.y) is that times the determinant,
    // which the fragment shader's normalize removes, and it needs no
    // division, so a zero component (a flattened mesh) is no NaN.
    vNormal = quatRotate(iRot, aNormal * vec3(s.y * s.z, s.x * s.z, s.x * s.y));
    vUV = aUV;
    vTint = iTint.rgb;
    vBaseColor = mBaseColor;
    vParams = mParams;
    gl_Position = uViewProj * vec4(world, 1.0);
}
