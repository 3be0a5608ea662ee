// skin.vert: draws the characters of one skinned model part as instances,
// each vertex moved by its four joints' matrices, which the joint pass
// (skinjoint.vert) computed for this frame, after its morph targets
// moved it by the frame's weights (morphweight.vert). Its outputs are
// body.vert's, so every material's fragment stage draws it.

layout(location = 0) in vec3 aPos;
layout(location = 1) in vec3 aNormal;
layout(location = 2) in vec2 aUV;
layout(location = 3) in vec2 aUV1;
layout(location = 4) in vec4 aColor;
layout(location = 5) in vec4 aTangent;
layout(location = 6) in uvec4 aJoints;
layout(location = 7) in vec4 aWeights;
// Per instance: where the character's joint matrices start, and its
// tint (sRGB, simthread.Skin.Color).
layout(location = 8) in uint iFirst;
layout(location = 9) in vec4 iColor;
layout(location = 10) in uint iFirstWeight; // where its morph weights start

uniform mat4 uViewProj;
uniform samplerBuffer uJoints; // three RGBA32F rows a joint
// The part's morph targets (at most 8, gltf.MaxTargets): uTargets of
// them, their displacements in uMorph, three RGBA32F texels (position,
// normal, tangent) a target a vertex, vertex by vertex; their weights
// start at uMorphOffset among the character's in uWeights.
uniform int uTargets;
uniform int uMorphOffset;
uniform samplerBuffer uMorph;
uniform samplerBuffer uWeights;

out vec3 vWorld;
out vec3 vNormal;
out vec2 vUV;
out vec2 vUV1;
out vec4 vColor;
out vec4 vTangent;
flat out vec3 vTint;

// joint returns joint matrix k of the frame, as three rows.
mat3x4 joint(uint k) {
    int b = 3 * int(iFirst + k);
    return mat3x4(texelFetch(uJoints, b), texelFetch(uJoints, b + 1), texelFetch(uJoints, b + 2));
}

void main() {
    vec3 pos = aPos, nrm = aNormal, tan = aTangent.xyz;
    for (int t = 0; t < uTargets; t++) {
        float w = texelFetch(uWeights, int(iFirstWeight) + uMorphOffset + t).r;
        int b = 3 * (gl_VertexID * uTargets + t);
        pos += w * texelFetch(uMorph, b).xyz;
        nrm += w * texelFetch(uMorph, b + 1).xyz;
        tan += w * texelFetch(uMorph, b + 2).xyz;
    }
    mat3x4 rows = aWeights.x * joint(aJoints.x) + aWeights.y * joint(aJoints.y)
        + aWeights.z * joint(aJoints.z) + aWeights.w * joint(aJoints.w);
    mat4 m = transpose(mat4(rows[0], rows[1], rows[2], vec4(0.0, 0.0, 0.0, 1.0)));
    vec3 world = (m * vec4(pos, 1.0)).xyz;
    vWorld = world;
    // A normal goes through the cofactor of the upper 3×3 (its inverse
    // transpose times its determinant, which normalize removes).
    mat3 a = mat3(m);
    mat3 cof = mat3(cross(a[1], a[2]), cross(a[2], a[0]), cross(a[0], a[1]));
    vNormal = cof * nrm;
    vTangent = vec4(a * tan, aTangent.w);
    vUV = aUV;
    vUV1 = aUV1;
    vColor = aColor;
    vTint = srgbToLinear(iColor.rgb);
    gl_Position = uViewProj * vec4(world, 1.0);
}
