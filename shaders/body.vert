// body.vert: draws the bodies of one mesh part as instances, at the poses
// the interpolation pass (interp.vert) computed for this frame. The
// material is the Material uniform block (surface.glsl), bound per draw.

layout(location = 0) in vec3 aPos;
layout(location = 1) in vec3 aNormal;
layout(location = 2) in vec2 aUV;
// Per instance: the body's interpolated pose.
layout(location = 3) in vec4 iPos;   // xyz position
layout(location = 4) in vec4 iRot;   // orientation (w, x, y, z)
layout(location = 5) in vec4 iScale; // xyz scale along the mesh's axes
layout(location = 6) in vec4 iTint;  // linear
// More per vertex: the second UV set, the vertex colour (linear RGBA,
// white where the mesh has none) and the tangent (xyz, and w the
// bitangent's sign; zero where the mesh has none).
layout(location = 7) in vec2 aUV1;
layout(location = 8) in vec4 aColor;
layout(location = 9) in vec4 aTangent;

uniform mat4 uViewProj;

out vec3 vWorld;
out vec3 vNormal;
out vec2 vUV;
out vec2 vUV1;
out vec4 vColor;
out vec4 vTangent;
flat out vec3 vTint;

void main() {
    vec3 s = iScale.xyz;
    vec3 world = iPos.xyz + quatRotate(iRot, aPos * s);
    vWorld = world;
    // A normal goes through the inverse transpose of the scale; its
    // cofactor (s.y s.z, s.x s.z, s.x s.y) is that times the determinant,
    // which the fragment shader's normalize removes, and it needs no
    // division, so a zero component (a flattened mesh) is no NaN.
    vNormal = quatRotate(iRot, aNormal * vec3(s.y * s.z, s.x * s.z, s.x * s.y));
    // A tangent lies in the surface: it goes through the scale itself.
    vTangent = vec4(quatRotate(iRot, aTangent.xyz * s), aTangent.w);
    vUV = aUV;
    vUV1 = aUV1;
    vColor = aColor;
    vTint = iTint.rgb;
    gl_Position = uViewProj * vec4(world, 1.0);
}
