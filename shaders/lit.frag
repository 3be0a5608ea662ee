// lit.frag: the built-in material shader: standardShading (surface.glsl),
// glTF's metallic-roughness model lit by the sun and the sky.

vec3 shade(Surface s) {
    return standardShading(s);
}
