// shadow.vert: draws the bodies of one mesh part into the sun's shadow
// map (renderer/shadow.go), at the poses the interpolation pass
// (interp.vert) computed for the frame, the very ones body.vert draws
// them at.

layout(location = 0) in vec3 aPos;
layout(location = 3) in vec4 iPos;   // xyz position
layout(location = 4) in vec4 iRot;   // orientation (w, x, y, z)
layout(location = 5) in vec4 iScale; // xyz scale along the mesh's axes

uniform mat4 uLightViewProj; // world to the light's clip space

void main() {
    gl_Position = uLightViewProj * vec4(iPos.xyz + quatRotate(iRot, aPos * iScale.xyz), 1.0);
}
