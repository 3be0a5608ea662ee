// surface.glsl: the fragment interface of every material, inserted after
// common.glsl into lit.frag and into a material's own shader
// (renderer.Material.Shader). It gathers the surface into a Surface, calls
// the material's shade function and writes its result, linear RGB,
// encoded to sRGB. A material's shader is a GLSL 410 file that defines
//
//     vec3 shade(Surface s);
//
// and may call what this file and common.glsl define: standardShading
// (the built-in lighting), directLight (one light's share of it),
// pointLightCount and pointLight (the point lights), hemisphere,
// linearToSrgb, quatRotate… docs/scene.md ("Lights") is the contract.
// Its compile errors cite its own lines as "0:N" (this file's are "2:N",
// common.glsl's "1:N").

in vec3 vWorld;
in vec3 vNormal;
in vec2 vUV;
in vec2 vUV1;
in vec4 vColor;
in vec4 vTangent;
flat in vec3 vTint;

uniform vec3 uEye; // the camera's position
uniform int uView; // renderer.View: 1 shows the normal as a colour

// The material's textures, by slot (renderer.Slot): base colour and
// emissive are sRGB textures, sampled as linear; the others linear data.
uniform sampler2D uBaseColorTexture;         // unit 0
uniform sampler2D uMetallicRoughnessTexture; // unit 1: B metal, G rough
uniform sampler2D uNormalTexture;            // unit 2: tangent space
uniform sampler2D uOcclusionTexture;         // unit 3: R
uniform sampler2D uEmissiveTexture;          // unit 4

// TF_FEATURES says what the material uses, so that what it does not use
// is compiled out (a software rasterizer runs both sides of a branch):
// bit 1 << slot for each texture (1 base colour, 2 metallic-roughness, 4
// normal, 8 occlusion, 16 emissive), 32 alpha MASK (the only use of
// discard, which would turn off early depth tests), 64 double sided. The
// renderer replaces the line below with each material's value (keeping
// the line count, so that "2:N" still names this file's lines).
#define TF_FEATURES 127

const int SLOT_BASE_COLOR = 0;
const int SLOT_METALLIC_ROUGHNESS = 1;
const int SLOT_NORMAL = 2;
const int SLOT_OCCLUSION = 3;
const int SLOT_EMISSIVE = 4;

const int ALPHA_OPAQUE = 0;
const int ALPHA_MASK = 1;
const int ALPHA_BLEND = 2;

// Material is the draw's material (renderer's materialBlock, std140).
layout(std140) uniform Material {
    vec4 mBaseColor; // linear RGBA factor
    vec4 mEmissive;  // linear RGB × strength, 0
    vec4 mPBR;       // metallic, roughness, normal scale, occlusion strength
    vec4 mAlpha;     // mode (ALPHA_*), cutoff, double sided (0 or 1), 0
    ivec4 mTex;      // textures present (a bit per slot), UV set 1 (a bit per slot), 0, 0
    vec4 mUV[10];    // per slot: the UV transform's rows (a, b, tx, 0), (c, d, ty, 0)
};

out vec4 fragColor;

const float PI = 3.14159265;

// sunColor is the default sun's radiance (simthread.DefaultSun) as a
// white matte surface facing it reflects it: the irradiance over π, in
// linear RGB. The frame's sun is Surface.lightColor.
const vec3 sunColor = 1.9 * vec3(1.0, 0.96, 0.9);

// Surface is everything a material's shade function is given, in the
// world frame and linear light.
struct Surface {
    vec3 position;   // the fragment's world position
    vec3 normal;     // unit, facing out of the mesh
    vec2 uv;         // the mesh's first UV set
    vec4 baseColor;  // factor × texture × vertex colour × body tint, linear RGBA
    float metallic;  // 0 dielectric … 1 metal (factor × texture)
    float roughness; // 0 mirror … 1 rough (perceptual; factor × texture)
    float occlusion; // ambient light reaching the point, 0 … 1 (1: no texture)
    vec3 emissive;   // light emitted, linear RGB (factor × strength × texture)
    vec3 lightDir;   // towards the sun, unit
    vec3 lightColor; // the sun's radiance: colour × intensity, linear RGB
    float sky;       // the sky's share of its ambient light, 0 … 1 (1 − SkyDim)
    vec3 eye;        // the camera's position
    vec3 view;       // unit, from the fragment towards the camera
};

