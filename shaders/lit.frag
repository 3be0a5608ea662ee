// lit.frag: the built-in material shader: standardShading (surface.glsl),
// glTF's metallic-roughness model lit by the sun and the sky, the sun's
// share shadowed (sunShadow, common.glsl) when the world turns shadows on.

vec3 shade(Surface s) {
    s.lightColor *= sunShadow(s.position, s.normal); // 1 with shadows off
    return standardShading(s);
}