// shade is the material's: linear RGB out, clamped to [0, 1] and encoded
// to sRGB by main.
vec3 shade(Surface s);

// hemisphere is the ambient light arriving from direction d: sky above,
// ground bounce below.
vec3 hemisphere(vec3 d) {
    return mix(vec3(0.10, 0.09, 0.08), vec3(0.30, 0.36, 0.45), 0.5 + 0.5 * d.y);
}

// envBRDF is Karis's analytic fit of the split-sum environment BRDF
// ("Physically Based Shading on Mobile", 2014): the specular share of
// ambient light, without a lookup texture.
vec3 envBRDF(vec3 f0, float roughness, float nv) {
    const vec4 c0 = vec4(-1.0, -0.0275, -0.572, 0.022);
    const vec4 c1 = vec4(1.0, 0.0425, 1.04, -0.04);
    vec4 r = roughness * c0 + c1;
    float a004 = min(r.x * r.x, exp2(-9.28 * nv)) * r.x + r.y;
    vec2 ab = vec2(-1.04, 1.04) * a004 + r.zw;
    return f0 * ab.x + ab.y;
}

// directLight is the light the surface reflects towards the eye from one
// light arriving from direction l (unit) with radiance c: a Lambert
// diffuse lobe and a GGX specular lobe (Trowbridge-Reitz distribution,
// Hammon's approximation of the height-correlated Smith visibility,
// Schlick's Fresnel), times n·l (0 behind the surface). A white matte
// surface facing the light shows c.
vec3 directLight(Surface s, vec3 l, vec3 c) {
    vec3 n = s.normal, v = s.view;
    vec3 h = normalize(l + v);
    float nl = max(dot(n, l), 0.0);
    float nv = max(dot(n, v), 1e-4);
    float nh = max(dot(n, h), 0.0);
    float vh = max(dot(v, h), 0.0);
    float r = clamp(s.roughness, 0.045, 1.0); // no infinitely sharp highlight
    float a = r * r;
    float a2 = a * a;
    vec3 base = s.baseColor.rgb;
    vec3 f0 = mix(vec3(0.04), base, s.metallic);
    vec3 diffuse = base * (1.0 - s.metallic);
    float d = nh * nh * (a2 - 1.0) + 1.0;
    float dist = a2 / (d * d); // π × GGX's D: the π cancels against sunColor's
    float vis = 0.5 / max(mix(2.0 * nl * nv, nl + nv, a), 1e-5);
    float x = 1.0 - vh;
    float x2 = x * x;
    vec3 fresnel = f0 + (1.0 - f0) * (x2 * x2 * x);
    return (diffuse + dist * vis * fresnel) * (nl * c);
}

// standardShading is the built-in lighting, glTF's metallic-roughness
// model made compact: directLight for the sun and each point light; for
// the sky, the hemisphere times the diffuse colour plus the hemisphere in
// the mirror direction times envBRDF, scaled by the sky's share and the
// occlusion; plus what the surface emits. No pow, one exp2, a normalize
// a light: cheap enough for a software rasterizer.
vec3 standardShading(Surface s) {
    vec3 n = s.normal, v = s.view;
    float nv = max(dot(n, v), 1e-4);
    float r = clamp(s.roughness, 0.045, 1.0);
    vec3 base = s.baseColor.rgb;
    vec3 f0 = mix(vec3(0.04), base, s.metallic);
    vec3 diffuse = base * (1.0 - s.metallic);
    vec3 direct = directLight(s, s.lightDir, s.lightColor);
    for (int i = 0; i < pointLightCount(); i++) {
        vec3 l;
        vec3 c = pointLight(i, s.position, l);
        direct += directLight(s, l, c);
    }
    vec3 ambient = hemisphere(n) * diffuse + hemisphere(reflect(-v, n)) * envBRDF(f0, r, nv);
    return direct + ambient * s.sky * s.occlusion + s.emissive;
}

// uvFor returns the texture coordinates of slot: its UV set through its
// transform (KHR_texture_transform; the identity for none).
vec2 uvFor(int slot) {
    vec3 uv = vec3(((mTex.y >> slot) & 1) != 0 ? vUV1 : vUV, 1.0);
    return vec2(dot(mUV[2 * slot].xyz, uv), dot(mUV[2 * slot + 1].xyz, uv));
}

void main() {
    Surface s;
    s.position = vWorld;
    s.eye = uEye;
    s.view = normalize(uEye - vWorld);
    // A mesh may have zero normals (triangles without area): face the eye.
    float nl = length(vNormal);
    vec3 n = nl > 0.0 ? vNormal / nl : s.view;
    // What follows is compiled for the material's TF_FEATURES; the
    // uniform block's values then say how (UV sets, transforms, factors).
    s.uv = vUV;
    s.baseColor = mBaseColor * vColor * vec4(vTint, 1.0);
#if (TF_FEATURES & 1) != 0
    s.baseColor *= texture(uBaseColorTexture, uvFor(SLOT_BASE_COLOR));
#endif
    int mode = int(mAlpha.x);
#if (TF_FEATURES & 32) != 0
    if (mode == ALPHA_MASK && s.baseColor.a < mAlpha.y) {
        discard;
    }
#endif
    vec3 t = vTangent.xyz;
    float handed = vTangent.w;
#if (TF_FEATURES & 64) != 0
    if (!gl_FrontFacing) {
        // A double-sided material's back face is lit as a front face
        // turned over (the tangent frame with it).
        n = -n;
        t = -t;
        handed = -handed;
    }
#endif
#if (TF_FEATURES & 4) != 0
    if (dot(t, t) > 0.0) {
        vec3 m = texture(uNormalTexture, uvFor(SLOT_NORMAL)).xyz * 2.0 - 1.0;
        m.xy *= mPBR.z;
        t = normalize(t - n * dot(n, t)); // Gram-Schmidt against the interpolated normal
        vec3 b = cross(n, t) * handed;
        vec3 p = t * m.x + b * m.y + n * m.z;
        float pl = length(p);
        if (pl > 0.0) {
            n = p / pl;
        }
    }
#endif
    s.normal = n;
    s.metallic = mPBR.x;
    s.roughness = mPBR.y;
#if (TF_FEATURES & 2) != 0
    vec4 mr = texture(uMetallicRoughnessTexture, uvFor(SLOT_METALLIC_ROUGHNESS));
    s.metallic *= mr.b;
    s.roughness *= mr.g;
#endif
    s.occlusion = 1.0;
#if (TF_FEATURES & 8) != 0
    s.occlusion = 1.0 + mPBR.w * (texture(uOcclusionTexture, uvFor(SLOT_OCCLUSION)).r - 1.0);
#endif
    s.emissive = mEmissive.rgb;
#if (TF_FEATURES & 16) != 0
    s.emissive *= texture(uEmissiveTexture, uvFor(SLOT_EMISSIVE)).rgb;
#endif
    s.lightDir = lSun.xyz;
    s.lightColor = lSunColor.rgb;
    s.sky = lSunColor.w;
    // Blending happens on the encoded values (the framebuffer is not
    // sRGB): the renderer's documented BLEND.
    fragColor = vec4(linearToSrgb(shade(s)), mode == ALPHA_BLEND ? clamp(s.baseColor.a, 0.0, 1.0) : 1.0);
    if (uView == 1) {
        fragColor = vec4(linearToSrgb(s.normal * 0.5 + 0.5), 1.0);
    }
}
